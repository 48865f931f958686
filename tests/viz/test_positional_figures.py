import math

import numpy as np

from core_model.positional import sinusoidal_table
from viz_app.figures.positional import CYCLIC_SCALE, curves, head_grid, similarity, wrapped


def test_similarity_is_the_symmetric_dot_product_of_rows():
    table = sinusoidal_table(20, 16).numpy()
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


def test_curves_draw_one_named_line_per_dimension():
    table = sinusoidal_table(30, 8).numpy()
    fig = curves(table, [0, 3], ["dim 0 (sin)", "dim 3 (cos)"], "t", "position", "value")
    assert [trace.name for trace in fig.data] == ["dim 0 (sin)", "dim 3 (cos)"]
    np.testing.assert_allclose(fig.data[1].y, table[:, 3])
    np.testing.assert_array_equal(fig.data[0].x, np.arange(30))
    assert fig.layout.xaxis.title.text == "position" and fig.data[0].line.color != fig.data[1].line.color


def test_head_grid_shares_one_symmetric_scale_with_row_zero_on_top():
    mats = -np.arange(3)[:, None, None] * np.abs(np.arange(4)[:, None] - np.arange(4)[None, :])  # [h, q, k]
    fig = head_grid(mats, ["h0", "<h1>", "h2"], "bias", "key", "query", cols=2)
    assert len(fig.data) == 3
    np.testing.assert_allclose(fig.data[2].z, mats[2])
    assert {(t.zmin, t.zmax) for t in fig.data} == {(-6.0, 6.0)}
    assert [t.showscale for t in fig.data] == [True, False, False]
    assert [a.text for a in fig.layout.annotations] == ["h0", "&lt;h1&gt;", "h2"]
    assert fig.layout.yaxis.autorange == "reversed"


def test_cyclic_scale_is_a_plotly_scale():
    import plotly.express as px

    assert CYCLIC_SCALE in dir(px.colors.cyclical)
