"""all-MiniLM-L6-v2 in the app: listed, every encoder page works, decoding says why not, [CLS]/[SEP] can be hidden."""
import json

import numpy as np
import pytest

from core_model.importers import bert
from tests.app.conftest import assert_clean, decode, grid_tile, named_chart, open_page
from viz_app import loaders
from viz_app.i18n import text

MODEL = bert.MINILM
SENTENCE = "the animal didn't cross the street because it was too tired"
ENCODER_PAGES = ["overview", "tokens", "positional", "self_attention", "explorer", "masks", "ffn_norm"]


def minilm_page(page, **state):
    at = open_page(page, timeout=180, model=MODEL, src=SENTENCE, **state)
    assert_clean(at)
    return at


def messages(at) -> str:
    return " ".join(e.value for kind in ("info", "warning", "error") for e in at.get(kind))


def test_the_model_picker_lists_it():
    assert MODEL in loaders.available_models()
    at = minilm_page("overview")
    assert MODEL in at.sidebar.selectbox(key="model").options
    assert at.session_state["model"] == MODEL


@pytest.mark.parametrize("page", ENCODER_PAGES)
def test_every_encoder_page_draws_minilm(page):
    """Each page draws MiniLM itself: a chart over its 384 dimensions or its WordPiece tokens, or its diagram."""
    at = minilm_page(page)
    assert text("input.empty", "en") not in messages(at)
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    diagram = " ".join(c.proto.spec for c in at.get("graphviz_chart"))
    shapes = {n for spec in specs for trace in spec["data"] for key in ("x", "y", "z") if key in trace
              for n in np.shape(decode(trace[key]))}
    labels = " ".join(json.dumps(spec) for spec in specs)
    assert 384 in shapes or "[CLS]" in labels or "384" in diagram, page


def test_tokens_are_wordpieces_framed_by_cls_and_sep():
    run = loaders.run(MODEL, SENTENCE)
    tok = loaders.load_model(MODEL).tokenizers["src"]
    assert run.src_ids == (101, *tok.encode(SENTENCE), 102)
    assert run.src_labels[0] == "0·[CLS]" and run.src_labels[-1].endswith("·[SEP]")
    at = minilm_page("tokens")
    assert any("[CLS]" in str(table.value.to_numpy()) for table in at.dataframe)


def test_the_explorer_shows_all_72_heads_with_their_real_weights():
    at = minilm_page("explorer", layer=4, head=5)
    run = loaders.run(MODEL, SENTENCE)
    grid = named_chart(at, "explorer.grid")
    assert len(grid["data"][1]["customdata"]) == 6 * 12  # a click target per head
    n = len(run.src_ids)
    for layer, head in ((0, 0), (5, 11)):
        np.testing.assert_array_equal(grid_tile(at, "explorer.grid", layer, head),
                                      run.trace.attn("encoder", layer).pattern[0, head])
    focus = decode(named_chart(at, "explorer.head")["data"][0]["z"])
    np.testing.assert_array_equal(focus, run.trace.attn("encoder", 4).pattern[0, 5][:min(n, 64)])


def test_the_switch_hides_cls_and_sep_from_the_attention_views():
    shown = minilm_page("explorer", layer=0, head=2)
    hidden = minilm_page("explorer", layer=0, head=2, hide_special=True)
    p = loaders.run(MODEL, SENTENCE).trace.attn("encoder", 0).pattern[0, 2]  # [q, k]
    np.testing.assert_array_equal(decode(named_chart(shown, "explorer.head")["data"][0]["z"]), p)
    np.testing.assert_array_equal(decode(named_chart(hidden, "explorer.head")["data"][0]["z"]), p[1:-1, 1:-1])
    axis = named_chart(hidden, "explorer.head")["data"][0]["x"]
    assert not any("[CLS]" in label or "[SEP]" in label for label in axis)
    assert text("explorer.hidden", "en") in messages(hidden)
    assert hidden.sidebar.toggle(key="hide_special").value is True


def test_the_switch_hides_cls_and_sep_from_the_queries_and_keys_of_the_corpus_too():
    shown = minilm_page("explorer", layer=4, head=5, **{"explorer.qk": True})
    hidden = minilm_page("explorer", layer=4, head=5, hide_special=True, **{"explorer.qk": True})
    corpus = loaders.qk_corpus(MODEL, "encoder.self_attn", 4)
    frames = int(corpus.q_frame.sum())
    assert frames == 2 * len(loaders.held_out(MODEL).src)  # a [CLS] and a [SEP] per sentence
    for at, points in ((shown, len(corpus.q_tokens)), (hidden, len(corpus.q_tokens) - frames)):
        queries, keys = named_chart(at, "explorer.qk")["data"]
        assert len(decode(queries["x"])) == len(decode(keys["x"])) == points
    hovers = named_chart(hidden, "explorer.qk")["data"][0]["hovertext"]
    assert len(hovers) == len(corpus.q_tokens) - frames and not any("[CLS]" in h or "[SEP]" in h for h in hovers)
    assert any(text("qk.hidden", "en", n=2 * frames) == c.value for c in hidden.caption)
    assert not any("[SEP] are hidden" in c.value for c in shown.caption)


def test_the_switch_is_offered_only_for_a_model_with_cls_and_sep():
    assert minilm_page("overview").sidebar.toggle(key="hide_special")
    at = open_page("overview")  # the default translation model frames nothing
    assert not [w for w in at.sidebar.toggle if w.key == "hide_special"]


def test_head_statistics_find_previous_token_heads_and_heads_parked_on_cls_and_sep():
    at = minilm_page("explorer", hide_special=True)
    run = loaders.run(MODEL, SENTENCE)
    patterns = np.stack([run.trace.attn("encoder", i).pattern[0] for i in range(6)]).astype(np.float64)
    n = patterns.shape[-1]
    previous = np.mean([patterns[..., i, i - 1] for i in range(1, n)], axis=0)  # [layers, heads]
    on_cls, on_sep = patterns[..., 0].mean(-1), patterns[..., n - 1].mean(-1)
    table = at.dataframe[0].value
    columns = {text(f"explorer.stat.{s}", "en"): s for s in ("previous", "cls", "sep")}
    for column, expected in zip(columns, (previous, on_cls, on_sep)):
        np.testing.assert_allclose(table[column].to_numpy(float), expected.ravel(), rtol=1e-5, atol=1e-7)
    # The strongest head of each kind is named on the page, computed here from the trace itself.
    caption = " ".join(c.value for c in at.caption)
    for values in (previous, on_cls, on_sep):
        layer, head = np.unravel_index(values.argmax(), values.shape)
        assert text("explorer.top_head", "en", layer=layer, head=head, value=values.max()) in caption
    assert previous.max() > 0.9  # MiniLM has a clear previous-token head (layer 0, head 2)


def test_the_statistic_map_can_show_the_weight_on_sep():
    at = minilm_page("explorer", **{"explorer.stat": "sep"})
    run = loaders.run(MODEL, SENTENCE)
    patterns = np.stack([run.trace.attn("encoder", i).pattern[0] for i in range(6)]).astype(np.float64)
    np.testing.assert_allclose(decode(named_chart(at, "explorer.stats")["data"][0]["z"]),
                               patterns[..., -1].mean(-1), rtol=1e-5, atol=1e-7)


def test_the_decoding_page_says_why_it_does_not_apply():
    at = minilm_page("decoding")
    assert text("decoding.no_decoder", "en").split("{")[0][:60] in messages(at)
    assert not at.get("plotly_chart")


def test_the_masks_page_pads_a_batch_and_keeps_each_sentences_numbers():
    batch = "the cat sat on the mat\nattention is all you need, said the paper about transformers\nhello"
    at = minilm_page("masks", **{"masks.batch": batch})
    result = loaders.padded_batch(MODEL, tuple(batch.splitlines()))
    assert (result.src_ids == 0).any()  # the short sentences are padded with [PAD] (id 0)
    assert any("[PAD]" in label for label in result.src_labels[-1])
    assert max(result.invariance) < 1e-4  # padding changes no real token's output
    assert all(row[0] == 101 for row in result.src_ids)  # each row starts with [CLS]


def test_the_positional_page_shows_minilms_learned_positions():
    at = minilm_page("positional")
    weight = loaders.load_model(MODEL).model.src_embed.pos.weight.detach().numpy()
    z = decode(named_chart(at, "positional.model.src.table")["data"][0]["z"])
    np.testing.assert_array_equal(z, weight[:len(z)])


def test_the_overview_shows_the_sentence_embedding_sentence_transformers_would_give():
    import torch

    at = minilm_page("overview")
    loaded = loaders.load_model(MODEL)
    ids = torch.tensor([loaders.run(MODEL, SENTENCE).src_ids])
    with torch.no_grad():
        expected = bert.sentence_embedding(loaded.model(ids), torch.ones_like(ids))[0].numpy()
    shown = decode(named_chart(at, "overview.embedding")["data"][0]["z"])[0]
    np.testing.assert_allclose(shown, expected, atol=1e-6)
    assert abs(np.linalg.norm(shown) - 1) < 1e-5
