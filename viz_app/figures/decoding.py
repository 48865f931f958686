"""Decoding figures: next-token bars, attention rows, the all-steps alignment, the beam tree."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..text import safe_labels
from .heatmap import matrix

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
    fig = go.Figure()
    if reference is not None:
        fig.add_bar(x=np.asarray(reference, dtype=np.float32), y=y, orientation="h", name=names[1],
                    marker_color=REFERENCE, hovertemplate="%{y}: %{x:.4f}<extra>%{fullData.name}</extra>")
    fig.add_bar(x=probs, y=y, orientation="h", name=names[0], marker_color=colors,
                hovertemplate="%{y}: %{x:.4f}<extra></extra>")
    fig.update_layout(title=title, barmode="group", showlegend=reference is not None,
                      margin=dict(l=10, r=10, t=40 if title else 10, b=10), xaxis_title=x_title,
                      legend=dict(orientation="h", y=-0.2))
    fig.update_xaxes(range=[0, 1])
    fig.update_yaxes(type="category", autorange="reversed")
    return fig


def weight_bars(labels, values, title: str = "", x_title: str = "", y_title: str = "") -> go.Figure:
    """Vertical bars of attention weights over tokens, on the shared 0..1 scale."""
    x = safe_labels(labels)
    fig = go.Figure(go.Bar(x=x, y=np.asarray(values, dtype=np.float32), marker_color=OTHER,
                           hovertemplate="%{x}: %{y:.4f}<extra></extra>"))
    fig.update_layout(title=title, margin=dict(l=10, r=10, t=40 if title else 10, b=10),
                      xaxis_title=x_title, yaxis_title=y_title)
    fig.update_xaxes(type="category", tickangle=-45 if len(x) > 8 else 0)
    fig.update_yaxes(range=[0, 1])
    return fig


def alignment(values, x_labels, y_labels, current: int, title: str = "", x_title: str = "",
              y_title: str = "") -> go.Figure:
    """Attention of every step stacked (steps × keys, 0..1), with the current step's row outlined."""
    fig = matrix(values, x_labels, y_labels, title=title, zrange=(0, 1), x_title=x_title, y_title=y_title)
    width = np.asarray(values).shape[1]
    fig.add_shape(type="rect", x0=-0.5, x1=width - 0.5, y0=current - 0.5, y1=current + 0.5,
                  line=dict(color=CHOSEN, width=3))
    return fig


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

    def edges(keep):
        xs, ys = [], []
        for (s, r), good in zip(nodes, on_best):
            if keep(good):
                xs += [s - 1, s, None]
                ys += [parents[s][r] if s else 0, r, None]
        return xs, ys

    fig = go.Figure()
    for keep, color, width in ((lambda good: not good, EDGE, 1), (lambda good: good, CHOSEN, 3)):
        xs, ys = edges(keep)
        fig.add_scatter(x=xs, y=ys, mode="lines", line=dict(color=color, width=width), hoverinfo="skip",
                        showlegend=False)
    fig.add_scatter(x=[-1], y=[0], mode="markers+text", text=safe_labels([root]), textposition="top center",
                    marker=dict(color=CHOSEN, size=12), hoverinfo="skip", showlegend=False)
    hover = [f"{safe_labels([labels[s][r]])[0]}<br>{words[0]} {scores[s][r]:.3f}<br>{words[1]} "
             f"{normalized[s][r]:.3f}" + (f"<br>{words[2]}" if finished[s][r] else "") for s, r in nodes]
    fig.add_scatter(x=[s for s, _ in nodes], y=[r for _, r in nodes], mode="markers+text",
                    text=safe_labels(labels[s][r] for s, r in nodes), textposition="top center",
                    hovertext=hover, hoverinfo="text", showlegend=False,
                    marker=dict(size=12, color=[CHOSEN if good else OTHER for good in on_best],
                                symbol=["diamond" if finished[s][r] else "circle" for s, r in nodes]))
    fig.update_layout(title=title, margin=dict(l=10, r=10, t=40 if title else 10, b=10),
                      xaxis_title=x_title, yaxis_title=y_title)
    fig.update_xaxes(dtick=1)
    fig.update_yaxes(dtick=1, autorange="reversed")
    return fig
