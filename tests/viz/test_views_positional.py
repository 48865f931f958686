"""views/positional.py on small hand-made arrays: the lab, the model's own encoding, the sentence's sum."""
import math

import numpy as np
import pytest

from tests.viz import fake
from viz_app.views.positional import (BASES, D_MODELS, LENGTHS, dim_kinds, dims_within, lab, own_encoding, parse_dims,
                                      sentence_sum, similarity, usable_dims, wrapped)


def sinusoid(length, d, base=10000.0):
    """The paper's formula, in numpy (the lab's table comes from core_model through a loader)."""
    pos = np.arange(length)[:, None]
    freq = base ** (-np.arange(0, d, 2) / d)
    out = np.zeros((length, d))
    out[:, 0::2], out[:, 1::2] = np.sin(pos * freq), np.cos(pos * freq)
    return out.astype(np.float32)


def test_similarity_is_the_symmetric_dot_product_of_rows():
    table = sinusoid(20, 16)
    sim = similarity(table)
    np.testing.assert_allclose(sim, table.astype(np.float64) @ table.T, atol=1e-5)
    np.testing.assert_allclose(sim, sim.T)
    np.testing.assert_allclose(np.diag(sim), 8.0, atol=1e-5)  # every row has length √(d/2)
    np.testing.assert_allclose(sim[3, 7], sim[10, 14], atol=1e-4)  # depends on the offset only


def test_cosine_similarity_has_a_unit_diagonal():
    rows = np.random.default_rng(1).normal(size=(6, 5)) * np.arange(1, 7)[:, None]
    sim = similarity(rows, cosine=True)
    np.testing.assert_allclose(np.diag(sim), 1, atol=1e-6)
    assert sim.max() <= 1 + 1e-6 and sim.min() >= -1 - 1e-6


def test_wrapped_angles_keep_their_rotation():
    angles = np.array([0.0, 7.0, 100.0, -1.0])
    w = wrapped(angles)
    assert np.all((w >= 0) & (w < 2 * math.pi))
    np.testing.assert_allclose(np.cos(w), np.cos(angles), atol=1e-5)


def test_settings_and_dimensions():
    assert 128 in D_MODELS and 100 not in D_MODELS and 8 in LENGTHS and 513 not in LENGTHS and 7 not in BASES
    assert parse_dims("0,1,8") == parse_dims("[0, 1, 8]") == [0, 1, 8] and parse_dims("[]") == []
    with pytest.raises(ValueError):
        parse_dims("x,y")
    assert dims_within(4, [0, 3]) and not dims_within(4, [4]) and not dims_within(4, [-1]) and not dims_within(4, ["1"])
    assert usable_dims([0, 20, 40, "x"], 32) == [0, 20]
    assert dim_kinds(5) == ("sin", "cos", "sin", "cos", "sin")


def test_lab_keeps_the_table_and_picks_the_chosen_columns():
    table = np.arange(12, dtype=np.float32).reshape(3, 4)  # [length 3, d_model 4]
    got = lab(table, [3, 0])
    np.testing.assert_array_equal(got.table, table)
    np.testing.assert_array_equal(got.columns, [[3, 0], [7, 4], [11, 8]])
    np.testing.assert_allclose(got.similarity, table.astype(np.float64) @ table.T)
    assert got.dims == (3, 0) and got.norm == pytest.approx(math.sqrt(2)) and got.pairs == 2


def test_lab_without_dimensions():
    got = lab(np.ones((2, 4)), [])
    assert got.columns.shape == (2, 0) and got.dims == ()


def test_sinusoidal_positions_show_one_table_with_dot_products():
    table = np.array([[1, 0], [0, 2]], np.float32)
    own = own_encoding({"src": table, "tgt": table}, "sinusoidal", ("src", "tgt"), 100, 2)
    assert own.n == 2 and [o.side for o in own.tables] == ["src"] and not own.tables[0].cosine
    np.testing.assert_allclose(own.tables[0].similarity, [[1, 0], [0, 4]])


def test_learned_positions_show_each_side_with_cosines():
    src, tgt = np.array([[3, 4], [0, 2]], np.float32), np.array([[1, 1], [2, 0]], np.float32)
    own = own_encoding({"src": src, "tgt": tgt}, "learned", ("src", "tgt"), 2, 40)
    assert own.n == 2 and [o.side for o in own.tables] == ["src", "tgt"] and own.tables[1].cosine
    np.testing.assert_allclose(own.tables[0].similarity, [[1, 0.8], [0.8, 1]], atol=1e-6)
    np.testing.assert_allclose(own.tables[1].similarity, [[1, math.sqrt(0.5)], [math.sqrt(0.5), 1]], atol=1e-6)


def test_rope_angles_are_wrapped_and_kept():
    angles, offset = np.array([[0.0, 7.0]]), np.eye(1)
    own = own_encoding({"angles": angles, "offset": offset}, "rope", ("tgt",), 1, 40)
    np.testing.assert_allclose(own.wrapped, [[0, 7 - 2 * math.pi]], atol=1e-6)
    assert own.angles is angles and own.offset is offset and own.tables == ()


def test_alibi_bias_rows_stack_the_heads():
    bias = -np.arange(2)[:, None, None] * np.abs(np.arange(3)[:, None] - np.arange(3)[None, :])  # [h 2, 3, 3]
    own = own_encoding({"bias": bias, "slopes": np.array([0.5, 0.25], np.float32)}, "alibi", ("src",), 3, 40)
    assert own.bias_rows.shape == (6, 3) and own.slopes == (0.5, 0.25)
    np.testing.assert_array_equal(own.bias_rows[3:], bias[1])


def test_relative_bias_keeps_each_stacks_table_and_stacks_its_heads():
    bias = np.arange(2 * 3 * 3, dtype=np.float32).reshape(2, 3, 3)  # [h 2, 3, 3]
    tables = {side: {"buckets": np.ones((2, 8)) * k, "bias": bias * k} for k, side in ((1, "src"), (2, "tgt"))}
    own = own_encoding(tables, "relative", ("src", "tgt"), 3, 40)
    assert [r.side for r in own.relative] == ["src", "tgt"] and own.relative[1].buckets[0, 0] == 2
    np.testing.assert_array_equal(own.relative[1].bias_rows[3:], bias[1] * 2)


def test_no_positional_encoding_has_nothing_to_show():
    own = own_encoding({}, "none", ("tgt",), 100, 40)
    assert own.kind == "none" and own.n == 40 and own.tables == () and own.bias is None and own.angles is None


def fake_run(pos, side):
    scaled = np.array([[[1.0, -3.0], [0.5, 0.0]]], np.float32)  # [1, 2, 2]
    pos_rows = None if pos is None else np.asarray(pos, np.float32)[None]
    out = scaled + (0 if pos_rows is None else pos_rows)
    values = fake.named(f"{side}_embed", tok=scaled / 2, scaled=scaled, pos=pos_rows, out=out)
    return fake.run(values, src=("0·a", "1·b"), tgt=("0·<s>", "1·a"))


def test_sentence_sum_of_an_encoder_has_three_parts_each_on_its_own_range():
    s = sentence_sum(fake_run([[0.0, 4.0], [1.0, 1.0]], "src"), has_encoder=True)
    assert s.side == "src" and s.labels == ("0·a", "1·b") and s.has_pos
    assert [key for key, _ in s.parts] == ["scaled", "pos", "out"] and s.bounds == (3.0, 4.0, 1.5)
    np.testing.assert_allclose(s.parts[2][1], [[1, 1], [1.5, 1]])


def test_sentence_sum_without_position_vectors():
    s = sentence_sum(fake_run(None, "tgt"), has_encoder=False)
    assert s.side == "tgt" and s.labels == ("0·<s>", "1·a") and not s.has_pos
    assert [key for key, _ in s.parts] == ["scaled", "out"] and s.bounds == (3.0, 3.0)
