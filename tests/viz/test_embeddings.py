import numpy as np

from viz_app.figures.embeddings import NEIGHBOUR_COLOUR, norm_bars, projection


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


def test_projection_writes_only_the_labels_it_is_given_and_names_every_point_on_hover():
    fig = projection(np.array([[0, 0], [0, 0], [3, 3]]), ["0·a", "1·<s>", "2·b"], labelled=[True, False, True],
                     names=("tokens", "neighbours"))
    points = next(t for t in fig.data if t.name == "tokens")
    assert list(points.text) == ["0·a", "", "2·b"]
    assert list(points.hovertext) == ["0·a", "1·&lt;s&gt;", "2·b"] and "%{hovertext}" in points.hovertemplate
