"""Token embeddings: the √d_model scaling as norm bars, a 2-D projection with vocabulary neighbours."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..text import safe_labels
from .base import figure, legend_below, margin

SERIES_COLOURS = ("#4477aa", "#ee6677", "#228833")  # Paul Tol's bright scheme: colour-blind safe
NEIGHBOUR_COLOUR = "rgba(120, 120, 120, 0.35)"  # faint, so the sentence's own tokens stand out


def norm_bars(labels, series: dict, title: str = "", x_title: str = "", y_title: str = "") -> go.Figure:
    """Grouped bars: one group per token, one bar per named series of values (e.g. norms before/after)."""
    x = safe_labels(labels)
    bars = [{"type": "bar", "x": x, "y": np.asarray(values, dtype=np.float32), "name": str(name),
             "marker": {"color": colour}, "hovertemplate": "%{x}<br>%{y:.4f}<extra>%{fullData.name}</extra>"}
            for (name, values), colour in zip(series.items(), SERIES_COLOURS * 3)]
    layout = {"barmode": "group", "title": {"text": title}, "margin": margin(40 if title else 10),
              "legend": legend_below(), "yaxis": {"title": {"text": y_title}},
              "xaxis": {"title": {"text": x_title}, "type": "category", "tickangle": -45 if len(x) > 8 else 0,
                        "automargin": True}}
    return figure(bars, layout)


def projection(points, labels, faint_points=None, faint_labels=(), names=("", ""), title: str = "",
               x_title: str = "", y_title: str = "", labelled=None) -> go.Figure:
    """A 2-D scatter of labelled points, with optional faint, unlabelled points (hover names them).

    `labelled` (bool per point, default all): the points whose label is written beside them, so that labels of
    close points do not pile up (views.tokens.spread_labels); hover names every point."""
    traces = []
    if faint_points is not None and len(faint_points):
        fp = np.asarray(faint_points, dtype=np.float32)  # [m, 2]
        traces.append({"type": "scatter", "x": fp[:, 0], "y": fp[:, 1], "mode": "markers", "name": names[1],
                       "text": safe_labels(faint_labels), "marker": {"color": NEIGHBOUR_COLOUR, "size": 7},
                       "hovertemplate": "%{text}<extra></extra>"})
    p = np.asarray(points, dtype=np.float32)  # [n, 2]
    names_all = safe_labels(labels)
    keep = np.ones(len(names_all), bool) if labelled is None else np.asarray(labelled, bool)
    traces.append({"type": "scatter", "x": p[:, 0], "y": p[:, 1], "mode": "markers+text", "name": names[0],
                   "text": [name if k else "" for name, k in zip(names_all, keep)], "textposition": "top center",
                   "hovertext": names_all, "marker": {"color": SERIES_COLOURS[0], "size": 10},
                   "hovertemplate": "%{hovertext}<br>(%{x:.3f}, %{y:.3f})<extra></extra>"})
    layout = {"title": {"text": title}, "xaxis": {"title": {"text": x_title}, "automargin": True},
              "margin": margin(40 if title else 10),
              "yaxis": {"title": {"text": y_title}, "scaleanchor": "x", "scaleratio": 1},  # equal units on screen
              "legend": legend_below()}
    return figure(traces, layout)
