"""The self-attention and worked-example views on hand-made arrays: expected values written out by hand."""
from types import SimpleNamespace as NS

import numpy as np
import pytest

from tests.viz import fake
from viz_app.views import self_attention as view
from viz_app.views import worked_example as worked

ENC_DEC = NS(has_encoder=True, has_decoder=True)
DECODER = NS(has_encoder=False, has_decoder=True)
CFG = NS(norm_placement="post", d_head=2, n_heads=2, positional="sinusoidal")
INF = -np.inf


def attn(prefix, q_len, k_len, pattern):
    """A two-head block whose every stage is a distinct constant, so a wrong pick shows."""
    shapes = {"q": (1, 2, q_len, 2), "k": (1, 2, k_len, 2), "v": (1, 2, k_len, 2), "scores": (1, 2, q_len, k_len),
              "scores_scaled": (1, 2, q_len, k_len), "z": (1, 2, q_len, 2), "concat": (1, q_len, 4), "out": (1, q_len, 4)}
    values = {f"{prefix}.{leaf}": np.full(shape, i + 1.0) for i, (leaf, shape) in enumerate(shapes.items())}
    values[f"{prefix}.pattern"] = np.asarray(pattern)
    values[f"{prefix}.scores_masked"] = np.where(np.asarray(pattern) > 0, 1.0, INF)
    return values


def trace():
    causal = [[[[1.0, 0.0], [0.25, 0.75]], [[1.0, 0.0], [0.5, 0.5]]]]  # [1, h, q, k]
    return fake.trace({"decoder.layers.0.resid_pre": np.arange(8.0).reshape(1, 2, 4),
                       **attn("decoder.layers.0.self_attn", 2, 2, causal),
                       "decoder.layers.0.norm1": np.zeros((1, 2, 4))}, arch="decoder")


WEIGHTS = {"w_q": np.eye(4, 2), "w_k": np.eye(4, 2), "w_v": np.eye(4, 2), "w_o": np.eye(4)}


def test_pick_block_keeps_a_block_the_model_has_and_names_a_missing_one():
    assert view.pick_block(ENC_DEC, "decoder.cross_attn") == view.Block("decoder.cross_attn")
    assert view.pick_block(DECODER, "decoder.cross_attn") == view.Block("decoder.self_attn", "decoder.cross_attn")
    assert view.pick_block(DECODER, "nonsense") == view.Block("decoder.self_attn", None)
    assert (view.Block("decoder.cross_attn").stack, view.Block("decoder.cross_attn").kind) == ("decoder", "cross_attn")


def test_head_steps_pick_the_head_and_the_layer_input():
    hs = view.head_steps(trace(), WEIGHTS, CFG, "decoder.self_attn", 0, 1, (), ("0·<s>", "1·le"))
    s = {step.name: step for _, group in hs.sections for step in group}
    np.testing.assert_array_equal(s["x"].values, np.arange(8.0).reshape(2, 4))  # post-norm: what enters the layer
    np.testing.assert_array_equal(s["pattern"].values, [[1.0, 0.0], [0.5, 0.5]])  # head 1
    np.testing.assert_array_equal(s["mask"].values, [[1, 0], [1, 1]])
    assert s["concat"].columns == (2, 4) and s["q"].values[0, 0] == 1.0 and s["z"].values[0, 0] == 6.0
    assert hs.q_labels == hs.k_labels == ("0·<s>", "1·le") and s["pattern"].zrange == (0, 1)
    chosen = view.head_steps(trace(), WEIGHTS, CFG, "decoder.self_attn", 0, 1, (), ("0·<s>", "1·le"), query=1)
    np.testing.assert_array_equal(view.query_rows(chosen), [[4.0, 4.0], [1.0, 1.0], [0.5, 0.5]])
    assert (chosen.query, chosen.outside) == (1, 0.0)  # a short text: every query and key shown


def test_pre_norm_block_reads_norm1():
    hs = view.head_steps(trace(), WEIGHTS, NS(**{**vars(CFG), "norm_placement": "pre"}), "decoder.self_attn", 0, 0,
                         (), ("a", "b"))
    np.testing.assert_array_equal(hs.sections[0][1][0].values, np.zeros((2, 4)))


def test_saturation_compares_the_trained_weights_with_the_unscaled_run():
    unscaled = view.head_steps(trace(), WEIGHTS, CFG, "decoder.self_attn", 0, 0, (), ("a", "b"), query=1)
    trained = fake.trace(attn("decoder.layers.0.self_attn", 2, 2, [[[[1.0, 0.0], [0.5, 0.5]]] * 2]), arch="decoder")
    sat = view.saturation(trained, unscaled, "decoder.self_attn", 0, 0)
    np.testing.assert_array_equal(sat.weights, [[0.5, 0.5], [0.25, 0.75]])
    assert sat.entropy[0] == pytest.approx(1.0) and sat.peak == (0.5, 0.75)


def test_worked_cells_lay_out_every_stage_with_its_axes():
    stages = {name: np.full((3, 3), i) for i, name in enumerate(n for row in worked.ROWS for n in row)}
    rows = worked.cells(stages, ("0·I", "1·love", "2·cats"))
    assert [[c.name for c in row] for row in rows] == [list(r) for r in worked.ROWS]
    q, mask = rows[0][0], rows[1][2]
    assert q.x_labels is None and q.axes == ("dim", "token") and q.digits == 2 and q.zrange is None
    assert mask.x_labels == ("0·I", "1·love", "2·cats") and mask.axes == ("key", "query") and mask.digits == 0
    assert mask.zrange == (0, 1) and (mask.values == 5).all()


def test_worked_tables_hold_the_defaults_and_the_typed_words():
    table = worked.x_table(["I", "love", "cats"])
    assert list(table.columns) == ["token", "0", "1", "2", "3"] and list(table["token"]) == ["I", "love", "cats"]
    values, missing, clamped = worked.read_grid(table, worked.DIMS)
    np.testing.assert_array_equal(values, worked.WORKED["X"])
    assert (missing, clamped) == (0, 0)
    np.testing.assert_array_equal(worked.weight_table("W_Q").to_numpy(), worked.WORKED["W_Q"])


@pytest.mark.parametrize("n_q, n_k, query, causal, queries, keys", [
    (10, 10, 3, True, (0, 10), (0, 10)),  # a short text: everything
    (2048, 2048, 1000, True, (968, 1032), (968, 1032)),  # causal: the keys up to the last shown query
    (2048, 2048, 5, True, (0, 64), (0, 64)),
    (2048, 2048, 2047, False, (1984, 2048), (1984, 2048)),
    (100, 400, 50, False, (18, 82), (168, 232)),  # cross: keys around the query's place in the other sentence
])
def test_a_long_text_shows_a_window_around_the_chosen_query(n_q, n_k, query, causal, queries, keys):
    qs, ks = view.span(n_q, n_k, query, causal)
    assert (qs.start, qs.stop) == queries and (ks.start, ks.stop) == keys and qs.start <= query < qs.stop


def test_the_window_holds_the_traces_values_and_says_the_weight_left_out():
    n, head = 200, 1
    pattern = fake.softmax_rows((1, 2, n, n), causal=True)
    t = fake.trace({"decoder.layers.0.resid_pre": np.zeros((1, n, 4)), **attn("decoder.layers.0.self_attn", n, n, pattern)},
                   arch="decoder")
    labels = tuple(f"{i}·w" for i in range(n))
    hs = view.head_steps(t, WEIGHTS, CFG, "decoder.self_attn", 0, head, (), labels, query=150)
    assert (hs.queries, hs.keys, hs.query) == (slice(118, 182), slice(118, 182), 32)
    s = {step.name: step for _, group in hs.sections for step in group}
    np.testing.assert_array_equal(s["pattern"].values, pattern[0, head, 118:182, 118:182])
    assert s["pattern"].y_labels == labels[118:182] and s["pattern"].x_labels == labels[118:182]
    assert hs.outside == pytest.approx(pattern[0, head, 150, :118].sum(), abs=1e-6) and hs.outside > 0


def test_the_notes_say_when_rope_turns_only_part_of_each_head():
    pythia = NS(norm_placement="pre", positional="rope", rope_dims=2)
    assert view.notes(pythia, "self_attn") == ["x_note.pre", "rope_note", "rope_partial_note"]
    assert view.notes(NS(**{**vars(pythia), "rope_dims": 0}), "self_attn") == ["x_note.pre", "rope_note"]
