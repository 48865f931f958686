"""Decoding figures: next-token bars, attention rows, the all-steps alignment, the beam tree."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..text import safe_labels
from .base import figure, legend_below, margin
from .heatmap import parts

CHOSEN = "#E69F00"  # Okabe-Ito orange: the chosen token, the best beam path
OTHER = "#0072B2"  # Okabe-Ito blue: every other candidate
REFERENCE = "#BBBBBB"  # the model's own softmax behind the sampling distribution
EDGE = "#999999"


def top_k_bars(labels, probs, chosen: int, title: str = "", x_title: str = "", reference=None,
               names: tuple[str, str] = ("", "")) -> go.Figure:
    """Horizontal bars of next-token probabilities, most likely on top; bar `chosen` in orange (-1: none).

    With `reference`, the model's own probabilities of the same tokens are drawn behind, grey,
    so the effect of temperature, top-k and top-p is visible; `names` label the two series.
    """
    y = safe_labels(labels)
    probs = np.asarray(probs, dtype=np.float32)
    colors = [CHOSEN if i == chosen else OTHER for i in range(len(y))]
    bars = []
    if reference is not None:
        bars.append({"type": "bar", "x": np.asarray(reference, dtype=np.float32), "y": y, "orientation": "h",
                     "name": names[1], "marker": {"color": REFERENCE},
                     "hovertemplate": "%{y}: %{x:.4f}<extra>%{fullData.name}</extra>"})
    bars.append({"type": "bar", "x": probs, "y": y, "orientation": "h", "name": names[0], "marker": {"color": colors},
                 "hovertemplate": "%{y}: %{x:.4f}<extra></extra>"})
    layout = {"title": {"text": title}, "barmode": "group", "showlegend": reference is not None,
              "margin": margin(40 if title else 10), "legend": legend_below(),
              "xaxis": {"title": {"text": x_title}, "range": [0, 1], "automargin": True},
              "yaxis": {"type": "category", "autorange": "reversed"}}
    return figure(bars, layout)


def weight_bars(labels, values, title: str = "", x_title: str = "", y_title: str = "") -> go.Figure:
    """Vertical bars of attention weights over tokens, on the shared 0..1 scale."""
    x = safe_labels(labels)
    bar = {"type": "bar", "x": x, "y": np.asarray(values, dtype=np.float32), "marker": {"color": OTHER},
           "hovertemplate": "%{x}: %{y:.4f}<extra></extra>"}
    layout = {"title": {"text": title}, "margin": margin(40 if title else 10),
              "yaxis": {"title": {"text": y_title}, "range": [0, 1]},
              "xaxis": {"title": {"text": x_title}, "type": "category", "tickangle": -45 if len(x) > 8 else 0}}
    return figure([bar], layout)


def alignment(values, x_labels, y_labels, current: int, title: str = "", x_title: str = "",
              y_title: str = "") -> go.Figure:
    """Attention of every step stacked (steps × keys, 0..1), with the current step's row outlined."""
    trace, layout = parts(values, x_labels, y_labels, title=title, zrange=(0, 1), x_title=x_title, y_title=y_title)
    width = np.asarray(values).shape[1]
    layout["shapes"] = [{"type": "rect", "x0": -0.5, "x1": width - 0.5, "y0": current - 0.5, "y1": current + 0.5,
                         "line": {"color": CHOSEN, "width": 3}}]
    return figure([trace], layout)


def _edges(nodes, on_best, parents, best: bool) -> dict:
    """The lines from each node (on the best path or not, as `best`) to its parent, one None-separated trace."""
    xs, ys = [], []
    for (s, r), good in zip(nodes, on_best):
        if bool(good) == best:
            xs += [s - 1, s, None]
            ys += [parents[s][r] if s else 0, r, None]
    color, width = (CHOSEN, 3) if best else (EDGE, 1)
    return {"type": "scatter", "x": xs, "y": ys, "mode": "lines", "line": {"color": color, "width": width},
            "hoverinfo": "skip", "showlegend": False}


def beam_tree(labels, scores, normalized, parents, finished, best=None, root: str = "",
              title: str = "", x_title: str = "", y_title: str = "",
              words: tuple[str, str, str] = ("score", "normalized", "finished")) -> go.Figure:
    """The beam-search tree: x = step, y = the beam's rank at that step; edges to the parent.

    Every argument but `best` is nested per step, then per beam (parents index the previous
    step's beams, -1 the root). `best` gives the rank of the best path's node at each step
    (orange); finished hypotheses are diamonds. `words` label the hover's fields.
    """
    best = list(best or [])
    nodes = [(s, r) for s in range(len(labels)) for r in range(len(labels[s]))]
    on_best = [s < len(best) and best[s] == r for s, r in nodes]
    root_node = {"type": "scatter", "x": [-1], "y": [0], "mode": "markers+text", "text": safe_labels([root]),
                 "textposition": "top center", "marker": {"color": CHOSEN, "size": 12}, "hoverinfo": "skip",
                 "showlegend": False}
    hover = [f"{safe_labels([labels[s][r]])[0]}<br>{words[0]} {scores[s][r]:.3f}<br>{words[1]} "
             f"{normalized[s][r]:.3f}" + (f"<br>{words[2]}" if finished[s][r] else "") for s, r in nodes]
    points = {"type": "scatter", "x": [s for s, _ in nodes], "y": [r for _, r in nodes], "mode": "markers+text",
              "text": safe_labels(labels[s][r] for s, r in nodes), "textposition": "top center",
              "hovertext": hover, "hoverinfo": "text", "showlegend": False,
              "marker": {"size": 12, "color": [CHOSEN if good else OTHER for good in on_best],
                         "symbol": ["diamond" if finished[s][r] else "circle" for s, r in nodes]}}
    layout = {"title": {"text": title}, "margin": margin(40 if title else 10),
              "xaxis": {"title": {"text": x_title}, "dtick": 1},
              "yaxis": {"title": {"text": y_title}, "dtick": 1, "autorange": "reversed"}}
    edges = [_edges(nodes, on_best, parents, best) for best in (False, True)]  # grey, then the best path's
    return figure(edges + [root_node, points], layout)
