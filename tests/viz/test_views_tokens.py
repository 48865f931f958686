"""views/tokens.py on small hand-made arrays: the token table, the scaling, the neighbour map and their maths."""
from types import SimpleNamespace

import numpy as np
import pytest

from tests.viz import fake
from viz_app.views.tokens import (K_CHOICES, LABEL_CHAR, LABEL_LINE, label_boxes, nearest, neighbour_map, pca_2d,
                                  row_norms, scaling, shown_sides, spread_labels, token_table)


def fake_run(tok, pos=None, factor=2.0, src_ids=(5, 6, 5), side="src"):
    """A run whose `side` has the rows `tok` [n, d] (batch of one), scaled by `factor`."""
    tok = np.asarray(tok, dtype=np.float32)[None]
    values = fake.named(f"{side}_embed", tok=tok, scaled=tok * factor,
                        pos=None if pos is None else np.asarray(pos, np.float32)[None])
    labels = tuple(f"{i}·t{j}" for i, j in enumerate(src_ids))
    return fake.run(values, arch="encoder" if side == "src" else "decoder", **{side: labels, f"{side}_ids": src_ids})


def axes_of(fit):
    """The top two principal axes of `fit`, largest loading positive, by an eigendecomposition (not SVD)."""
    centred = np.asarray(fit, np.float64) - np.mean(fit, axis=0)
    eigvals, eigvecs = np.linalg.eigh(centred.T @ centred)
    axes = eigvecs[:, ::-1][:, :2]  # [d, 2]
    axes *= np.sign(axes[np.abs(axes).argmax(axis=0), [0, 1]])
    return np.mean(fit, axis=0), axes, eigvals[::-1][:2].sum() / eigvals.sum()


@pytest.fixture
def vocab():
    return np.random.default_rng(0).normal(size=(50, 8)).astype(np.float32)


def test_nearest_ranks_other_rows_by_cosine_and_skips_itself_and_excluded(vocab):
    ids, cos = nearest(vocab, [4, 9], k=5, exclude=(0, 1))
    unit = vocab / np.linalg.norm(vocab, axis=1, keepdims=True)
    for row, token in enumerate([4, 9]):
        sims = unit @ unit[token]
        sims[[token, 0, 1]] = -np.inf
        np.testing.assert_array_equal(ids[row], np.argsort(-sims)[:5])
        np.testing.assert_allclose(cos[row], sims[ids[row]], rtol=1e-5)
        assert np.all(np.diff(cos[row]) <= 0)


def test_nearest_never_returns_more_than_the_candidates():
    ids, cos = nearest(np.eye(4), [0], k=10, exclude=(1,))
    assert sorted(ids[0].tolist()) == [2, 3] and np.isfinite(cos).all()


def test_pca_projects_on_the_top_two_axes_with_a_fixed_sign(vocab):
    fit = vocab[:10]
    (points, others), share = pca_2d(fit, vocab[10:13])
    centred = fit.astype(np.float64) - fit.mean(axis=0)
    eigvals, eigvecs = np.linalg.eigh(centred.T @ centred)
    axes = eigvecs[:, ::-1][:, :2]  # [d, 2], largest first
    axes *= np.sign(axes[np.abs(axes).argmax(axis=0), [0, 1]])
    np.testing.assert_allclose(points, centred @ axes, atol=1e-4)
    np.testing.assert_allclose(others, (vocab[10:13] - fit.mean(axis=0)) @ axes, atol=1e-4)
    np.testing.assert_allclose(share, eigvals[::-1][:2] / eigvals.sum(), rtol=1e-4)
    assert points.dtype == np.float32 and points.shape == (10, 2)


def test_pca_of_many_more_rows_than_dimensions_matches_the_covariance_axes():
    # 2,048 tokens with their neighbours are ~12,000 rows: the thin SVD must give the same two axes.
    rows = np.random.default_rng(0).normal(size=(6000, 32)) * np.linspace(3.0, 0.5, 32)  # distinct variances
    (points,), share = pca_2d(rows)
    centred = rows - rows.mean(axis=0)
    eigvals, eigvecs = np.linalg.eigh(centred.T @ centred)
    axes = eigvecs[:, ::-1][:, :2]
    axes *= np.sign(axes[np.abs(axes).argmax(axis=0), [0, 1]])
    np.testing.assert_allclose(points, centred @ axes, atol=1e-3)
    np.testing.assert_allclose(share, eigvals[::-1][:2] / eigvals.sum(), rtol=1e-4)


def test_pca_of_one_row_still_gives_two_axes():
    (points, others), share = pca_2d(np.ones((1, 4)), np.zeros((3, 4)))
    assert points.shape == (1, 2) and others.shape == (3, 2) and np.all(share == 0)
    np.testing.assert_allclose(points, 0)


def test_row_norms():
    np.testing.assert_allclose(row_norms([[3, 4], [0, 0]]), [5, 0])


def test_k_choices_are_one_to_ten():
    assert 1 in K_CHOICES and 10 in K_CHOICES and 0 not in K_CHOICES and 11 not in K_CHOICES and "3" not in K_CHOICES


def test_shown_sides_are_the_sides_with_tokens():
    run = fake_run([[1, 0]], src_ids=(7,), side="tgt")
    assert shown_sides(run, ("src", "tgt")) == ("tgt",)
    assert shown_sides(run, ("src",)) == ()


def test_token_table_columns_and_specials_without_a_word():
    run = fake_run(np.zeros((3, 2)), src_ids=(2, 40, 41))
    table = token_table(run, "src", ["<s>", "▁the", "▁cat"], [-1, 0, 1])
    assert table.columns == (("position", (0, 1, 2)), ("piece", ("<s>", "▁the", "▁cat")), ("id", (2, 40, 41)),
                             ("word", ("—", "0", "1")))  # a dash, not "None" (in English on a Chinese page)


def test_scaling_gives_each_table_its_own_bound_and_the_norms():
    tok, pos = [[3, 4], [0, -1]], [[1, 0], [0, 2]]
    s = scaling(fake_run(tok, pos, factor=2.0, src_ids=(5, 6)), "src", d_model=4, scale_embedding=True)
    np.testing.assert_array_equal(s.tok, tok)
    np.testing.assert_array_equal(s.scaled, [[6, 8], [0, -2]])
    assert s.bounds == (4.0, 8.0) and s.series == ("tok", "scaled", "pos")  # the unscaled rows are not left pale
    for got, want in zip(s.norms, ([5, 1], [10, 2], [1, 2])):
        np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(s.norm_table, [[5, 10, 1], [1, 2, 2]])
    assert [key for key, _ in s.means] == ["mean", "mean_pos"]
    assert s.means[0][1] == pytest.approx({"before": 3, "after": 6, "factor": 2})
    assert s.means[1][1] == pytest.approx({"pos": 1.5})
    assert s.root_d == 2.0


def test_scaling_without_positions_or_scaling():
    s = scaling(fake_run([[0, 0]], factor=1.0, src_ids=(5,)), "src", d_model=9, scale_embedding=False)
    assert s.series == ("tok", "scaled") and s.means == (("mean", {"before": 0, "after": 0, "factor": 1}),)
    assert s.norm_table.shape == (1, 2)
    assert s.bounds == (1.0, 1.0)  # all zero: a scale that still draws
    assert s.root_d == 3.0


def neighbours(n, k, d, seed=1):
    rng = np.random.default_rng(seed)
    return SimpleNamespace(ids=np.arange(n * k).reshape(n, k) + 100, cosine=np.linspace(0.9, 0.1, n * k).reshape(n, k),
                           vectors=rng.normal(size=(n, k, d)).astype(np.float32),
                           pieces=tuple(tuple(f"p{i}{j}" for j in range(k)) for i in range(n)))


def test_neighbour_map_fits_the_axes_on_the_sentence_rows():
    rows = np.random.default_rng(0).normal(size=(4, 5)).astype(np.float32)
    near = neighbours(4, 2, 5)
    m = neighbour_map(fake_run(rows, src_ids=(5, 6, 7, 5)), "src", near)
    mean, axes, share = axes_of(rows)
    np.testing.assert_allclose(m.points, (rows - mean) @ axes, atol=1e-4)
    np.testing.assert_allclose(m.faint, (near.vectors.reshape(8, 5) - mean) @ axes, atol=1e-4)
    np.testing.assert_allclose(m.both, np.vstack([m.points, m.faint]))
    assert m.share == pytest.approx(share, rel=1e-4) and not m.few
    assert [token for _, token, _ in m.near] == ["0·t5", "0·t5", "1·t6", "1·t6", "2·t7", "2·t7", "3·t5", "3·t5"]
    assert [piece for piece, _, _ in m.near[:3]] == ["p00", "p01", "p10"]
    assert m.near[1][2] == pytest.approx(near.cosine[0, 1])
    assert [(key, i) for key, i, _ in m.table] == [("token", 0), ("neighbour", 1), ("neighbour", 2)]
    assert m.table[0][2] == ("0·t5", "1·t6", "2·t7", "3·t5")
    assert m.table[2][2][1] == f"p11 ({near.cosine[1, 1]:.3f})"


def test_neighbour_map_of_fewer_than_three_different_tokens_fits_on_the_neighbours_too():
    rows = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 0]], np.float32)
    near = neighbours(3, 2, 3)
    m = neighbour_map(fake_run(rows, src_ids=(5, 6, 5)), "src", near)
    assert m.few
    mean, axes, _ = axes_of(np.vstack([rows, near.vectors.reshape(6, 3)]))
    np.testing.assert_allclose(m.points, (rows - mean) @ axes, atol=1e-4)


def test_neighbour_map_with_no_neighbours():
    rows = np.eye(3, dtype=np.float32)
    near = SimpleNamespace(ids=np.zeros((3, 0), int), cosine=np.zeros((3, 0)), vectors=np.zeros((3, 0, 3)),
                           pieces=((), (), ()))
    m = neighbour_map(fake_run(rows, src_ids=(1, 2, 3)), "src", near)
    assert m.faint.shape == (0, 2) and m.near == () and len(m.table) == 1


def assert_no_two_shown_labels_overlap(points, labels, shown, span):
    """The threshold: two shown labels' boxes (each LABEL_CHAR per character wide, LABEL_LINE high, in units of
    the map's larger span) are apart along x or along y."""
    centres, half = label_boxes(points, labels, span)
    kept = np.flatnonzero(shown)
    for a in kept:
        for b in kept[kept > a]:
            dx, dy = np.abs(centres[a] - centres[b])
            assert dx >= half[a, 0] + half[b, 0] or dy >= half[a, 1] + half[b, 1], (labels[a], labels[b])


def test_spread_labels_keeps_far_labels_drops_piled_ones_and_every_dropped_one_would_overlap():
    points = np.array([[0, 0], [0.001, 0.001], [0, 0], [1, 1], [0, 1], [0.02, 0.5]])  # 1, 2 on top of 0
    labels = ["0·the", "1·cat", "2·the", "3·sat", "4·on", "5·a"]
    shown = spread_labels(points, labels, span=1.0)
    assert shown.tolist() == [True, False, False, True, True, True]  # the first of a pile, in sentence order
    assert_no_two_shown_labels_overlap(points, labels, shown, 1.0)
    centres, half = label_boxes(points, labels, 1.0)
    assert half[0, 0] == pytest.approx(LABEL_CHAR * 5 / 2) and half[0, 1] == pytest.approx(LABEL_LINE / 2)
    for i in np.flatnonzero(~shown):  # dropped only where it would have covered a shown one
        gap = np.abs(centres[shown] - centres[i]) < half[shown] + half[i]
        assert gap.all(axis=1).any()


def test_the_map_labels_a_crowded_sentence_without_overlaps_and_names_the_rest_on_hover():
    rng = np.random.default_rng(3)
    rows = np.vstack([rng.normal(size=(3, 6)) * 5, rng.normal(size=(40, 6)) * 0.01]).astype(np.float32)  # a pile
    run = fake_run(rows, src_ids=tuple(range(10, 53)))
    near = SimpleNamespace(ids=np.zeros((43, 0), int), cosine=np.zeros((43, 0)), vectors=np.zeros((43, 0, 6)),
                           pieces=((),) * 43)
    m = neighbour_map(run, "src", near)
    labels = run.src_labels
    assert m.labelled.shape == (43,) and 3 <= m.labelled.sum() < 43
    assert_no_two_shown_labels_overlap(m.points, labels, m.labelled, float(np.ptp(m.both, axis=0).max()))
