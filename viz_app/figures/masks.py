"""Masks drawn as may-attend / blocked grids, padded batches as tables, bars of the weight that leaks onto padding."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .base import figure, margin
from .heatmap import parts, safe_labels

ALLOWED_COLOUR = "#2b6ca3"  # blue: may attend
BLOCKED_COLOUR = "#d9d9d9"  # light grey: blocked, reads as "switched off" in print and on a projector
PAD_STYLE = "color: #9a9a9a; background-color: #efefef"


def padded_table(ids, pads, row_names, col_names=None):
    """The padded ids [b, n] as a table whose padding cells (`pads` [b, n], True) are greyed (a pandas Styler);
    columns are titled by position unless `col_names` are given."""
    ids = np.asarray(ids)
    columns = list(col_names) if col_names is not None else [str(i) for i in range(ids.shape[1])]
    frame = pd.DataFrame(ids, index=list(row_names), columns=columns)
    styles = pd.DataFrame(np.where(np.asarray(pads, dtype=bool), PAD_STYLE, ""), index=frame.index, columns=columns)
    return frame.style.apply(lambda _: styles, axis=None)


def mask_figure(mask, x_labels, y_labels, title: str, allowed: str, blocked: str,
                x_title: str = "", y_title: str = "") -> go.Figure:
    """A boolean mask [q, k] as a two-colour grid, 1 = may attend, 0 = blocked, with a two-entry legend."""
    mask = np.asarray(mask, dtype=bool)
    scale = [[0, BLOCKED_COLOUR], [0.5, BLOCKED_COLOUR], [0.5, ALLOWED_COLOUR], [1, ALLOWED_COLOUR]]
    trace, layout = parts(mask.astype(np.float32), x_labels, y_labels, title, zrange=(0, 1),
                          scale=scale, x_title=x_title, y_title=y_title)
    words = np.where(mask, allowed, blocked).astype(object)  # [q, k]
    trace.update(customdata=words, hovertemplate="%{y} → %{x}<br>%{customdata}<extra></extra>", xgap=1, ygap=1)
    # Square cells, and the two-colour key in a row at the foot: a bar beside the grid took a third of a narrow column
    # (three masks side by side) and squeezed a decoder's cells into strips.
    layout["coloraxis"]["colorbar"] = {"tickvals": [0.25, 0.75], "ticktext": [blocked, allowed], "orientation": "h",
                                       "yref": "container", "y": 0, "yanchor": "bottom", "thickness": 12, "len": 0.8}
    layout["xaxis"].update(constrain="domain", tickangle=-45 if mask.shape[1] > 4 else 0)
    layout["yaxis"].update(scaleanchor="x", scaleratio=1, constrain="domain")
    layout["height"] = min(900, 200 + 24 * mask.shape[0])
    return figure([trace], layout)


def pad_weight_bars(weights, labels, row_is_pad, title: str, x_title: str = "", y_title: str = "") -> go.Figure:
    """Horizontal bars of the weight on padding per query row (rows of padding itself in grey), 0..1."""
    weights = np.asarray(weights, dtype=np.float32)
    colours = [BLOCKED_COLOUR if p else ALLOWED_COLOUR for p in row_is_pad]
    bar = {"type": "bar", "x": weights, "y": safe_labels(labels), "orientation": "h", "marker": {"color": colours},
           "text": [f"{w:.3f}" for w in weights], "textposition": "outside", "cliponaxis": False,
           "hovertemplate": "%{y}: %{x:.4f}<extra></extra>"}  # the numbers show a 0 bar too
    layout = {"title": {"text": title}, "margin": margin(40 if title else 10),
              "xaxis": {"title": {"text": x_title}, "range": [0, 1]},
              "yaxis": {"title": {"text": y_title}, "type": "category", "autorange": "reversed"}}  # row 0 on top
    return figure([bar], layout)
