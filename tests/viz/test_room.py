"""The room a figure makes for its labels, titles and colour bars (viz_app/figures/room.py), so the browser need not
measure them. tests/e2e/test_browser.py checks in chromium that nothing of any page's charts falls outside them."""
import numpy as np
import pytest

from viz_app.figures import heatmap, positional
from viz_app.figures.present import readable
from viz_app.figures.room import LINE, PAD, TICK, fit, text_width


def test_a_cjk_character_or_an_emoji_takes_a_whole_em_and_a_latin_one_less():
    assert text_width("猫", 12) == 12 and text_width("😀", 12) == 12
    assert 0.5 * 12 < text_width("a", 12) < 12
    assert text_width("猫猫猫", 12) > text_width("cat", 12)
    # labels arrive escaped for plotly (`<s>` as `&lt;s&gt;`): measured as they are shown
    assert text_width("&lt;s&gt;", 12) == text_width("<s>", 12)


def test_the_left_margin_grows_with_the_longest_row_label_and_automargin_is_off():
    short = heatmap.matrix(np.zeros((3, 3)), list("abc"), list("abc"), "t")
    long = heatmap.matrix(np.zeros((3, 3)), list("abc"), ["a", "b", "a_much_longer_token"], "t")
    assert long.layout.margin.l - short.layout.margin.l == pytest.approx(
        text_width("a_much_longer_token", TICK) - text_width("a", TICK), abs=1)
    for fig in (short, long):
        assert fig.layout.xaxis.automargin is False and fig.layout.yaxis.automargin is False


def test_labels_at_45_degrees_need_the_diagonal_of_the_longest_one():
    labels = [f"token{i}" for i in range(12)]
    layout = fit({"xaxis": {"tickangle": -45}, "yaxis": {}}, [{"type": "heatmap", "x": labels, "y": ["a", "b"]}])
    wide, high = text_width("token10", TICK), TICK * LINE
    assert layout["margin"]["b"] == pytest.approx(10 + PAD + (wide + high) * np.sqrt(0.5), abs=1)


def test_labels_left_to_plotly_get_room_for_the_farthest_angle_it_may_turn_them():
    labels = [f"token{i}" for i in range(12)]  # more than 8: level if they fit, else upright, as plotly finds
    fig = heatmap.matrix(np.zeros((2, 12)), labels, ["a", "b"], "t")
    assert fig.layout.xaxis.tickangle is None and tuple(fig.layout.xaxis.autotickangles) == (0, -90)
    assert fig.layout.margin.b == pytest.approx(10 + PAD + text_width("token10", TICK), abs=1)


def test_an_axis_title_adds_a_line_of_its_own():
    bare = heatmap.matrix(np.zeros((2, 2)), list("ab"), list("ab"), "t")
    titled = heatmap.matrix(np.zeros((2, 2)), list("ab"), list("ab"), "t", x_title="key", y_title="query")
    assert titled.layout.margin.b - bare.layout.margin.b > 14 * LINE
    assert titled.layout.margin.l - bare.layout.margin.l > 14 * LINE


def test_a_colour_bar_on_the_right_gets_room_and_one_laid_below_gets_it_at_the_foot():
    fig = heatmap.matrix(np.zeros((2, 2)), list("ab"), list("ab"), "t")
    assert fig.layout.margin.r > 30 + text_width("−0.00", TICK)  # its bar and its tick labels
    side = {"l": 10, "r": 10, "t": 10, "b": 10}
    layout = fit({"margin": side, "xaxis": {}, "yaxis": {},
                  "coloraxis": {"colorbar": {"orientation": "h", "thickness": 12}}},
                 [{"type": "heatmap", "z": [[0]], "coloraxis": "coloraxis"}])
    assert layout["margin"]["r"] == 10 and layout["margin"]["b"] > 12 + TICK * LINE
    hidden = fit({"margin": side, "xaxis": {}, "yaxis": {}, "coloraxis": {"showscale": False}},
                 [{"type": "heatmap", "z": [[0]], "coloraxis": "coloraxis"}])
    assert hidden["margin"]["r"] == 10


def test_a_colour_bar_is_as_wide_as_its_widest_label_or_its_title_given_as_text_or_as_a_dict():
    def right(bar):
        return fit({"xaxis": {}, "yaxis": {}, "coloraxis": {"colorbar": bar}},
                   [{"type": "heatmap", "z": [[0]], "coloraxis": "coloraxis"}])["margin"]["r"]
    long = "a much longer colour bar title"
    assert right({"title": long}) == right({"title": {"text": long}}) > right({})
    assert right({"ticktext": ["猫猫猫猫猫猫猫猫"]}) > right({"ticktext": ["cat"]})


def test_a_wider_margin_given_is_kept_and_an_axis_asking_for_automargin_keeps_it():
    layout = fit({"margin": {"l": 300, "b": 10}, "xaxis": {"automargin": True, "title": {"text": "x"}}, "yaxis": {}},
                 [{"type": "bar", "x": ["a", "b"], "y": [1, 2]}])
    assert layout["margin"]["l"] == 300
    assert layout["xaxis"]["automargin"] is True and layout["margin"]["b"] == 10  # plotly measures that side
    assert layout["yaxis"]["automargin"] is False


def test_only_the_outer_row_and_column_of_a_grid_of_subplots_push_the_margins():
    grid = positional.head_grid(np.zeros((8, 3, 3)), [f"head {h}" for h in range(8)], "t", "key", "query", cols=4)
    bottom = [k for k in grid.layout.to_plotly_json() if k.startswith("xaxis") and
              grid.layout[k].title.text == "key"]
    assert len(bottom) == 4  # the lower row's x axes carry the title; the upper row's title-less labels sit inside
    assert grid.layout.margin.b == pytest.approx(10 + PAD + TICK * LINE + 12 + 14 * LINE, abs=1)


def test_a_figure_without_axes_or_colour_bars_keeps_its_margins():
    assert fit({"margin": {"l": 0, "r": 0, "t": 0, "b": 0}}, [{"type": "pie", "values": [1]}])["margin"] == \
        {"l": 0, "r": 0, "t": 0, "b": 0}
    assert "margin" not in fit({}, [{"type": "pie", "values": [1]}])  # plotly's own default


def test_presenter_mode_hands_the_room_back_to_plotly_for_its_larger_text():
    fig = readable(heatmap.matrix(np.zeros((2, 2)), list("ab"), list("ab"), "t"), "#000")
    assert fig.layout.xaxis.automargin is True and fig.layout.yaxis.automargin is True


def test_an_axis_of_twenty_tokens_or_fewer_labels_every_one_and_a_longer_one_is_left_to_plotly():
    few = heatmap.matrix(np.zeros((20, 3)), list("abc"), [f"t{i}" for i in range(20)], "t")
    many = heatmap.matrix(np.zeros((21, 3)), list("abc"), [f"t{i}" for i in range(21)], "t")
    assert (few.layout.yaxis.tickmode, few.layout.yaxis.dtick) == ("linear", 1) and few.layout.xaxis.dtick == 1
    assert many.layout.yaxis.dtick is None and many.layout.yaxis.tickmode is None


def test_on_a_projector_each_labelled_row_gets_a_label_s_height_and_a_long_legend_goes_below():
    from viz_app.figures.layers import norm_lines
    from viz_app.figures.present import ROW, SIZE

    labels = [f"{i}·tok" for i in range(14)]
    fig = readable(heatmap.matrix(np.zeros((14, 14)), labels, labels, "t"), "#000")
    assert fig.layout.height >= 14 * SIZE * ROW  # not MAX_HEIGHT's 380 px, ~14 px a row
    few = readable(heatmap.matrix(np.zeros((3, 3)), list("abc"), list("abc"), "t"), "#000")
    assert few.layout.height == 380
    lines = readable(norm_lines(np.ones((5, 14)), list("abcde"), labels, "t"), "#000")
    assert lines.layout.legend.orientation == "h"  # 14 entries beside a ~140 px plot would scroll
    short = readable(norm_lines(np.ones((5, 2)), list("abcde"), labels[:2], "t"), "#000")
    assert short.layout.legend.orientation is None
