"""A legend never covers a chart's title: every figure that shows one puts it at the figure's foot, or in a column
to the right of the plot (plotly's default), never in the top margin where the title is."""
import numpy as np

from viz_app.figures.decoding import top_k_bars
from viz_app.figures.embeddings import norm_bars, projection
from viz_app.figures.layers import norm_histograms, norm_lines
from viz_app.figures.positional import curves
from viz_app.figures.steps import saturation
from viz_app.figures.training import distributions, lines


def figures_with_a_legend():
    two = np.array([0.4, 0.6])
    return {
        "top_k_bars": top_k_bars(["a", "b"], two, 0, "t", reference=two, names=("p", "q")),
        "norm_bars": norm_bars(["a", "b"], {"before": two, "after": two}, "t"),
        "projection": projection(np.eye(2), ["a", "b"], np.ones((1, 2)), ["n"], ("tokens", "neighbours"), "t"),
        "saturation": saturation(two, two, ["a", "b"], ("with", "without"), "t"),
        "lines": lines([[1, 2], [1, 2]], [[1, 2], [2, 1]], ["train", "valid"], "t", "step", "loss"),
        "distributions": distributions(["a", "b"], two, two, ("p", "q"), "t", "token"),
        "curves": curves(np.ones((3, 2)), [0, 1], ["d0", "d1"], "t"),
        "norm_lines": norm_lines(np.ones((2, 2)), ["in", "out"], ["a", "b"], "t"),
        "norm_histograms": norm_histograms(two, two, ("before", "after"), "t"),
    }


def test_no_legend_sits_in_the_title_s_margin():
    for name, fig in figures_with_a_legend().items():
        legend = fig.layout.legend
        if legend.orientation == "h":  # a row under everything, measured on the whole figure
            assert (legend.yref, legend.y, legend.yanchor) == ("container", 0, "bottom"), name
            assert fig.layout.xaxis.automargin, name  # the ticks and axis title make room above it
        else:  # plotly's default: a column right of the plot, starting at its top, below the title
            assert legend.y is None and legend.x is None, name
