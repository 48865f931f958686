"""Queries and keys of one head in one 2-D space: two clouds of points, told apart by colour."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..text import plain
from .base import figure, legend_below, margin
from .embeddings import SERIES_COLOURS

QUERY_COLOUR, KEY_COLOUR = SERIES_COLOURS[0], SERIES_COLOURS[1]  # Paul Tol's blue and red: colour-blind safe


def hover_texts(tokens, sentences) -> list[str]:
    """Each point's hover: its token in bold over its sentence, both escaped (hover text is plotly's markup)."""
    return [f"<b>{plain(token)}</b><br>{plain(sentence)}" for token, sentence in zip(tokens, sentences)]


def qk_scatter(queries, keys, q_hover: tuple[list, list], k_hover: tuple[list, list], names: tuple[str, str],
               title: str = "", x_title: str = "", y_title: str = "") -> go.Figure:
    """Query points [n_q, 2] and key points [n_k, 2] on shared, equally scaled axes; `q_hover` and `k_hover` are
    (tokens, sentences) of each point, `names` the two clouds' legend names (queries first)."""
    traces = []
    for points, (tokens, sentences), name, colour in ((queries, q_hover, names[0], QUERY_COLOUR),
                                                      (keys, k_hover, names[1], KEY_COLOUR)):
        p = np.asarray(points, dtype=np.float32).reshape(-1, 2)  # [n, 2]
        traces.append({"type": "scatter", "x": p[:, 0], "y": p[:, 1], "mode": "markers", "name": name,
                       "hovertext": hover_texts(tokens, sentences),
                       "marker": {"color": colour, "size": 6, "opacity": 0.6},
                       "hovertemplate": "%{hovertext}<br>(%{x:.3f}, %{y:.3f})<extra>%{fullData.name}</extra>"})
    layout = {"title": {"text": title}, "margin": margin(40 if title else 10), "legend": legend_below(),
              "hovermode": "closest", "xaxis": {"title": {"text": x_title}, "automargin": True},
              "yaxis": {"title": {"text": y_title}, "scaleanchor": "x", "scaleratio": 1}}  # equal units on screen
    return figure(traces, layout)
