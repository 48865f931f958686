import numpy as np
import pytest

from core_model.nn.positional import sinusoidal_table
from viz_app.figures.positional import CYCLIC_SCALE, curves, head_grid


def test_curves_draw_one_named_line_per_dimension():
    table = sinusoidal_table(30, 8).numpy()
    fig = curves(table, [0, 3], ["dim 0 (sin)", "dim 3 (cos)"], "t", "position", "value")
    assert [trace.name for trace in fig.data] == ["dim 0 (sin)", "dim 3 (cos)"]
    np.testing.assert_allclose(fig.data[1].y, table[:, 3])
    np.testing.assert_array_equal(fig.data[0].x, np.arange(30))
    assert fig.layout.xaxis.title.text == "position" and fig.data[0].line.color != fig.data[1].line.color


def test_head_grid_gives_each_head_its_own_symmetric_range_and_colour_bar_with_row_zero_on_top():
    """ALiBi's slopes differ a hundredfold: on one shared range the gentle heads would be blank."""
    slopes = np.array([1.0, 0.01, 0.25])
    mats = -slopes[:, None, None] * np.abs(np.arange(4)[:, None] - np.arange(4)[None, :])  # [h, q, k]
    fig = head_grid(mats, ["h0", "<h1>", "h2"], "bias", "key", "query", cols=2)
    heads = {t.name: t for t in fig.data}
    assert list(heads) == ["h0", "&lt;h1&gt;", "h2"]
    np.testing.assert_allclose(heads["h2"].z, mats[2])  # the real numbers, not rescaled
    for name, slope in zip(heads, slopes):
        assert (heads[name].zmin, heads[name].zmax) == pytest.approx((-3 * slope, 3 * slope))
    bars = [(t.colorbar.x, t.colorbar.y) for t in fig.data]
    assert all(t.showscale is not False for t in fig.data) and len(set(bars)) == 3  # one bar beside each head
    assert heads["h0"].colorbar.x < heads["&lt;h1&gt;"].colorbar.x  # beside its own column
    assert [a.text for a in fig.layout.annotations] == ["h0", "&lt;h1&gt;", "h2"]
    assert fig.layout.yaxis.autorange == "reversed"


def test_cyclic_scale_is_a_plotly_scale():
    import plotly.express as px

    assert CYCLIC_SCALE in dir(px.colors.cyclical)
