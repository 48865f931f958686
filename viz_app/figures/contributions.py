"""The contribution graph (pure plotly): tokens across, levels up, an edge's width its share; each attention edge has
a point at its middle that names its head and, clicked, picks it (customdata: layer, head)."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .base import figure, margin

KIND_COLOURS = {"residual": "#9e9e9e", "ffn": "#2ca02c"}
HEAD_COLOURS = ("#1f77b4", "#ff7f0e", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")


def graph(edges, labels, n_levels: int, level_names, title: str, names: dict) -> go.Figure:
    """`edges` views.contributions.Edge; `labels` the tokens; `names` {"residual", "ffn", "head"} the legend's words."""
    traces = []
    for kind, head in sorted({(e.kind, e.head) for e in edges}):
        group = [e for e in edges if (e.kind, e.head) == (kind, head)]
        colour = KIND_COLOURS.get(kind) or HEAD_COLOURS[head % len(HEAD_COLOURS)]
        shift = 0.12 if kind == "ffn" else 0.0  # the FFN's edge beside the residual one it shares its ends with
        for e in group:
            traces.append({"type": "scatter", "mode": "lines", "x": [e.start[1] + shift, e.end[1] + shift],
                           "y": [e.start[0], e.end[0]], "line": {"color": colour, "width": 1 + 8 * e.share},
                           "opacity": 0.35 + 0.65 * e.share, "hoverinfo": "skip", "showlegend": False,
                           "legendgroup": f"{kind}{head}"})
        name = names["head"].format(head=head) if kind == "attention" else names[kind]
        mid_x = [(e.start[1] + e.end[1]) / 2 + shift for e in group]
        mid_y = [(e.start[0] + e.end[0]) / 2 for e in group]
        traces.append({"type": "scatter", "mode": "markers", "x": mid_x, "y": mid_y, "name": name,
                       "legendgroup": f"{kind}{head}", "marker": {"color": colour, "size": 7},
                       "customdata": [[e.layer, max(e.head, 0)] for e in group],
                       "text": [f"{name} · {e.share:.3f}" for e in group], "hoverinfo": "text"})
    traces.append({"type": "scatter", "mode": "markers", "x": np.repeat(np.arange(len(labels)), n_levels).tolist(),
                   "y": np.tile(np.arange(n_levels), len(labels)).tolist(), "marker": {"color": "#444", "size": 4},
                   "hoverinfo": "skip", "showlegend": False})
    layout = {"title": {"text": title}, "height": 160 + 40 * n_levels, "margin": margin(40),
              "xaxis": {"tickmode": "array", "tickvals": list(range(len(labels))), "ticktext": list(labels),
                        "range": [-0.6, len(labels) - 0.4]},
              "yaxis": {"tickmode": "array", "tickvals": list(range(n_levels)), "ticktext": list(level_names)},
              "clickmode": "event+select", "legend": {"orientation": "h", "y": -0.25}}
    return figure(traces, layout)
