"""Attention explorer figures: every head at once, one head enlarged, lines between tokens, head statistics.

Pure numpy + plotly. Weights are [q, k] (one head) or [layers, heads, q, k] (a whole stack); masked
cells are -inf in what a heatmap shows and filtered-out cells NaN, so both are drawn empty, not as 0.
"""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import plotly.io

from .heatmap import ATTENTION_SCALE, matrix, safe_labels

GRID_CELLS = 100_000  # float32 cells the grid starts from: 0.53 MB of base64, whatever the model's size
GRID_BYTES = 950_000  # the JSON the grid may send at most (a 1 MB budget, with room for the page's own)
LINE_COLOR = "rgb(31, 78, 156)"
MASKED_COLOR = "rgb(200, 200, 200)"  # cells the mask forbids, told apart from filtered (blank) ones
LINE_BUCKETS = 10  # one trace per opacity step, each a None-separated polyline: light however many lines


# Pooling is how the grid keeps to its bytes budget, a drawing decision: it lives with the figure, and the
# grid's CSV (export.grid_csv) pools the same way so that it holds the numbers as drawn.
def grid_block(n_plots: int, n_q: int, n_k: int, cells: int = GRID_CELLS) -> int:
    """Side of the square block pooled into one grid cell so that the grid stays within `cells`."""
    per_plot = max(cells // max(n_plots, 1), 1)
    return max(1, math.ceil(math.sqrt(n_q * n_k / per_plot)))


def pool_max(weights, block: int) -> np.ndarray:
    """Each block × block square replaced by its largest weight (a sharp head stays visible when shrunk)."""
    w = np.asarray(weights, dtype=np.float32)
    if block == 1:
        return w
    n_q, n_k = w.shape[-2:]
    rows, cols = -(-n_q // block), -(-n_k // block)
    padded = np.zeros(w.shape[:-2] + (rows * block, cols * block), np.float32)  # weights ≥ 0: 0 never wins a max
    padded[..., :n_q, :n_k] = w
    return padded.reshape(*w.shape[:-2], rows, block, cols, block).max(axis=(-3, -1))


def grid(patterns, layer_names, head_names, hint: str, selected=None, cells: int = GRID_CELLS,
         max_bytes: int = GRID_BYTES) -> go.Figure:
    """All heads of a stack, layers × heads, on one 0..1 colour axis; `selected` (layer, head) is outlined.

    `hint` is the hover text of a cell, with {layer} and {head} filled in. A long input is max-pooled
    until the JSON is at most `max_bytes`; layout.meta["block"] says how many tokens a cell covers.
    Traces: first one heatmap per head in row order (trace l·heads + h), then one invisible marker per
    head whose customdata is [layer, head]; with hoverdistance -1 it answers clicks anywhere in its cell
    (Streamlit gets no selection from heatmaps themselves).
    """
    p = np.asarray(patterns, dtype=np.float32)  # [layers, heads, q, k]
    block = grid_block(p.shape[0] * p.shape[1], *p.shape[2:], cells)
    while True:  # base64 has "/" escaped in JSON, so the size depends on the values: measure it
        fig = _grid(pool_max(p, block), list(layer_names), list(head_names), hint, selected)
        fig.update_layout(meta={"block": block})
        size = len(plotly.io.to_json(fig, validate=False))
        if block >= max(p.shape[2:]) or size <= max_bytes:
            return fig
        block = max(block + 1, math.ceil(block * math.sqrt(size / max_bytes)))  # bytes grow as 1 / block²


def _domains(n: int, gap: float) -> list[tuple[float, float]]:
    """n equal spans of 0..1 with `gap` between them, first one first."""
    size = (1 - gap * (n - 1)) / n
    return [(i * (size + gap), i * (size + gap) + size) for i in range(n)]


def _grid(small, layer_names, head_names, hint, selected) -> go.Figure:
    # Built as plain dicts: plotly's make_subplots/update_* take seconds for a 12 × 12 grid.
    n_layers, n_heads = small.shape[:2]  # small: [layers, heads, q/block, k/block]
    xs, ys = _domains(n_heads, min(0.02, 0.5 / n_heads)), _domains(n_layers, min(0.04, 0.5 / n_layers))[::-1]
    centre = ((small.shape[-1] - 1) / 2, (small.shape[-2] - 1) / 2)
    heat, targets, layout = [], [], {}
    for l in range(n_layers):
        for h in range(n_heads):
            a = "" if l == h == 0 else str(l * n_heads + h + 1)
            axes = dict(xaxis=f"x{a}", yaxis=f"y{a}")
            heat.append(go.Heatmap(z=small[l, h], coloraxis="coloraxis", hoverinfo="skip", **axes))
            targets.append(go.Scatter(x=[centre[0]], y=[centre[1]], mode="markers", customdata=[[l, h]], **axes,
                                      marker=dict(size=1, color="rgba(0,0,0,0)"), showlegend=False,
                                      hovertemplate=hint.format(layer=l, head=h) + "<extra></extra>"))
            hidden = dict(showticklabels=False, showgrid=False, zeroline=False, ticks="")
            layout[f"xaxis{a}"] = dict(domain=xs[h], anchor=f"y{a}", **hidden)
            layout[f"yaxis{a}"] = dict(domain=ys[l], anchor=f"x{a}", autorange="reversed", **hidden)
    titles = [dict(text=name, x=sum(xs[h]) / 2, y=1, yanchor="bottom") for h, name in enumerate(head_names)]
    titles += [dict(text=name, x=1, y=sum(ys[l]) / 2, xanchor="left", textangle=90)
               for l, name in enumerate(layer_names)]
    layout["annotations"] = [dict(t, xref="paper", yref="paper", showarrow=False) for t in titles]
    if selected is not None and 0 <= selected[0] < n_layers and 0 <= selected[1] < n_heads:
        a = "" if selected == (0, 0) else str(selected[0] * n_heads + selected[1] + 1)
        layout["shapes"] = [dict(type="rect", xref=f"x{a} domain", yref=f"y{a} domain", x0=-0.03, x1=1.03,
                                 y0=-0.03, y1=1.03, line=dict(color="#d62728", width=3))]
    layout.update(coloraxis=dict(colorscale=ATTENTION_SCALE, cmin=0, cmax=1), hoverdistance=-1,
                  height=60 + 140 * n_layers, margin=dict(l=10, r=40, t=40, b=10))
    return go.Figure(heat + targets, layout)


def head_view(values, x_labels, y_labels, title: str, **axes) -> go.Figure:
    """One head's (or the mean's) weights with labels: masked cells grey, filtered-out cells blank.

    Trace 0 holds the weights (NaN where empty, no hover there); trace 1, drawn on top, is a uint8
    layer that is grey on masked cells and transparent elsewhere. Nothing is sent per cell but
    these two arrays: a note per cell would weigh more than the weights.
    """
    z = np.asarray(values, dtype=np.float32)  # [q, k], -inf masked, NaN filtered out
    fig = matrix(z, x_labels, y_labels, title=title, zrange=(0, 1), **axes)
    fig.update_traces(customdata=None, hoverongaps=False, hovertemplate="%{y} → %{x}<br>%{z:.4f}<extra></extra>")
    blocked = np.isneginf(z)
    if blocked.any():
        fig.add_trace(go.Heatmap(z=blocked.astype(np.uint8), x=fig.data[0].x, y=fig.data[0].y, zmin=0, zmax=1,
                                 colorscale=[[0, "rgba(0,0,0,0)"], [1, MASKED_COLOR]], showscale=False,
                                 hoverinfo="skip"))
    fig.update_layout(height=max(320, 80 + 18 * z.shape[0]))
    fig.update_xaxes(automargin=True)  # token labels get room in an exported file too, not only in Streamlit
    fig.update_yaxes(automargin=True)
    return fig


def lines(weights, kept, q_labels, k_labels, q_start: int = 0, title: str = "", min_weight: float = 0.01) -> go.Figure:
    """BertViz-style lines from query tokens (left) to key tokens (right); opacity and width follow the weight.

    Rows are queries q_start.. of the sentence; tokens sit at their positions, so a line between the
    same position on both sides is flat. Only keys between the first and last one reached are listed.
    """
    w = np.asarray(weights, dtype=np.float32)  # [q, k]
    draw = np.asarray(kept, bool) & (w >= min_weight)
    qi, kj = np.nonzero(draw)
    q_pos = np.arange(w.shape[0]) + q_start
    ends = np.concatenate([q_pos, kj])
    top, bottom = int(ends.min()), int(ends.max())  # positions on screen; keys listed only where they exist
    keys = np.arange(top, min(bottom, len(k_labels) - 1) + 1)
    fig = go.Figure()
    bucket = np.ceil(w[qi, kj] * LINE_BUCKETS).astype(int)  # 1..LINE_BUCKETS
    for b in range(1, LINE_BUCKETS + 1):
        sel = bucket == b
        if not sel.any():
            continue
        ys = np.stack([-(qi[sel] + q_start), -kj[sel], np.full(sel.sum(), np.nan)], axis=1).ravel()
        xs = np.tile(np.array([0.0, 1.0, np.nan]), sel.sum())
        fig.add_trace(go.Scatter(x=xs.astype(np.float32), y=ys.astype(np.float32), mode="lines", hoverinfo="skip",
                                 line=dict(color=LINE_COLOR, width=0.5 + 3 * b / LINE_BUCKETS),
                                 opacity=b / LINE_BUCKETS, showlegend=False))
    left, right = safe_labels(q_labels), safe_labels([k_labels[j] for j in keys])
    fig.add_trace(go.Scatter(x=np.zeros(len(left)), y=-q_pos, text=left, mode="text", textposition="middle left",
                             hoverinfo="text", showlegend=False))
    fig.add_trace(go.Scatter(x=np.ones(len(right)), y=-keys, text=right, mode="text",
                             textposition="middle right", hoverinfo="text", showlegend=False))
    fig.update_xaxes(visible=False, range=[-0.7, 1.7], fixedrange=True)
    fig.update_yaxes(visible=False, range=[-(bottom + 0.7), -(top - 0.7)])
    fig.update_layout(title=title, height=80 + 18 * (bottom - top + 1), margin=dict(l=10, r=10, t=40, b=10))
    return fig


def stat_map(values, layer_names, head_names, title: str, zrange=None, hover_fmt: str = ".3f") -> go.Figure:
    """One statistic over layers × heads, so the heads that stand out are seen at once."""
    v = np.asarray(values, dtype=np.float32)  # [layers, heads]
    fig = matrix(v, list(head_names), list(layer_names), title=title, zrange=zrange, scale=ATTENTION_SCALE,
                 hover_fmt=hover_fmt)
    fig.update_layout(height=120 + 40 * v.shape[0])
    fig.update_xaxes(automargin=True)
    fig.update_yaxes(automargin=True)
    return fig
