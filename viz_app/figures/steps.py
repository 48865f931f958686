"""Figures for attention computed step by step: a stage's matrix with the query row outlined, one
query's numbers through the stages, scaled against unscaled weights, and matrices with their numbers."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .heatmap import matrix, safe_labels

HIGHLIGHT = "#e8590c"  # orange: stands out on both the cividis and the red-blue scales


def _outline(fig: go.Figure, x0: float, x1: float, y0: float, y1: float, dash: str = "solid") -> None:
    fig.add_shape(type="rect", xref="x", yref="y", x0=x0, x1=x1, y0=y0, y1=y1,
                  line=dict(color=HIGHLIGHT, width=3, dash=dash), fillcolor="rgba(0,0,0,0)")


def stage(values, x_labels=None, y_labels=None, title: str = "", zrange=None, x_title: str = "",
          y_title: str = "", row: int | None = None, columns: tuple[int, int] | None = None,
          hover_fmt: str = ".4f") -> go.Figure:
    """One stage's matrix; `row` (the chosen query) and `columns` (a head's block) are outlined."""
    z = np.asarray(values)
    fig = matrix(z, x_labels, y_labels, title, zrange, x_title=x_title, y_title=y_title, hover_fmt=hover_fmt)
    if row is not None:
        _outline(fig, -0.5, z.shape[1] - 0.5, row - 0.5, row + 0.5)
    if columns is not None:
        _outline(fig, columns[0] - 0.5, columns[1] - 0.5, -0.5, z.shape[0] - 0.5, dash="dot")
    return fig


def query_row(rows, names, key_labels, title: str = "", x_title: str = "") -> go.Figure:
    """One query's row at each stage (e.g. scores, scaled, weights) as bars over the keys, one panel each.

    -inf (a blocked key) has no bar; its hover says so.
    """
    fig = make_subplots(rows=len(rows), cols=1, shared_xaxes=True, subplot_titles=list(names),
                        vertical_spacing=0.12)
    x = safe_labels(key_labels)
    for i, (values, name) in enumerate(zip(rows, names), start=1):
        v = np.asarray(values, dtype=np.float64)
        blocked = np.isneginf(v)
        note = np.where(blocked, "−∞", "").astype(object)
        fig.add_trace(go.Bar(x=x, y=np.where(blocked, np.nan, v), name=name, customdata=note, showlegend=False,
                             text=["−∞" if b else f"{n:.2f}" for n, b in zip(v, blocked)],
                             textposition="outside", cliponaxis=False,
                             hovertemplate="%{x}<br>%{y:.4f}%{customdata}<extra>" + name + "</extra>"),
                      row=i, col=1)
    fig.update_xaxes(type="category")
    fig.update_xaxes(title_text=x_title, row=len(rows), col=1)
    fig.update_layout(title=title, height=160 * len(rows) + 80, margin=dict(l=10, r=10, t=60, b=10))
    return fig


def saturation(with_scaling, without_scaling, key_labels, names, title: str = "", x_title: str = "",
               y_title: str = "") -> go.Figure:
    """Two rows of attention weights over the same keys, side by side: with and without ÷√d_k."""
    x = safe_labels(key_labels)
    fig = go.Figure([go.Bar(x=x, y=np.asarray(values, dtype=np.float64), name=name,
                            hovertemplate="%{x}<br>%{y:.4f}<extra>" + name + "</extra>")
                     for values, name in zip((with_scaling, without_scaling), names)])
    fig.update_layout(title=title, barmode="group", yaxis_range=[0, 1], xaxis_title=x_title, yaxis_title=y_title,
                      margin=dict(l=10, r=10, t=40 if title else 10, b=10), legend=dict(orientation="h", y=-0.25))
    fig.update_xaxes(type="category")
    return fig


def cell_text(values, digits: int = 2) -> np.ndarray:
    """Each cell's number as text, '−∞' for a blocked cell (plotly would print nothing or 'NaN')."""
    z = np.asarray(values, dtype=np.float64)
    text = np.array([[f"{v:.{digits}f}" for v in row] for row in z], dtype=object)
    text[np.isneginf(z)] = "−∞"
    return text


def numbers(values, x_labels=None, y_labels=None, title: str = "", zrange=None, x_title: str = "",
            y_title: str = "", digits: int = 2) -> go.Figure:
    """A small matrix with every number printed in its cell (the worked example)."""
    z = np.asarray(values)
    fig = matrix(z, x_labels, y_labels, title, zrange, x_title=x_title, y_title=y_title)
    fig.update_traces(text=cell_text(z, digits), texttemplate="%{text}", textfont=dict(size=15))
    fig.update_layout(height=90 + 60 * z.shape[0], coloraxis_showscale=False)
    return fig
