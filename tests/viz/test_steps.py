"""Step-by-step attention: the figure builders (no streamlit), and the self-attention and worked-example
views checked against the model's own trace and against numpy."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from core_model import ModelConfig, Transformer, run_with_trace
from core_model import heads
from viz_app.views import self_attention as steps
from viz_app.views import worked_example as worked
from viz_app.figures import steps as figs

SRC, TGT = [5, 6, 7, 8, 9], [2, 11, 12, 13]


def numpy_softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def z_of(fig, trace=0):
    return np.asarray(fig.data[trace].z, dtype=np.float64)


# --- figures -----------------------------------------------------------------------------------

def test_stage_outlines_the_query_row_and_the_head_columns():
    values = np.arange(12, dtype=np.float32).reshape(3, 4)
    fig = figs.stage(values, None, ["0·a", "1·b", "2·c"], "t", row=1, columns=(2, 4))
    np.testing.assert_array_equal(z_of(fig), values)
    row, cols = fig.layout.shapes
    assert (row.x0, row.x1, row.y0, row.y1) == (-0.5, 3.5, 0.5, 1.5)
    assert (cols.x0, cols.x1, cols.y0, cols.y1) == (1.5, 3.5, -0.5, 2.5) and cols.line.dash == "dot"
    assert not figs.stage(values).layout.shapes


def test_stage_leaves_blocked_cells_empty_and_says_so():
    values = np.array([[0.5, -np.inf], [1.0, 2.0]], dtype=np.float32)
    fig = figs.stage(values, ["0·a", "1·<b>"], ["0·a", "1·<b>"], row=0)
    z = z_of(fig)
    assert np.isnan(z[0, 1]) and z[1, 1] == 2.0
    assert fig.data[0].customdata[0][1] == "−∞" and fig.data[0].customdata[1][1] == ""
    assert list(fig.data[0].x) == ["0·a", "1·&lt;b&gt;"]


def test_query_row_draws_one_panel_per_stage_with_blocked_keys_empty():
    rows = [np.array([4.0, 2.0, 8.0]), np.array([2.0, 1.0, -np.inf]), np.array([0.7, 0.3, 0.0])]
    fig = figs.query_row(rows, ["s", "s'", "a"], ["0·x", "1·y", "2·<z>"], "row")
    assert len(fig.data) == 3 and [d.name for d in fig.data] == ["s", "s'", "a"]
    np.testing.assert_array_equal(np.asarray(fig.data[0].y, dtype=float), rows[0])
    scaled = np.asarray(fig.data[1].y, dtype=float)
    assert np.isnan(scaled[2]) and list(fig.data[1].customdata) == ["", "", "−∞"]
    assert list(fig.data[2].x) == ["0·x", "1·y", "2·&lt;z&gt;"]
    assert list(fig.data[2].text) == ["0.70", "0.30", "0.00"] and fig.data[1].text[2] == "−∞"
    assert {d.xaxis for d in fig.data} == {"x", "x2", "x3"}  # three panels


def test_saturation_puts_both_rows_side_by_side_on_the_weight_scale():
    fig = figs.saturation([0.5, 0.5], [0.99, 0.01], ["0·a", "1·b"], ["with", "without"], "t")
    assert [d.name for d in fig.data] == ["with", "without"] and fig.layout.barmode == "group"
    np.testing.assert_allclose(np.asarray(fig.data[1].y, dtype=float), [0.99, 0.01])
    assert tuple(fig.layout.yaxis.range) == (0, 1)


def test_numbers_prints_every_value_and_minus_infinity():
    values = np.array([[1.234, -np.inf], [0.5, 2.0]])
    fig = figs.numbers(values, ["0·a", "1·b"], ["0·a", "1·b"], "t", digits=2)
    assert [list(r) for r in fig.data[0].text] == [["1.23", "−∞"], ["0.50", "2.00"]]
    assert fig.data[0].texttemplate == "%{text}"
    assert np.isnan(z_of(fig)[0, 1])
    assert [list(r) for r in figs.cell_text([[1.0, 0.0]], digits=0)] == [["1", "0"]]


# --- the stages of a model's head ----------------------------------------------------------------

def model_and_trace(**overrides):
    fields = dict(src_vocab_size=40, tgt_vocab_size=40, d_model=16, n_heads=2, d_ff=32,
                  n_encoder_layers=2, n_decoder_layers=2)
    model = Transformer(ModelConfig(**{**fields, **overrides})).eval()
    src = SRC if model.cfg.has_encoder else None
    tgt = TGT if model.cfg.has_decoder else None
    return model, run_with_trace(model, src, tgt)[1]


CASES = [  # (config overrides, block)
    ({}, "encoder.self_attn"), ({}, "decoder.self_attn"), ({}, "decoder.cross_attn"),
    ({"norm_placement": "pre"}, "encoder.self_attn"), ({"norm_placement": "pre"}, "decoder.cross_attn"),
    ({"architecture": "decoder", "norm_placement": "pre", "positional": "learned"}, "decoder.self_attn"),
    ({"architecture": "encoder"}, "encoder.self_attn"), ({"bias": False}, "decoder.cross_attn"),
]


@pytest.mark.parametrize("overrides,block", CASES)
@pytest.mark.parametrize("layer", [0, 1])
@pytest.mark.parametrize("head", [0, 1])
def test_input_times_head_weights_gives_the_traced_q_k_v(overrides, block, layer, head):
    model, trace = model_and_trace(**overrides)
    stack, kind = block.split(".")
    x, memory = steps.block_inputs(trace, model.cfg.norm_placement == "pre", stack, layer, kind)
    w = heads.head_weights(model.get_submodule(f"{stack}.layers.{layer}.{kind}"), head)
    view = trace.attn(stack, layer, kind)
    np.testing.assert_allclose(x @ w["w_q"] + w["b_q"], view.q[0, head], atol=1e-5)
    np.testing.assert_allclose(memory @ w["w_k"] + w["b_k"], view.k[0, head], atol=1e-5)
    np.testing.assert_allclose(memory @ w["w_v"] + w["b_v"], view.v[0, head], atol=1e-5)
    np.testing.assert_allclose(view.concat[0] @ w["w_o"] + w["b_o"], view.out[0], atol=1e-5)


def test_head_weights_are_copies_not_views_of_the_model():
    model, _ = model_and_trace()
    w = heads.head_weights(model.encoder.layers[0].self_attn, 0)
    w["w_q"][:] = 0
    assert model.encoder.layers[0].self_attn.q_proj.weight.abs().sum() > 0


def head_weights(model, block, layer, head):
    stack, kind = block.split(".")
    return heads.head_weights(model.get_submodule(f"{stack}.layers.{layer}.{kind}"), head)


def stages_by_name(hs):
    return {s.name: s for _, group in hs.sections for s in group}


def test_head_steps_show_the_traces_values_for_the_chosen_head():
    model, trace = model_and_trace()
    src, tgt = tuple(f"{i}·s" for i in range(5)), tuple(f"{i}·t" for i in range(4))
    for head in (0, 1):
        hs = steps.head_steps(trace, head_weights(model, "decoder.self_attn", 1, head), model.cfg, "decoder.self_attn",
                          1, head, src, tgt)
        view, s = trace.attn("decoder", 1, "self_attn"), stages_by_name(hs)
        for name, leaf in [("q", "q"), ("k", "k"), ("v", "v"), ("scores", "scores"), ("scaled", "scores_scaled"),
                           ("masked", "scores_masked"), ("pattern", "pattern"), ("z", "z")]:
            np.testing.assert_array_equal(s[name].values, getattr(view, leaf)[0, head])
        np.testing.assert_array_equal(s["mask"].values, np.tril(np.ones((4, 4))))  # the decoder is causal
        np.testing.assert_array_equal(s["concat"].values, view.concat[0])
        assert s["concat"].columns == (head * 8, head * 8 + 8)
        assert hs.q_labels == tgt and hs.k_labels == tgt
        np.testing.assert_array_equal(hs.rows[1], view.scores_masked[0, head])
        np.testing.assert_array_equal(hs.rows[2], view.pattern[0, head])
    head_0 = steps.head_steps(trace, head_weights(model, "decoder.self_attn", 1, 0), model.cfg, "decoder.self_attn",
                              1, 0, src, tgt)
    assert not np.allclose(stages_by_name(head_0)["q"].values, s["q"].values)


def test_cross_attention_keys_are_the_source_tokens():
    model, trace = model_and_trace()
    src, tgt = tuple(f"{i}·s" for i in range(5)), tuple(f"{i}·t" for i in range(4))
    hs = steps.head_steps(trace, head_weights(model, "decoder.cross_attn", 0, 1), model.cfg, "decoder.cross_attn",
                          0, 1, src, tgt)
    s = stages_by_name(hs)
    assert hs.q_labels == tgt and hs.k_labels == src
    assert s["pattern"].x_labels == src and s["pattern"].y_labels == tgt and s["memory"].y_labels == src
    assert s["pattern"].values.shape == (4, 5) and (s["mask"].values == 1).all()


def test_latex_follows_the_scaling_switch_and_the_head_size():
    cfg = ModelConfig(d_model=16, n_heads=2)
    assert r"\sqrt{8}" in steps.latex(cfg, "self_attn", True)["scaled"]
    assert steps.latex(cfg, "self_attn", False)["scaled"] == "S' = S"
    assert steps.latex(cfg, "cross_attn", True)["k"].startswith("K = M")
    assert "RoPE" in steps.latex(ModelConfig(d_model=16, n_heads=2, positional="rope"), "self_attn", True)["q"]


def test_unscaled_run_scores_equal_raw_scores_and_softmax_of_them():
    model = Transformer(ModelConfig(src_vocab_size=40, tgt_vocab_size=40, d_model=16, n_heads=2, d_ff=32,
                                    n_encoder_layers=1, n_decoder_layers=1)).eval()
    trace = run_with_trace(model, SRC, TGT, scale=False)[1]
    hs = steps.head_steps(trace, head_weights(model, "encoder.self_attn", 0, 1), model.cfg, "encoder.self_attn",
                          0, 1, (), (), scale=False)
    scores, scaled, weights = hs.rows
    np.testing.assert_array_equal(scaled, scores)  # the encoder masks nothing here
    np.testing.assert_allclose(weights, numpy_softmax(scores.astype(np.float64)), atol=1e-6)


def test_entropy_in_bits():
    assert steps.entropy_bits([0.25] * 4) == pytest.approx(2.0)
    assert steps.entropy_bits([1.0, 0.0, 0.0]) == 0.0
    assert steps.entropy_bits([0.5, 0.5]) == pytest.approx(1.0)


# --- the worked example ------------------------------------------------------------------------

def test_worked_example_matches_numpy():
    rng = np.random.default_rng(0)
    x, wq, wk, wv = (rng.normal(size=shape) for shape in [(3, 4), (4, 4), (4, 4), (4, 4)])
    for causal in (False, True):
        s = heads.worked_attention(x, wq, wk, wv, causal)
        q, k, v = x @ wq, x @ wk, x @ wv
        scores = q @ k.T
        masked = scores / 2 if not causal else np.where(np.tril(np.ones((3, 3))) > 0, scores / 2, -np.inf)
        np.testing.assert_allclose(s["q"], q)
        np.testing.assert_allclose(s["scores"], scores, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(s["scores_scaled"], scores / math.sqrt(4), rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(np.isneginf(s["scores_masked"]), np.isneginf(masked))
        np.testing.assert_allclose(s["pattern"], numpy_softmax(masked), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(s["z"], numpy_softmax(masked) @ v, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(s["mask"], np.tril(np.ones((3, 3))) if causal else np.ones((3, 3)))


def test_worked_defaults_give_each_token_a_different_favourite():
    d = worked.WORKED
    pattern = heads.worked_attention(d["X"], d["W_Q"], d["W_K"], d["W_V"], False)["pattern"]
    assert len(set(pattern.argmax(1))) == 3 and 0.45 < pattern.max(1).min() and pattern.max() < 0.8


def test_read_grid_zeroes_non_numbers_and_clips_large_values():
    table = pd.DataFrame({"token": ["a", "b"], "0": [1.5, None], "1": [np.nan, 1e6], "2": ["x", "-250"]})
    values, missing, clipped = worked.read_grid(table, ["0", "1", "2"])
    np.testing.assert_array_equal(values, [[1.5, 0.0, 0.0], [0.0, worked.LIMIT, -worked.LIMIT]])
    assert (missing, clipped) == (3, 2)
    values, missing, clipped = worked.read_grid(pd.DataFrame({"0": [np.inf]}), ["0"])
    assert values[0, 0] == worked.LIMIT and (missing, clipped) == (0, 1)


def test_worked_labels_keep_positions_and_tidy_words():
    labels = worked.worked_labels(["I", None, "  big   cats ", "x" * 30])
    assert labels == ("0·I", "1·", "2·big cats", "3·" + "x" * 20)
