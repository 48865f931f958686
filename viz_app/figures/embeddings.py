"""Token embeddings: the √d_model scaling as norms, a 2-D projection with vocabulary neighbours."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .heatmap import safe_labels

SERIES_COLOURS = ("#4477aa", "#ee6677", "#228833")  # Paul Tol's bright scheme: colour-blind safe
NEIGHBOUR_COLOUR = "rgba(120, 120, 120, 0.35)"  # faint, so the sentence's own tokens stand out


def row_norms(values) -> np.ndarray:
    """The L2 norm of each row of a 2-D array: [rows]."""
    return np.linalg.norm(np.asarray(values, dtype=np.float64), axis=-1).astype(np.float32)


def nearest(matrix, ids, k: int, exclude=()) -> tuple[np.ndarray, np.ndarray]:
    """For each id, the k other rows of `matrix` closest by cosine: (ids [n, k], cosine [n, k])."""
    m = np.asarray(matrix, dtype=np.float64)  # [vocab, d]
    unit = m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
    ids = np.asarray(ids, dtype=np.int64)
    cos = unit[ids] @ unit.T  # [n, vocab]
    cos[:, list(exclude)] = -np.inf
    cos[np.arange(len(ids)), ids] = -np.inf  # a token is not its own neighbour
    k = max(0, min(k, int(np.isfinite(cos).sum(axis=1).min(initial=m.shape[0]))))  # never an excluded row
    order = np.argsort(-cos, axis=1, kind="stable")[:, :k]  # [n, k]
    return order, np.take_along_axis(cos, order, axis=1).astype(np.float32)


def pca_2d(fit_rows, *others) -> tuple[list[np.ndarray], np.ndarray]:
    """Project rows on the top two principal axes of `fit_rows` (numpy SVD).

    Returns ([fit_rows projected, each of `others` projected], share of variance per axis [2]).
    Each axis's sign is fixed (its largest loading positive) so the picture does not flip between runs.
    """
    fit = np.asarray(fit_rows, dtype=np.float64)  # [n, d]
    mean = fit.mean(axis=0)
    _, s, vt = np.linalg.svd(fit - mean, full_matrices=True)  # full: two axes even for a single row
    axes = vt[:2]  # [2, d]
    axes *= np.sign(axes[np.arange(2), np.abs(axes).argmax(axis=1)])[:, None]
    total = float((s ** 2).sum())
    share = np.zeros(2, dtype=np.float32)
    share[: min(2, len(s))] = (s[:2] ** 2) / total if total > 0 else 0.0

    def project(rows):
        rows = np.asarray(rows, dtype=np.float64).reshape(-1, fit.shape[1])  # [m, d]
        return ((rows - mean) @ axes.T).astype(np.float32)  # [m, 2]

    return [project(fit)] + [project(o) for o in others], share


def norm_bars(labels, series: dict, title: str = "", x_title: str = "", y_title: str = "") -> go.Figure:
    """Grouped bars: one group per token, one bar per named series of values (e.g. norms before/after)."""
    x = safe_labels(labels)
    fig = go.Figure()
    for (name, values), colour in zip(series.items(), SERIES_COLOURS * 3):
        fig.add_bar(x=x, y=np.asarray(values, dtype=np.float32), name=str(name), marker_color=colour,
                    hovertemplate="%{x}<br>%{y:.4f}<extra>%{fullData.name}</extra>")
    fig.update_layout(barmode="group", title=title, xaxis_title=x_title, yaxis_title=y_title,
                      margin=dict(l=10, r=10, t=40 if title else 10, b=10), legend=dict(orientation="h", y=1.1))
    fig.update_xaxes(type="category", tickangle=-45 if len(x) > 8 else 0)
    return fig


def projection(points, labels, faint_points=None, faint_labels=(), names=("", ""), title: str = "",
               x_title: str = "", y_title: str = "") -> go.Figure:
    """A 2-D scatter of labelled points, with optional faint, unlabelled points (hover names them)."""
    fig = go.Figure()
    if faint_points is not None and len(faint_points):
        fp = np.asarray(faint_points, dtype=np.float32)  # [m, 2]
        fig.add_scatter(x=fp[:, 0], y=fp[:, 1], mode="markers", name=names[1], text=safe_labels(faint_labels),
                        marker=dict(color=NEIGHBOUR_COLOUR, size=7), hovertemplate="%{text}<extra></extra>")
    p = np.asarray(points, dtype=np.float32)  # [n, 2]
    fig.add_scatter(x=p[:, 0], y=p[:, 1], mode="markers+text", name=names[0], text=safe_labels(labels),
                    textposition="top center", marker=dict(color=SERIES_COLOURS[0], size=10),
                    hovertemplate="%{text}<br>(%{x:.3f}, %{y:.3f})<extra></extra>")
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title,
                      margin=dict(l=10, r=10, t=40 if title else 10, b=10), legend=dict(orientation="h", y=1.1))
    fig.update_yaxes(scaleanchor="x", scaleratio=1)  # equal units: distances on screen mean something
    return fig
