"""The checks and arithmetic of bench/bertviz.py on tiny inputs (never timings): a wrong value fails its check.

BertViz is a bench-only requirement (requirements-bench.txt); only the test that runs it needs it.
"""
from __future__ import annotations

import base64
import json
import math

import numpy as np
import pytest

from bench import bertviz as bv
from core_model import ModelConfig, Transformer, run_with_trace

N = 8  # tokens
TOKENS = ["[CLS]", "the", "cat", "sat", "on", "the", "##mat", "[SEP]"]


@pytest.fixture(scope="module")
def tiny():
    """A 2-layer, 2-head encoder traced on 8 tokens: (trace, labels, patterns [layers, heads, q, k])."""
    import torch

    torch.manual_seed(0)
    model = Transformer(ModelConfig(architecture="encoder", src_vocab_size=40, d_model=16, n_heads=2, d_ff=32,
                                    n_encoder_layers=2, n_decoder_layers=0)).eval()
    _, trace = run_with_trace(model, list(range(5, 5 + N)))
    return trace, [f"{i}·{t}" for i, t in enumerate(TOKENS)], bv.patterns(trace)


def fake_html(attention, tokens) -> str:
    """HTML laid out as model_view's (its parameters as JSON inside the script), without BertViz."""
    params = {"attention": [{"name": None, "attn": np.asarray(attention).tolist(), "left_text": list(tokens),
                             "right_text": list(tokens)}], "default_filter": "0", "display_mode": "dark",
              "root_div_id": "bertviz-0", "include_layers": [0, 1], "include_heads": [0, 1], "total_heads": 2}
    script = "const params = " + json.dumps(params) + ";"
    return f'<div id="bertviz-0"></div>\n<script type="text/javascript">\n{script}\n</script>\n'


def typed(a) -> dict:
    a = np.ascontiguousarray(a, dtype=np.float32)
    return {"dtype": "f4", "bdata": base64.b64encode(a.tobytes()).decode(), "shape": ", ".join(map(str, a.shape))}


# ----- our side ---------------------------------------------------------------------------------

def test_the_explorer_grid_passes_its_check_and_a_wrong_value_fails(tiny):
    trace, labels, want = tiny
    data, seconds = bv.ours(trace, labels)
    assert isinstance(data, bytes) and seconds > 0
    assert bv.check_ours(data, want) == dict(ok=True, error=0.0, block=1, why="")
    wrong = want.copy()
    wrong[1, 0, 3, 4] += 0.25  # the trace says one thing, the figure draws another
    result = bv.check_ours(data, wrong)
    assert not result["ok"] and math.isclose(result["error"], 0.25, rel_tol=1e-5)


def test_a_figure_with_two_heads_swapped_fails(tiny):
    trace, labels, want = tiny
    spec = json.loads(bv.ours(trace, labels)[0])
    heat = [t for t in spec["data"] if t["type"] == "heatmap"]
    if len(heat) == 1:  # one heatmap with the heads tiled: swap the first two tiles
        z = bv.decode_array(heat[0]["z"]).astype(np.float32)
        drawn, _ = bv.figure_heads(spec, *want.shape)
        rows, cols = drawn.shape[2:]
        first, second = z[:rows, :cols].copy(), z[-rows:, -cols:].copy()  # head 0.0 and the last head
        z[:rows, :cols], z[-rows:, -cols:] = second, first
        heat[0]["z"] = typed(z)
    else:  # one heatmap per head
        heat[0]["z"], heat[-1]["z"] = heat[-1]["z"], heat[0]["z"]
    assert bv.check_ours(json.dumps(spec).encode(), want)["ok"] is False


def test_pooling_reference_keeps_each_blocks_largest_value():
    p = np.arange(25.0).reshape(5, 5) / 100
    assert np.array_equal(bv.pool_reference(p, 2), np.array([[6, 8, 9], [16, 18, 19], [21, 23, 24]]) / 100)
    assert np.array_equal(bv.pool_reference(p, 1), p)


def tiled(pooled, gap: int) -> np.ndarray:
    """[layers, heads, q', k'] laid out as one matrix, layers down and heads across, NaN between tiles."""
    L, H, q, k = pooled.shape
    z = np.full((L * q + (L - 1) * gap, H * k + (H - 1) * gap), np.nan, np.float32)
    for l in range(L):
        for h in range(H):
            z[l * (q + gap):l * (q + gap) + q, h * (k + gap):h * (k + gap) + k] = pooled[l, h]
    return z


@pytest.mark.parametrize("meta", [{"block": 3, "rows": 3, "cols": 3, "gap": 1}, {"block": 3}, {}])
def test_a_tiled_heatmap_is_read_per_head_and_a_wrong_value_fails(meta):
    rng = np.random.default_rng(0)
    want = rng.random((2, 3, N, N)).astype(np.float32)
    z = tiled(bv.pool_reference(want, 3).astype(np.float32), gap=1)  # tiles of 3 × 3, one NaN row/column between
    spec = {"data": [{"type": "heatmap", "z": typed(z)}], "layout": {"meta": meta}}
    assert bv.check_ours(json.dumps(spec).encode(), want) == dict(ok=True, error=0.0, block=3, why="")
    z[4, 8] += 0.5  # layer 1, head 2
    spec["data"][0]["z"] = typed(z)
    assert not bv.check_ours(json.dumps(spec).encode(), want)["ok"]


def test_a_figure_that_is_no_grid_fails_its_check_with_a_reason():
    want = np.zeros((2, 2, N, N), np.float32)
    spec = {"data": [{"type": "heatmap", "z": [[0.0] * 5] * 7}], "layout": {}}
    result = bv.check_ours(json.dumps(spec).encode(), want)
    assert not result["ok"] and result["why"].startswith("figure not read")
    assert not bv.check_ours(json.dumps({"data": [], "layout": {}}).encode(), want)["ok"]


def test_plotly_arrays_decode_typed_and_listed():
    a = np.array([[0.5, 1.0, 0.0]], np.float32)
    assert np.array_equal(bv.decode_array(typed(a)), a)
    assert np.isnan(bv.decode_array([[0.5, None]])[0, 1])


# ----- BertViz ----------------------------------------------------------------------------------

def test_bertviz_html_passes_with_its_tokens_and_weights_and_fails_otherwise(tiny):
    want = tiny[2]
    assert bv.check_bertviz(fake_html(want, TOKENS), TOKENS, want)["ok"]
    off = want.copy()
    off[0, 1, 2, 3] += 1e-3
    result = bv.check_bertviz(fake_html(off, TOKENS), TOKENS, want)
    assert not result["ok"] and math.isclose(result["error"], 1e-3, rel_tol=1e-3)
    assert bv.check_bertviz(fake_html(want, TOKENS[:-1] + ["[PAD]"]), TOKENS, want)["why"] == "the tokens differ"
    assert not bv.check_bertviz(fake_html(want[:, :1], TOKENS), TOKENS, want)["ok"]  # a head missing
    assert bv.check_bertviz("<html>no parameters</html>", TOKENS, want)["why"].startswith("HTML not read")


def test_real_model_view_output_passes_and_a_wrong_pattern_fails(tiny):
    pytest.importorskip("IPython")
    model_view = pytest.importorskip("bertviz").model_view
    import torch

    want = tiny[2]
    attention = tuple(torch.from_numpy(want[l][None]) for l in range(want.shape[0]))
    html = model_view(attention, TOKENS, html_action="return").data
    assert bv.check_bertviz(html, TOKENS, want) == dict(ok=True, error=0.0, why="")
    wrong = want.copy()
    wrong[1, 1] = wrong[1, 1, :, ::-1]
    assert not bv.check_bertviz(html, TOKENS, wrong)["ok"]


def test_without_bertviz_the_benchmark_names_the_bench_requirements(monkeypatch):
    monkeypatch.setattr(bv, "bertviz_installed", lambda: False)
    with pytest.raises(RuntimeError, match="requirements-bench.txt"):
        bv.bench_bertviz(sizes=(8,))


# ----- arithmetic and verdicts ------------------------------------------------------------------

OK = dict(ok=True, error=0.0, block=4, why="")


def row(n=128, ours_bytes=500_000, ours_s=(0.05, 0.07, 0.06), bv_bytes=50_000_000, bv_s=(3.0, 2.0, 4.0), **checks):
    return bv.make_row(n, 72, ours_bytes, ours_s, {**OK, **checks.get("ours", {})}, bv_bytes, bv_s, 300.0,
                       {**OK, **checks.get("bertviz", {})})


def test_rows_hold_medians_in_ms_and_ours_over_bertviz():
    r = row()
    assert math.isclose(r["ours_ms"], 60) and math.isclose(r["bertviz_ms"], 3000)
    assert r["ours_repeats"] == 3 and r["bertviz_repeats"] == 3
    assert math.isclose(r["bytes_ratio"], 0.01) and math.isclose(r["time_ratio"], 0.02)
    assert bv.fraction(r["bytes_ratio"]) == "1/100" and bv.fraction(r["time_ratio"]) == "1/50"
    assert bv.fraction(2.0) == "2.00×"


def test_targets_are_met_within_the_goals_and_not_beyond():
    met = bv.targets([row(), row(512, 700_000, (0.3,), 869_000_000, (78.0,))])
    assert [t[3] for t in met] == ["met", "met"] and all(t[4] == "" for t in met)
    assert met[0][1] == "≤ 1/50" and met[1][1] == "≤ 1/10"
    assert met[0][2] == "1/100 at 128, 1/1,241 at 512"
    bytes_over = bv.targets([row(bv_bytes=20_000_000)])  # 1/40 of its bytes: over 1/50
    assert [t[3] for t in bytes_over] == ["not met", "met"] and "0.50 MB" in bytes_over[0][4]
    time_over = bv.targets([row(bv_s=(0.5,))])  # 1/8 of its time: over 1/10
    assert [t[3] for t in time_over] == ["met", "not met"] and "60 ms" in time_over[1][4]
    exact = bv.targets([row(bv_bytes=25_000_000, bv_s=(0.6,))])  # exactly 1/50 and 1/10: met
    assert [t[3] for t in exact] == ["met", "met"]


def test_a_failed_check_is_never_met_however_fast():
    rows = [row(), row(512, ours={"ok": False, "why": "largest difference 1e-01"})]
    t = bv.targets(rows)
    assert [x[3] for x in t] == ["not met", "not met"]
    assert "our check failed at 512 tokens" in t[0][4]
    assert [x[3] for x in bv.targets([row(bertviz={"ok": False})])] == ["not met", "not met"]
    assert [x[3] for x in bv.targets([])] == ["not measured", "not measured"]


def test_section_is_a_markdown_table_with_one_line_per_size():
    lines = bv.section([row(), row(512, bertviz={"ok": False, "why": "the tokens differ"})], number="9")
    assert lines[0] == "## 9. Side by side: BertViz model_view"
    body = [x for x in lines if x.startswith("| 128") or x.startswith("| 512")]
    assert len(body) == 2 and "✓" in body[0] and "✗ FAILED (the tokens differ)" in body[1]
    assert all(len(x.split(" | ")) == len(lines[lines.index(body[0]) - 2].split(" | ")) for x in body)
