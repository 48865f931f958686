"""Matrices as heatmaps: exact values on hover, -inf cells empty and labelled, CSV of the numbers."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..text import safe_labels
from .base import colorscale, figure, margin

ATTENTION_SCALE = "Cividis"  # colour-blind-safe, monotone in lightness
DIVERGING_SCALE = "RdBu_r"  # for signed values (embeddings, scores): 0 is white


MAX_CELLS = 120_000  # cells one heatmap sends at most (~0.65 MB of base64); a longer text's rows are averaged
# An axis of this many tokens or fewer labels every one: left to itself plotly spaces a category axis's ticks by
# its length and font, and on a projector it labelled every other token.
EVERY_LABEL = 20


def spans(labels, block: int) -> list[str]:
    """Labels of pooled rows: the first and last label each one covers."""
    labels = list(labels)
    ends = [(i, min(i + block, len(labels)) - 1) for i in range(0, len(labels), block)]
    return [str(labels[a]) if a == b else f"{labels[a]} … {labels[b]}" for a, b in ends]


def pool_rows(z: np.ndarray, labels, cells: int = MAX_CELLS):
    """(z, labels) with each block of rows replaced by its mean (labelled by the span it covers) so that z has at
    most `cells` cells: a 2,048-token text's [tokens, features] matrix stays light enough to send and read. A
    block with a -inf cell (a blocked score) keeps -inf there."""
    block = max(1, -(-z.size // cells)) if z.shape[0] > 1 else 1
    if block == 1:
        return z, labels
    rows = -(-z.shape[0] // block)
    pooled = np.stack([z[i * block:(i + 1) * block].mean(0) for i in range(rows)]).astype(np.float32)
    return pooled, spans(labels if labels is not None else range(z.shape[0]), block)


def value_range(z: np.ndarray):
    """0..max for values ≥ 0, else symmetric about 0 (so 0 is the diverging scale's white); None if none finite."""
    finite = z[np.isfinite(z)]
    if not finite.size:
        return None
    bound = float(np.abs(finite).max()) or 1.0
    return (0.0, bound) if finite.min() >= 0 else (-bound, bound)


def heat(z, x, y, hover: str, blocked=None) -> dict:
    """One heatmap trace on the shared colour axis; `blocked` cells (-inf) say so on hover."""
    trace = {"type": "heatmap", "z": z, "x": x, "y": y, "coloraxis": "coloraxis"}
    if blocked is not None and blocked.any():  # a per-cell note only where needed: it would double the bytes
        trace.update(customdata=np.where(blocked, "−∞", "").astype(object), hovertemplate=hover + "%{customdata}<extra></extra>")
    else:
        trace["hovertemplate"] = hover + "<extra></extra>"
    return trace


def matrix(*args, **kwargs) -> go.Figure:
    """A heatmap of a 2-D array, row 0 on top; -inf cells are left empty and say so on hover (see parts)."""
    trace, layout = parts(*args, **kwargs)
    return figure([trace], layout)


def parts(values, x_labels=None, y_labels=None, title: str = "", zrange=None, scale=None,
          x_title: str = "", y_title: str = "", hover_fmt: str = ".4f") -> tuple[dict, dict]:
    """matrix()'s heatmap trace and layout, as dicts for a figure that adds to them (rows averaged: pool_rows)."""
    z, y_labels = pool_rows(np.asarray(values, dtype=np.float32), y_labels)
    blocked = np.isneginf(z)
    shown = np.where(blocked, np.nan, z).astype(np.float32)
    zrange = value_range(shown) if zrange is None else zrange
    if scale is None:
        scale = ATTENTION_SCALE if zrange is not None and zrange[0] >= 0 else DIVERGING_SCALE
    x = safe_labels(x_labels) if x_labels is not None else list(range(z.shape[1]))
    y = safe_labels(y_labels) if y_labels is not None else list(range(z.shape[0]))
    colours = {"colorscale": colorscale(scale)}
    if zrange is not None:
        colours.update(cmin=zrange[0], cmax=zrange[1])
    trace = heat(shown, x, y, f"%{{y}} → %{{x}}<br>%{{z:{hover_fmt}}}", blocked)
    layout = {"coloraxis": colours, "margin": margin(40 if title else 10), "title": {"text": title},
              "xaxis": {"title": {"text": x_title}, "side": "bottom", **turned(len(x))},
              "yaxis": {"title": {"text": y_title}, "autorange": "reversed"}}
    if x_labels is not None:
        layout["xaxis"].update(type="category", **every_label(len(x)))
    if y_labels is not None:
        layout["yaxis"].update(type="category", **every_label(len(y)))
    return trace, layout


def turned(n: int) -> dict:
    """An x axis's label angle for n columns: level for a few; else level where they fit side by side, or upright
    (-90°) where plotly finds they would not: at -45° a narrow chart's labels of every token touched each other."""
    return {"autotickangles": [0, -90]} if n > 8 else {"tickangle": 0}  # no tickangle: plotly.js's "auto"


def every_label(n: int) -> dict:
    """A category axis's tick settings: a tick and label on each of its n categories when n ≤ EVERY_LABEL."""
    return {"tickmode": "linear", "tick0": 0, "dtick": 1} if n <= EVERY_LABEL else {}
