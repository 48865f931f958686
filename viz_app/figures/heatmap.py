"""Matrices as heatmaps: exact values on hover, -inf cells empty and labelled, CSV of the numbers."""
from __future__ import annotations

import numpy as np
import plotly.express as px
import plotly.graph_objects as go

from ..text import safe_labels

ATTENTION_SCALE = "Cividis"  # colour-blind-safe, monotone in lightness
DIVERGING_SCALE = "RdBu_r"  # for signed values (embeddings, scores): 0 is white


def matrix(values, x_labels=None, y_labels=None, title: str = "", zrange=None, scale=None,
           x_title: str = "", y_title: str = "", hover_fmt: str = ".4f") -> go.Figure:
    """A heatmap of a 2-D array, row 0 on top; -inf cells are left empty and say so on hover."""
    z = np.asarray(values, dtype=np.float32)
    blocked = np.isneginf(z)
    shown = np.where(blocked, np.nan, z).astype(np.float32)
    finite = shown[np.isfinite(shown)]
    if zrange is None and finite.size:
        bound = float(np.abs(finite).max()) or 1.0
        zrange = (0.0, bound) if finite.min() >= 0 else (-bound, bound)
    if scale is None:
        scale = ATTENTION_SCALE if zrange is not None and zrange[0] >= 0 else DIVERGING_SCALE
    x = safe_labels(x_labels) if x_labels is not None else list(range(z.shape[1]))
    y = safe_labels(y_labels) if y_labels is not None else list(range(z.shape[0]))
    fig = px.imshow(shown, x=x, y=y, aspect="auto", color_continuous_scale=scale,
                    zmin=None if zrange is None else zrange[0], zmax=None if zrange is None else zrange[1])
    hover = f"%{{y}} → %{{x}}<br>%{{z:{hover_fmt}}}"
    if blocked.any():  # a per-cell note only where needed: it would double the bytes sent otherwise
        fig.update_traces(customdata=np.where(blocked, "−∞", "").astype(object), hovertemplate=hover + "%{customdata}<extra></extra>")
    else:
        fig.update_traces(hovertemplate=hover + "<extra></extra>")
    fig.update_layout(title=title, margin=dict(l=10, r=10, t=40 if title else 10, b=10),
                      xaxis_title=x_title, yaxis_title=y_title)
    fig.update_xaxes(side="bottom", tickangle=-45 if len(x) > 8 else 0, type="category" if x_labels is not None else None)
    fig.update_yaxes(type="category" if y_labels is not None else None)
    return fig
