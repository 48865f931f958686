"""Head statistics on small hand-made patterns whose answers are known without the code under test."""
import math

import numpy as np
import pytest

from viz_app.views import head_stats


def previous_token_pattern(n: int) -> np.ndarray:
    """Every row i ≥ 1 reads token i−1; row 0 has no previous token and reads token 1 (as an encoder may)."""
    p = np.zeros((n, n))
    p[np.arange(1, n), np.arange(n - 1)] = 1
    p[0, 1] = 1
    return p


def causal_uniform(n: int) -> np.ndarray:
    """Row i spreads evenly over keys 0..i."""
    return np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]


def test_pure_previous_token_head():
    p = previous_token_pattern(6)
    assert head_stats.previous_token(p) == pytest.approx(1.0)
    assert head_stats.mean_distance(p) == pytest.approx(1.0)
    assert head_stats.entropy(p) == pytest.approx(0.0)


def test_stats_reduce_leading_axes():
    p = np.stack([previous_token_pattern(5), np.eye(5)])  # [2 heads, q, k]
    np.testing.assert_allclose(head_stats.previous_token(p), [1.0, 0.0])
    np.testing.assert_allclose(head_stats.mean_distance(p), [1.0, 0.0])


def test_uniform_row_entropy_is_log_n():
    for n in (1, 2, 7, 64):
        p = np.full((3, n), 1 / n)
        assert head_stats.entropy(p) == pytest.approx(math.log(n))


def test_causal_uniform_entropy_counts_only_allowed_keys():
    n = 5
    expected = np.mean([math.log(i + 1) for i in range(n)])
    assert head_stats.entropy(causal_uniform(n)) == pytest.approx(expected)
    assert head_stats.previous_token(causal_uniform(n)) == pytest.approx(np.mean([1 / (i + 1) for i in range(1, n)]))


def test_diagonal_head():
    p = np.eye(4)
    assert head_stats.mean_distance(p) == pytest.approx(0.0)
    assert head_stats.previous_token(p) == pytest.approx(0.0)
    assert head_stats.entropy(p) == pytest.approx(0.0)


def test_special_weight():
    p = np.array([[0.5, 0.25, 0.25], [0.1, 0.9, 0.0]])
    special = np.array([True, False, False])
    assert head_stats.special_weight(p, special) == pytest.approx((0.5 + 0.1) / 2)
    assert head_stats.special_weight(p, np.zeros(3, bool)) == pytest.approx(0.0)


def test_relative_distance_for_two_sentences():
    # 3 queries, 5 keys: query i reads the key at the same relative place → distance 0
    p = np.zeros((3, 5))
    p[[0, 1, 2], [0, 2, 4]] = 1
    assert head_stats.mean_distance(p, relative=True) == pytest.approx(0.0)
    # all three read the first key: relative distances 0, 0.5, 1
    q = np.zeros((3, 5))
    q[:, 0] = 1
    assert head_stats.mean_distance(q, relative=True) == pytest.approx(0.5)


def test_rows_with_no_weight_are_left_out():
    p = np.array([[1.0, 0.0], [0.0, 0.0]])  # the second query may attend to nothing
    assert head_stats.entropy(p) == pytest.approx(0.0)
    assert head_stats.mean_distance(p) == pytest.approx(0.0)
    assert np.isnan(head_stats.previous_token(p))


def test_table_shapes_and_per_head_values():
    heads = np.stack([previous_token_pattern(4), np.full((4, 4), 0.25)])  # [2, 4, 4]
    patterns = np.stack([heads, heads[::-1]])  # [layers 2, heads 2, 4, 4]
    special = np.array([True, False, False, False])
    stats = head_stats.table(patterns, special)
    assert set(stats) == set(head_stats.STATS)
    for values in stats.values():
        assert values.shape == (2, 2)
    np.testing.assert_allclose(stats["previous"], [[1.0, 0.25], [0.25, 1.0]])
    np.testing.assert_allclose(stats["entropy"], [[0.0, math.log(4)], [math.log(4), 0.0]], atol=1e-12)
    # key 0 gets row 1's whole weight in the previous-token head, 1/4 of every row in the uniform one
    np.testing.assert_allclose(stats["special"], [[0.25, 0.25], [0.25, 0.25]])
    assert set(head_stats.table(patterns, special, cross=True)) == set(head_stats.CROSS_STATS)


def test_table_equals_the_definitions_on_random_heads_with_masked_keys_and_empty_rows():
    """Random causal heads, one with an empty row, one with a weight below float32's smallest normal: every statistic
    equals its definition written out row by row in float64 (the table finds the live rows once and reads only the
    special columns)."""
    rng = np.random.default_rng(3)
    n = 9
    p = np.tril(rng.random((2, 3, n, n))).astype(np.float32)
    p[1, 2, 4] = 0  # a query that may attend to nothing
    p[0, 1, 6, 2] = 1e-41  # subnormal
    p /= np.maximum(p.sum(-1, keepdims=True), 1e-30)
    special = np.zeros(n, bool)
    special[[0, 3]] = True
    frame = (np.eye(n, dtype=bool)[0], np.eye(n, dtype=bool)[-1])
    want = {name: np.zeros((2, 3)) for name in (*head_stats.STATS, *head_stats.FRAME_STATS)}
    for layer, head in np.ndindex(2, 3):
        rows = [(i, p[layer, head, i].astype(np.float64)) for i in range(n) if p[layer, head, i].sum() > 0]
        for name, per_row in {
            "entropy": lambda i, r: -sum(w * math.log(w) for w in r if w > 0),
            "distance": lambda i, r: sum(w * abs(i - j) for j, w in enumerate(r)),
            "special": lambda i, r: r[special].sum(),
            "cls": lambda i, r: r[frame[0]].sum(),
            "sep": lambda i, r: r[frame[1]].sum(),
        }.items():
            want[name][layer, head] = np.mean([per_row(i, r) for i, r in rows])
        want["previous"][layer, head] = np.mean([r[i - 1] for i, r in rows if i >= 1])
    got = head_stats.table(p, special, frame=frame)
    assert set(got) == set(want)
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-6, atol=1e-7, err_msg=name)
    alone = {"entropy": head_stats.entropy(p), "distance": head_stats.mean_distance(p),
             "special": head_stats.special_weight(p, special), "previous": head_stats.previous_token(p)}
    for name, values in alone.items():  # each function by itself finds the same live rows
        np.testing.assert_array_equal(values, got[name], err_msg=name)
