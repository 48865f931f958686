"""Words in a chart are text, never plotly's markup: a token such as `<s>` in a title, an axis title, an annotation,
a legend entry, a colour bar or a tick is escaped once (figures.base.figure for words, text.safe_labels for data)."""
import numpy as np

from viz_app.figures.base import figure
from viz_app.figures.decoding import top_k_bars
from viz_app.figures.heatmap import matrix
from viz_app.figures.layers import norm_lines
from viz_app.figures.masks import mask_figure
from viz_app.figures.positional import head_grid
from viz_app.figures.steps import query_row
from viz_app.text import plain, safe_labels

S = "0·<s>"
SAFE = "0·&lt;s&gt;"


def test_plain_escapes_what_plotly_reads_as_markup_and_nothing_else():
    assert plain("<b>x</b> & <br>") == "&lt;b&gt;x&lt;/b&gt; &amp; &lt;br&gt;"
    assert plain('"it\'s" · 3') == '"it\'s" · 3' and safe_labels([S, 1]) == [SAFE, "1"]


def test_every_word_of_a_figure_is_escaped_once():
    fig = figure([{"type": "bar", "x": [SAFE], "y": [1], "name": S},
                  {"type": "heatmap", "z": [[1]], "colorbar": {"title": {"text": S}, "ticktext": [S]}}],
                 {"title": {"text": f"The row of {S}, stage by stage"}, "xaxis": {"title": {"text": S}},
                  "yaxis2": {"title": {"text": S}, "ticktext": [S]}, "legend": {"title": {"text": S}},
                  "coloraxis": {"colorbar": {"title": {"text": S}}}, "annotations": [{"text": S}]})
    layout = fig.layout
    assert layout.title.text == f"The row of {SAFE}, stage by stage"
    assert layout.xaxis.title.text == layout.yaxis2.title.text == layout.legend.title.text == SAFE
    assert layout.coloraxis.colorbar.title.text == layout.annotations[0].text == SAFE
    assert list(layout.yaxis2.ticktext) == [SAFE]
    assert [t.name for t in fig.data] == [SAFE, None] and list(fig.data[0].x) == [SAFE]  # data as the figure gave it
    assert fig.data[1].colorbar.title.text == SAFE and list(fig.data[1].colorbar.ticktext) == [SAFE]


def test_the_app_s_figures_escape_titles_and_labels_once():
    """Figures that escaped their own titles before figure() did would show &amp;lt; now: each is escaped once."""
    figs = [mask_figure(np.eye(2, dtype=bool), [S, "1·a"], [S, "1·a"], f"mask of {S}", "<ok>", "<no>"),
            matrix(np.eye(2), [S, "1·a"], [S, "1·a"], f"title {S}", x_title=S, y_title=S),
            norm_lines(np.ones((2, 2)), ["<in>", "out"], [S, "1·a"], f"norms {S}"),
            query_row([np.ones(2), np.ones(2)], [f"scores {S}", "weights"], [S, "1·a"], f"The row of {S}"),
            top_k_bars([S, "a"], [0.6, 0.4], 0, f"next after {S}", reference=[0.5, 0.5], names=(S, "model")),
            head_grid(np.ones((2, 2, 2)), [S, "h1"], f"bias {S}")]
    for fig in figs:
        spec = fig.to_plotly_json()
        text = repr(spec["layout"]) + repr([(t.get("name"), t.get("x"), t.get("y")) for t in spec["data"]])
        assert "&amp;lt;" not in text and "<s>" not in text, text
        assert SAFE in text
    assert figs[0].layout.title.text == f"mask of {SAFE}"
    assert list(figs[0].layout.coloraxis.colorbar.ticktext) == ["&lt;no&gt;", "&lt;ok&gt;"]
    assert [t.name for t in figs[2].data] == [SAFE, "1·a"] and "%{fullData.name}" in figs[2].data[0].hovertemplate
    assert [a.text for a in figs[3].layout.annotations] == [f"scores {SAFE}", "weights"]
    assert "%{fullData.name}" in figs[3].data[0].hovertemplate and "<s>" not in figs[3].data[0].hovertemplate
