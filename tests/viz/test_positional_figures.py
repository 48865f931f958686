import numpy as np

from core_model.positional import sinusoidal_table
from viz_app.figures.positional import CYCLIC_SCALE, curves, head_grid


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
