"""Real size in the app (issue 36): a long run is traced on demand (core_model/trace/on_demand.py) and the pages
draw the same numbers as from a full trace; the run cache and the layer cache keep within their bytes, with the
memory measured in a process of its own."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core_model.trace import on_demand
from tests.app.conftest import assert_clean, grid_tile, named_chart, open_page
from viz_app import loaders, sidebar
from viz_app.figures.attention import pool_max
from viz_app.loaders import cost, runs
from viz_app.views import blocks, explorer as view

ROOT = Path(__file__).resolve().parents[2]
WORDS = "the old man sees the red car a small girl does not like the big dog "  # as the shipped models read text


def long_text(name: str, tokens: int) -> str:
    tokenizer = loaders.load_model(name).tokenizers["src" if loaders.load_model(name).config.has_encoder else "tgt"]
    text = WORDS
    while len(tokenizer.encode(text)) < tokens:
        text += WORDS
    return text


def traced(monkeypatch, name: str, text: str, on_demand: bool):
    monkeypatch.setattr(runs, "ON_DEMAND_BYTES", 0 if on_demand else 2**62)
    runs.run.clear()  # the cache's key is the text, not how it was traced
    run = loaders.run(name, text)
    runs.run.clear()
    assert run.trace.on_demand is on_demand
    return run


@pytest.mark.parametrize("name, tokens", [("lm-en", 300), ("translate-en-fr", 60), ("all-MiniLM-L6-v2", 300)])
def test_the_explorer_reads_the_same_numbers_from_an_on_demand_run(monkeypatch, name, tokens):
    if name == "all-MiniLM-L6-v2" and name not in loaders.available_models():
        pytest.skip("MiniLM's package is not installed")
    text = long_text(name, tokens)
    lazy, full = traced(monkeypatch, name, text, True), traced(monkeypatch, name, text, False)
    marks = sidebar.marks(loaders.load_model(name).tokenizers, full)
    for block in blocks.blocks(loaders.load_model(name).config):
        a, b = view.grid(lazy, block, marks, False, 1, 2), view.grid(full, block, marks, False, 1, 2)
        np.testing.assert_array_equal(a.selected, b.selected)
        np.testing.assert_array_equal(a.blocked, b.blocked)
        stats_a, stats_b = view.stats(lazy, a, marks), view.stats(full, b, marks)
        assert list(stats_a.values) == list(stats_b.values)
        for stat in stats_b.values:  # the digest's statistics, taken head by head during the forward pass
            np.testing.assert_array_equal(stats_a.values[stat], stats_b.values[stat])
        assert stats_a.peaks == stats_b.peaks
        stack, kind = blocks.split(block)
        pooled, by = lazy.trace.pooled_pattern(stack, 1, kind)
        np.testing.assert_array_equal(pooled[0], pool_max(full.trace.attn(stack, 1, kind).pattern[0], by))


def test_the_explorer_page_draws_a_long_bert_input_on_demand_and_says_so(monkeypatch):
    name = "all-MiniLM-L6-v2"
    if name not in loaders.available_models():
        pytest.skip("MiniLM's package is not installed")
    text = long_text(name, 600)  # cut to its 512 positions
    assert cost.weight_bytes(loaders.load_model(name).config, 512, 0) > runs.ON_DEMAND_BYTES  # on demand as shipped
    at = open_page("explorer", timeout=300, model=name, src=text, hide_special=True)
    assert_clean(at)
    run = loaders.run(name, text)
    assert run.trace.on_demand
    assert any("every token is shown" in c.value for c in at.caption)  # [CLS] and [SEP] cannot be left out of pools
    grid = named_chart(at, "explorer.grid")
    block = grid["layout"]["meta"]["block"]
    expected = pool_max(run.trace.attn("encoder", 4).pattern[0, 7], block)
    np.testing.assert_array_equal(grid_tile(at, "explorer.grid", 4, 7), expected)


CHILD = r"""
import dataclasses, json, os, sys
from core_model import checkpoints
from core_model.checkpoints import folder
from core_model.nn.model import Transformer
from core_model.trace import on_demand

base = checkpoints.load("assets/models/lm-en")  # ALiBi: 2,048 positions
cfg = dataclasses.replace(base.config, d_model=128, n_heads=4, d_ff=256, n_decoder_layers=4)
folder.save(sys.argv[1], Transformer(cfg).eval(), base.tokenizers)
os.environ["ATTENTION_VIZ_MODELS"] = json.dumps([["big", sys.argv[1]]])
from viz_app import loaders, sidebar
from viz_app.loaders import cost, runs
from viz_app.views import explorer as view

def rss():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS"))

model = loaders.load_model("big")
words = "the old man sees the red car . a small girl does not like the big dog . the dog runs home . "
texts = [(word + " " + words) * 200 for word in ("one", "two", "three")]
loaders.run("big", "the dog")  # the code paths warm, then the long runs
before, runs_kept = rss(), []
for text in texts:
    run = loaders.run("big", text)
    marks = sidebar.marks(model.tokenizers, run)
    g = view.grid(run, "decoder.self_attn", marks, False, 3, 1)  # the pooled grid and layer 3 in full
    view.stats(run, g, marks)
    run.trace.attn("decoder", 2).z
    runs_kept.append(len(run.tgt_ids))
print(json.dumps({"grown": rss() - before, "run_cache": runs.run.nbytes, "layers": on_demand.LAYERS.nbytes,
                  "kept": len(runs.run), "tokens": runs_kept, "full": cost.weight_bytes(model.config, 0, runs_kept[0]),
                  "on_demand": run.trace.on_demand}))
"""


def test_the_caches_bound_holds_after_runs_of_a_large_model_at_2048_tokens(tmp_path):
    """Three 2,048-token runs of a 4-layer, 4-head model: a full trace would keep 256 MiB of weights each."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "2"}
    out = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "big")], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["on_demand"] and min(got["tokens"]) >= 2000
    assert got["full"] > 250 * 2**20  # what each run would keep in full: three are more than the cache's bound
    assert got["kept"] == 4  # on demand, all four runs stay in the cache
    assert got["run_cache"] <= runs.RUN_BYTES and got["layers"] <= on_demand.LAYER_BYTES
    # measured: the runs kept and the layers computed, each within its bound, and what the allocator keeps of the
    # arrays the views made after the last run (serving.large_run gives back the run's own): 705-721 MB in all; without
    # giving back, the freed arrays of every thread's runs stayed, 946-1,344 MB
    assert got["grown"] < runs.RUN_BYTES + on_demand.LAYER_BYTES + got["full"], got


def test_the_sidebars_float16_switch_keeps_the_weights_in_half_and_every_page_says_so():
    at = open_page("explorer", model="lm-en", src="the old man sees the red car .", half=True)
    assert_clean(at)
    assert at.sidebar.toggle(key="half").value is True
    assert any("float16" in w.value for w in at.warning)
    text = "the old man sees the red car ."
    half, full = loaders.run("lm-en", text, half=True), loaders.run("lm-en", text)
    assert half.trace.half and not full.trace.half
    expected = full.trace.attn("decoder", 1).pattern[0, 2].astype(np.float16).astype(np.float32)
    np.testing.assert_array_equal(grid_tile(at, "explorer.grid", 1, 2), expected)
    at.sidebar.toggle(key="half").set_value(False).run()
    assert not any("float16" in w.value for w in at.warning)
    np.testing.assert_array_equal(grid_tile(at, "explorer.grid", 1, 2), full.trace.attn("decoder", 1).pattern[0, 2])
