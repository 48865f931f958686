"""The Training page's charts: lines over training steps, a smoothed target beside the model's distribution,
and a teacher-forced batch as token grids."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..text import safe_labels
from .base import figure, legend_below, margin
from .heatmap import parts
from .masks import BLOCKED_COLOUR
from .positional import LINE_COLOURS


def lines(xs, ys, names, title: str, x_title: str, y_title: str, log_x: bool = False, marker=None) -> go.Figure:
    """One line per (x, y, name), joined over NaN y values (a validation loss measured every few steps); a
    vertical line at x = `marker` if given."""
    data = [{"type": "scatter", "x": np.asarray(x), "y": np.asarray(y, dtype=np.float64), "mode": "lines", "name": name,
             "connectgaps": True, "line": {"color": LINE_COLOURS[i % len(LINE_COLOURS)], "width": 2},
             "hovertemplate": "%{x}: %{y:.4g}<extra>%{fullData.name}</extra>"}
            for i, (x, y, name) in enumerate(zip(xs, ys, names))]
    layout = {"title": {"text": title}, "xaxis": {"title": {"text": x_title}, "type": "log" if log_x else "linear",
                                                   "automargin": True},
              "yaxis": {"title": {"text": y_title}, "exponentformat": "power"},
              "hovermode": "x unified", "legend": legend_below(), "margin": margin(40, 10, 10)}
    if marker is not None:
        layout["shapes"] = [{"type": "line", "xref": "x", "yref": "paper", "x0": marker, "x1": marker, "y0": 0, "y1": 1,
                             "line": {"color": "#888888", "width": 1, "dash": "dot"}}]
    return figure(data, layout)


def distributions(labels, p, q, names, title: str, x_title: str) -> go.Figure:
    """The model's probabilities beside the smoothed target's, for the tokens `labels` name, on a log axis (the
    smoothed target gives every other token ε / V, thousands of times less than the target)."""
    x = safe_labels(labels)
    data = [{"type": "bar", "x": x, "y": np.asarray(v, dtype=np.float64), "name": name,
             "marker": {"color": colour}, "hovertemplate": "%{x}: %{y:.3g}<extra>%{fullData.name}</extra>"}
            for v, name, colour in ((p, names[0], LINE_COLOURS[0]), (q, names[1], LINE_COLOURS[1]))]
    layout = {"title": {"text": title}, "barmode": "group", "xaxis": {"title": {"text": x_title}, "automargin": True},
              "yaxis": {"type": "log", "exponentformat": "power"}, "legend": legend_below(),
              "margin": margin(40, 10, 10)}
    return figure(data, layout)


ROW_PX = 34  # a token grid's row: one line of cell text
PAD_SCALE = [[0.0, BLOCKED_COLOUR], [1.0, "#ffffff"]]  # padding in the masks' "blocked" grey, real tokens white


def token_grid(values, pieces, title: str, zrange=None, scale=None, x_title: str = "", y_title: str = "",
               show_scale: bool = False) -> go.Figure:
    """A heatmap of a [rows, positions] array with each cell's token written in it (escaped for plotly); its colour
    bar only with show_scale (a mask's two colours are said in the title)."""
    trace, layout = parts(values, None, None, title, zrange=zrange, scale=scale, x_title=x_title, y_title=y_title,
                          hover_fmt=".3f")
    trace.update(text=[safe_labels(row) for row in pieces], texttemplate="%{text}", textfont={"size": 11},
                 hovertemplate="%{y}, %{x}: %{text} · %{z:.3f}<extra></extra>", xgap=1, ygap=1)
    layout["coloraxis"]["showscale"] = show_scale
    rows = len(pieces)
    layout.update(height=110 + ROW_PX * rows)
    layout["yaxis"] = {**layout.get("yaxis", {}), "dtick": 1}
    return figure([trace], layout)
