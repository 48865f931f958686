"""Positional encodings: curves per dimension, position-to-position similarity, per-head bias grids."""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..text import safe_labels
from .heatmap import DIVERGING_SCALE

LINE_COLOURS = ("#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb", "#000000")  # Tol
CYCLIC_SCALE = "Twilight"  # angles wrap around: 0 and 2π get the same colour


def curves(table, dims, names, title: str = "", x_title: str = "", y_title: str = "") -> go.Figure:
    """One line per chosen column of a [positions, dims] table over the positions, named by `names`."""
    values = np.asarray(table, dtype=np.float32)  # [pos, d]
    positions = np.arange(values.shape[0])
    fig = go.Figure()
    for i, (dim, name) in enumerate(zip(dims, names)):
        fig.add_scatter(x=positions, y=values[:, dim], mode="lines", name=str(name),
                        line=dict(color=LINE_COLOURS[i % len(LINE_COLOURS)], width=2),
                        hovertemplate="%{x}: %{y:.4f}<extra>%{fullData.name}</extra>")
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title, hovermode="x unified",
                      margin=dict(l=10, r=10, t=40 if title else 10, b=10))
    return fig


def head_grid(mats, titles, title: str = "", x_title: str = "", y_title: str = "", cols: int = 4) -> go.Figure:
    """Small multiples of [h, q, k] matrices on one shared diverging colour scale, one per head."""
    z = np.asarray(mats, dtype=np.float32)  # [h, q, k]
    n = z.shape[0]
    cols = max(1, min(cols, n))
    rows = math.ceil(n / cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=safe_labels(titles),
                        horizontal_spacing=0.04, vertical_spacing=0.12 if rows > 1 else 0.08)
    bound = float(np.abs(z).max()) or 1.0
    for h in range(n):
        fig.add_trace(go.Heatmap(z=z[h], zmin=-bound, zmax=bound, colorscale=DIVERGING_SCALE,
                                 showscale=h == 0, name=str(titles[h]),
                                 hovertemplate="%{y} → %{x}<br>%{z:.4f}<extra>%{fullData.name}</extra>"),
                      row=h // cols + 1, col=h % cols + 1)
    fig.update_yaxes(autorange="reversed")  # row 0 on top, as in every other matrix of the app
    fig.update_layout(title=title, height=260 * rows + 60, margin=dict(l=10, r=10, t=70, b=10))
    fig.update_xaxes(title_text=x_title, row=rows)
    fig.update_yaxes(title_text=y_title, col=1)
    return fig
