"""lm-en at 2,048 positions: every page renders a text that fills them, light enough to send and readable.

lm-en (ALiBi, no position table) reads 2,048 positions though trained on 512; the app takes a prompt of
2,027 tokens (<s> first, and room to continue by loaders.LM_NEW_TOKENS). Pages show a pooled overview of
every head and exact values over a window that follows the chosen query.
"""
import json

import numpy as np
import pytest

from tests.app.conftest import assert_clean, chart, chart_names, decode, grid_tile, named_chart, open_page
from viz_app import loaders
from viz_app.registry import NAMES
from viz_app.sidebar import EXAMPLES

MODEL = "lm-en"
WORDS = ("the old man sees the red car a small girl does not like the big dog "  # written as lm-en's training text
         "the dog runs to the house and the man walks in the garden ")  # (no punctuation: text.normalised)
MESSAGE = 2_000_000  # bytes one chart may send (a websocket message of the browser test: tests/e2e)


@pytest.fixture(scope="module")
def text():
    tokenizer = loaders.load_model(MODEL).tokenizers["tgt"]
    text = WORDS
    while len(tokenizer.encode(text)) < 2100:
        text += WORDS
    return text


def test_the_model_reads_all_its_positions(text):
    cfg = loaders.load_model(MODEL).config
    assert cfg.positions == 2048 and cfg.max_len == 512
    run = loaders.run(MODEL, text)
    assert len(run.tgt_ids) == cfg.positions - loaders.LM_NEW_TOKENS  # <s> + 2,027 tokens, room for 20 more
    p = run.trace.attn("decoder", 2).pattern[0]  # [heads, 2028, 2028]
    np.testing.assert_allclose(p.sum(-1), 1, atol=1e-5)  # every row a distribution, far past 512 too
    first = loaders.decode(MODEL, text).steps[0]  # and it reads on: its next token from all 2,028 positions
    assert np.isfinite(first.logits).all() and loaders.continuation(MODEL, text) is not None


@pytest.mark.parametrize("page", NAMES)
def test_every_page_draws_at_2048_positions_within_the_message_bound(page, text):
    at = open_page(page, timeout=300, model=MODEL, src=text)
    assert_clean(at)
    if page not in ("worked_example", "masks", "overview"):  # these read no text, a batch of 64, the diagram
        assert any("2027" in w.value for w in at.warning)  # the text was cut, and the page says so
    charts = chart_names(at)
    assert charts or page in ("overview", "worked_example")
    sizes = {name: len(chart(at, name).proto.spec) for name in charts}
    assert max(sizes.values(), default=0) <= MESSAGE, sizes


def test_the_grid_is_a_pooled_overview_of_the_exact_weights(text):
    at = open_page("explorer", timeout=300, model=MODEL, src=text)
    grid = named_chart(at, "explorer.grid")
    block = grid["layout"]["meta"]["block"]
    p = loaders.run(MODEL, text).trace.attn("decoder", 1).pattern[0, 3]  # [2028, 2028]
    tile = grid_tile(at, "explorer.grid", 1, 3)
    assert block > 1 and tile.shape == (-(-2028 // block),) * 2 and max(tile.shape) <= 256
    for i, j in ((0, 0), (5, 2), (tile.shape[0] - 1, tile.shape[1] - 1), (50, 49)):
        assert tile[i, j] == p[i * block:(i + 1) * block, j * block:(j + 1) * block].max()  # each cell: the max
    assert any(f"{block}" in c.value for c in at.caption)  # the page says a cell covers block × block tokens


def test_the_close_up_and_the_steps_show_exact_values_of_a_window(text):
    run = loaders.run(MODEL, text)
    p = run.trace.attn("decoder", 0).pattern[0, 1]
    at = open_page("self_attention", timeout=300, model=MODEL, src=text, head=1, **{"self_attention.query": 1500})
    assert_clean(at)
    shown = decode(named_chart(at, "self_attention.pattern")["data"][0]["z"])
    np.testing.assert_array_equal(shown, p[1468:1532, 1468:1532])  # 64 queries around 1,500 and the keys they read
    note = [i.value for i in at.info if "1468" in i.value]
    assert note and f"{p[1500, :1468].sum():.3f}" in note[0]  # how much of the query's weight lies outside
    row = named_chart(at, "self_attention.row")
    assert len(row["data"][0]["x"]) == 64
