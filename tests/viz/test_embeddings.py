import numpy as np
import pytest

from viz_app.figures.embeddings import NEIGHBOUR_COLOUR, nearest, norm_bars, pca_2d, projection, row_norms


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


def test_pca_of_one_row_still_gives_two_axes():
    (points, others), share = pca_2d(np.ones((1, 4)), np.zeros((3, 4)))
    assert points.shape == (1, 2) and others.shape == (3, 2) and np.all(share == 0)
    np.testing.assert_allclose(points, 0)


def test_row_norms():
    np.testing.assert_allclose(row_norms([[3, 4], [0, 0]]), [5, 0])


def test_norm_bars_draw_one_grouped_series_per_name():
    fig = norm_bars(["0·<b>", "1·x"], {"before": [1, 2], "after": [3, 4]}, "t", "token", "norm")
    assert [trace.name for trace in fig.data] == ["before", "after"]
    assert list(fig.data[0].x) == ["0·&lt;b&gt;", "1·x"]  # typed HTML stays text
    np.testing.assert_allclose(fig.data[1].y, [3, 4])
    assert fig.layout.barmode == "group" and fig.layout.yaxis.title.text == "norm"
    assert fig.data[0].marker.color != fig.data[1].marker.color


def test_projection_puts_faint_neighbours_under_labelled_points():
    fig = projection(np.array([[0, 1], [2, 3]]), ["0·a", "1·<i>"], np.array([[5, 5]]), ["near"],
                     ("tokens", "neighbours"), "title", "x", "y")
    faint, points = fig.data
    assert faint.marker.color == NEIGHBOUR_COLOUR and faint.name == "neighbours" and faint.mode == "markers"
    assert points.mode == "markers+text" and list(points.text) == ["0·a", "1·&lt;i&gt;"]
    np.testing.assert_allclose(points.x, [0, 2])
    assert fig.layout.yaxis.scaleanchor == "x"  # equal units on both axes


def test_projection_without_neighbours_has_one_trace():
    assert len(projection(np.zeros((3, 2)), ["a", "b", "c"]).data) == 1
