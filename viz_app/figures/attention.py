"""Attention explorer figures: every head at once, one head enlarged, lines between tokens, head statistics.

Pure numpy + plotly. Weights are [q, k] (one head) or [layers, heads, q, k] (a whole stack); masked
cells are -inf in what a heatmap shows and filtered-out cells NaN, so both are drawn empty, not as 0.
"""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from .base import colorscale, figure, margin
from .heatmap import ATTENTION_SCALE, parts, safe_labels

GRID_CELLS = 100_000  # float32 cells the grid draws at most: ~0.55 MB of base64, whatever the model's size
GRID_SIDE = 256  # a head's tile is at most this many cells a side: a long input is an overview, pooled
LINE_COLOR = "rgb(31, 78, 156)"
MASKED_COLOR = "rgb(200, 200, 200)"  # cells the mask forbids, told apart from filtered (blank) ones
LINE_BUCKETS = 10  # one trace per opacity step, each a None-separated polyline: light however many lines
# From this many heads the grid's head names alternate between two lines, each two tiles wide: one tile of
# MiniLM's twelve is ~60 px on a projector, and "head 9head 10" ran together at 18 px.
STAGGER_FROM = 9
STAGGER = 24  # px: the second line's lift, an 18 px name's height


# Pooling is how the grid keeps to its bytes budget, a drawing decision: it lives with the figure, and the
# grid's CSV (export.grid_csv) pools the same way so that it holds the numbers as drawn.
def grid_block(n_plots: int, n_q: int, n_k: int, cells: int = GRID_CELLS, side: int = GRID_SIDE) -> int:
    """Side of the square block pooled into one grid cell: the grid stays within `cells`, a tile within side²."""
    per_plot = max(cells // max(n_plots, 1), 1)
    return max(1, math.ceil(math.sqrt(n_q * n_k / per_plot)), math.ceil(max(n_q, n_k) / side))


def pool_max(weights, block: int) -> np.ndarray:
    """Each block × block square replaced by its largest weight (a sharp head stays visible when shrunk); the last
    row and column of squares take what is left. Rows first, then columns (ufunc.reduceat: no padded copy)."""
    w = np.asarray(weights, dtype=np.float32)
    n_q, n_k = w.shape[-2:]
    if block == 1 or not n_q or not n_k:
        return w
    rows = np.maximum.reduceat(w, np.arange(0, n_q, block), axis=-2)
    return np.maximum.reduceat(rows, np.arange(0, n_k, block), axis=-1)


def tiled(small: np.ndarray, gap: int) -> np.ndarray:
    """[layers, heads, q, k] → one [layers·(q+gap) − gap, heads·(k+gap) − gap] array, NaN between the tiles."""
    n_layers, n_heads, n_q, n_k = small.shape
    out = np.full((n_layers * (n_q + gap) - gap, n_heads * (n_k + gap) - gap), np.nan, np.float32)
    for l, h in np.ndindex(n_layers, n_heads):
        out[l * (n_q + gap):l * (n_q + gap) + n_q, h * (n_k + gap):h * (n_k + gap) + n_k] = small[l, h]
    return out


def tile(meta: dict, layer: int, head: int) -> tuple[slice, slice]:
    """Where head (layer, head) sits in the grid's one heatmap, from the figure's layout.meta."""
    q, k, gap = meta["rows"], meta["cols"], meta["gap"]
    return slice(layer * (q + gap), layer * (q + gap) + q), slice(head * (k + gap), head * (k + gap) + k)


def grid_titles(head_names, layer_names, meta: dict, lift: int) -> list[dict]:
    """The grid's head names over its columns (every other one raised by `lift` px) and layer names down its right."""
    n_q, n_k, gap, n_heads = meta["rows"], meta["cols"], meta["gap"], len(head_names)
    titles = [dict(text=name, x=h * (n_k + gap) + (n_k - 1) / 2, y=-0.5, yanchor="bottom", yshift=lift * (h % 2))
              for h, name in enumerate(head_names)]
    return titles + [dict(text=name, x=n_heads * (n_k + gap) - gap - 0.5, y=l * (n_q + gap) + (n_q - 1) / 2,
                          xanchor="left", textangle=90) for l, name in enumerate(layer_names)]


def grid(patterns, layer_names, head_names, hint: str, selected=None, cells: int = GRID_CELLS,
         side: int = GRID_SIDE, pooled: int = 1) -> go.Figure:
    """All heads of a stack, layers × heads, tiled in ONE heatmap on a 0..1 scale; `selected` is outlined.

    One heatmap rather than a subplot per head: the browser draws one trace (72 subplots took it over a
    second for MiniLM). A long input is max-pooled (each cell the largest weight of a block × block
    square) so that the grid keeps within `cells` and a tile within side²; layout.meta says the block,
    the tile size and the gap (`tile()` finds a head). Trace 1 is one invisible marker per head, at its
    tile's centre, with customdata [layer, head] and `hint` ({layer}, {head}) on hover: with
    hoverdistance -1 a click anywhere reaches the nearest (Streamlit gets no selection from heatmaps). `pooled`: the
    patterns come max-pooled by that block already (on demand); the grid pools a multiple of it (max of maxes)."""
    p = np.asarray(patterns, dtype=np.float32)  # [layers, heads, q, k]
    n_layers, n_heads = p.shape[:2]
    more = grid_block(n_layers * n_heads, *p.shape[2:], cells, side)
    block, small = pooled * more, pool_max(p, more)
    n_q, n_k = small.shape[2:]
    gap = max(1, round(max(n_q, n_k) / 12))
    meta = {"block": block, "rows": n_q, "cols": n_k, "gap": gap}
    centres = [(h * (n_k + gap) + (n_k - 1) / 2, l * (n_q + gap) + (n_q - 1) / 2, l, h)
               for l, h in np.ndindex(n_layers, n_heads)]
    targets = {"type": "scatter", "mode": "markers", "showlegend": False,
               "x": [c[0] for c in centres], "y": [c[1] for c in centres],
               "customdata": [[c[2], c[3]] for c in centres], "text": [hint.format(layer=l, head=h) for *_, l, h in centres],
               "hovertemplate": "%{text}<extra></extra>", "marker": {"size": 1, "color": "rgba(0,0,0,0)"}}
    heat = {"type": "heatmap", "z": tiled(small, gap), "coloraxis": "coloraxis", "hoverinfo": "skip"}
    lift = STAGGER if n_heads >= STAGGER_FROM else 0
    titles = grid_titles(head_names, layer_names, meta, lift)
    hidden = dict(showticklabels=False, showgrid=False, zeroline=False, ticks="")
    layout = {"meta": meta, "annotations": [dict(t, showarrow=False) for t in titles],
              "xaxis": dict(hidden, constrain="domain"), "yaxis": dict(hidden, autorange="reversed"),
              "coloraxis": {"colorscale": colorscale(ATTENTION_SCALE), "cmin": 0, "cmax": 1},
              "hoverdistance": -1, "height": 60 + lift + 140 * n_layers, "margin": margin(40 + lift, 10, 10) | {"r": 40}}
    if selected is not None and 0 <= selected[0] < n_layers and 0 <= selected[1] < n_heads:
        rows, cols = tile(meta, *selected)
        layout["shapes"] = [dict(type="rect", x0=cols.start - 0.5 - gap / 3, x1=cols.stop - 0.5 + gap / 3,
                                 y0=rows.start - 0.5 - gap / 3, y1=rows.stop - 0.5 + gap / 3,
                                 line=dict(color="#d62728", width=3))]
    return figure([heat, targets], layout)


def head_view(values, x_labels, y_labels, title: str, **axes) -> go.Figure:
    """One head's (or the mean's) weights with labels: masked cells grey, filtered-out cells blank.

    Trace 0 holds the weights (NaN where empty, no hover there); trace 1, drawn on top, is a uint8
    layer that is grey on masked cells and transparent elsewhere. Nothing is sent per cell but
    these two arrays: a note per cell would weigh more than the weights.
    """
    z = np.asarray(values, dtype=np.float32)  # [q, k], -inf masked, NaN filtered out
    trace, layout = parts(np.where(np.isneginf(z), np.nan, z), x_labels, y_labels, title=title, zrange=(0, 1), **axes)
    trace.update(hoverongaps=False)
    traces = [trace]
    blocked = np.isneginf(z)
    if blocked.any():
        traces.append({"type": "heatmap", "z": blocked.astype(np.uint8), "x": trace["x"], "y": trace["y"],
                       "zmin": 0, "zmax": 1, "colorscale": [[0, "rgba(0,0,0,0)"], [1, MASKED_COLOR]],
                       "showscale": False, "hoverinfo": "skip"})
    layout["height"] = max(320, 80 + 18 * z.shape[0])
    return figure(traces, layout)


def lines(weights, kept, q_labels, k_labels, q_start: int = 0, title: str = "", min_weight: float = 0.01,
          k_start: int = 0) -> go.Figure:
    """BertViz-style lines from query tokens (left) to key tokens (right); opacity and width follow the weight.

    Rows are queries q_start.. of the sentence and columns keys k_start..; tokens sit at their positions, so a
    line between the same position on both sides is flat. Only keys between the first and last one reached are
    listed.
    """
    w = np.asarray(weights, dtype=np.float32)  # [q, k]
    draw = np.asarray(kept, bool) & (w >= min_weight)
    qi, kj = np.nonzero(draw)
    q_pos = np.arange(w.shape[0]) + q_start
    ends = np.concatenate([q_pos, kj + k_start])
    top, bottom = int(ends.min()), int(ends.max())  # positions on screen; keys listed only where they exist
    keys = np.arange(max(top, k_start), min(bottom, k_start + len(k_labels) - 1) + 1)
    traces = []
    bucket = np.ceil(w[qi, kj] * LINE_BUCKETS).astype(int)  # 1..LINE_BUCKETS
    for b in range(1, LINE_BUCKETS + 1):
        sel = bucket == b
        if not sel.any():
            continue
        ys = np.stack([-(qi[sel] + q_start), -(kj[sel] + k_start), np.full(sel.sum(), np.nan)], axis=1).ravel()
        xs = np.tile(np.array([0.0, 1.0, np.nan]), sel.sum())
        traces.append({"type": "scatter", "x": xs.astype(np.float32), "y": ys.astype(np.float32), "mode": "lines",
                       "hoverinfo": "skip", "line": {"color": LINE_COLOR, "width": 0.5 + 3 * b / LINE_BUCKETS},
                       "opacity": b / LINE_BUCKETS, "showlegend": False})
    left, right = safe_labels(q_labels), safe_labels([k_labels[j - k_start] for j in keys])
    for x, y, text, side in ((np.zeros(len(left)), -q_pos, left, "left"), (np.ones(len(right)), -keys, right, "right")):
        traces.append({"type": "scatter", "x": x, "y": y, "text": text, "mode": "text", "textposition": f"middle {side}",
                       "hoverinfo": "text", "showlegend": False})
    layout = {"xaxis": {"visible": False, "range": [-0.7, 1.7], "fixedrange": True},
              "yaxis": {"visible": False, "range": [-(bottom + 0.7), -(top - 0.7)]},
              "title": {"text": title}, "height": 80 + 18 * (bottom - top + 1), "margin": margin(40)}
    return figure(traces, layout)


def stat_map(values, layer_names, head_names, title: str, zrange=None, hover_fmt: str = ".3f") -> go.Figure:
    """One statistic over layers × heads, so the heads that stand out are seen at once."""
    v = np.asarray(values, dtype=np.float32)  # [layers, heads]
    trace, layout = parts(v, list(head_names), list(layer_names), title=title, zrange=zrange, scale=ATTENTION_SCALE,
                          hover_fmt=hover_fmt)
    layout["height"] = 120 + 40 * v.shape[0]
    return figure([trace], layout)
