"""Figures for attention computed step by step: a stage's matrix with the query row outlined, one
query's numbers through the stages, scaled against unscaled weights, and matrices with their numbers."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .base import figure, legend_below, margin
from .heatmap import parts, safe_labels

HIGHLIGHT = "#e8590c"  # orange: stands out on both the cividis and the red-blue scales


def _outline(x0: float, x1: float, y0: float, y1: float, dash: str = "solid") -> dict:
    return dict(type="rect", xref="x", yref="y", x0=x0, x1=x1, y0=y0, y1=y1,
                line=dict(color=HIGHLIGHT, width=3, dash=dash), fillcolor="rgba(0,0,0,0)")


def stage(values, x_labels=None, y_labels=None, title: str = "", zrange=None, x_title: str = "",
          y_title: str = "", row: int | None = None, columns: tuple[int, int] | None = None,
          hover_fmt: str = ".4f") -> go.Figure:
    """One stage's matrix; `row` (the chosen query) and `columns` (a head's block) are outlined."""
    z = np.asarray(values)
    trace, layout = parts(z, x_labels, y_labels, title, zrange, x_title=x_title, y_title=y_title, hover_fmt=hover_fmt)
    shapes = []
    if row is not None:
        shapes.append(_outline(-0.5, z.shape[1] - 0.5, row - 0.5, row + 0.5))
    if columns is not None:
        shapes.append(_outline(columns[0] - 0.5, columns[1] - 0.5, -0.5, z.shape[0] - 0.5, dash="dot"))
    layout["shapes"] = shapes
    return figure([trace], layout)


def query_row(rows, names, key_labels, title: str = "", x_title: str = "") -> go.Figure:
    """One query's row at each stage (e.g. scores, scaled, weights) as bars over the keys, one panel each.

    -inf (a blocked key) has no bar; its hover says so. Panel i is on axes x{i}/y{i}, stacked top to bottom.
    """
    x, n = safe_labels(key_labels), len(rows)
    gap, traces, layout = 0.12, [], {}
    size = (1 - gap * (n - 1)) / n
    for i, (values, name) in enumerate(zip(rows, names)):
        v = np.asarray(values, dtype=np.float64)
        blocked = np.isneginf(v)
        a = "" if i == 0 else str(i + 1)
        traces.append({"type": "bar", "x": x, "y": np.where(blocked, np.nan, v), "name": name, "showlegend": False,
                       "customdata": np.where(blocked, "−∞", "").astype(object), "xaxis": f"x{a}", "yaxis": f"y{a}",
                       "text": ["−∞" if b else f"{n:.2f}" for n, b in zip(v, blocked)], "textposition": "outside",
                       "cliponaxis": False, "hovertemplate": "%{x}<br>%{y:.4f}%{customdata}<extra>%{fullData.name}</extra>"})
        top = 1 - i * (size + gap)
        layout[f"xaxis{a}"] = {"type": "category", "anchor": f"y{a}", "showticklabels": i == n - 1,
                               "title": {"text": x_title if i == n - 1 else ""}} | ({"matches": "x"} if i else {})
        layout[f"yaxis{a}"] = {"domain": [max(0.0, top - size), min(1.0, top)], "anchor": f"x{a}"}
    layout["annotations"] = [dict(text=name, x=0.5, y=1 - i * (size + gap), xref="paper", yref="paper",
                                  xanchor="center", yanchor="bottom", showarrow=False) for i, name in enumerate(names)]
    layout.update(title={"text": title}, height=160 * n + 80, margin=margin(60))
    return figure(traces, layout)


def saturation(with_scaling, without_scaling, key_labels, names, title: str = "", x_title: str = "",
               y_title: str = "") -> go.Figure:
    """Two rows of attention weights over the same keys, side by side: with and without ÷√d_k."""
    x = safe_labels(key_labels)
    bars = [{"type": "bar", "x": x, "y": np.asarray(values, dtype=np.float64), "name": name,
             "hovertemplate": "%{x}<br>%{y:.4f}<extra>%{fullData.name}</extra>"}
            for values, name in zip((with_scaling, without_scaling), names)]
    layout = {"title": {"text": title}, "barmode": "group", "yaxis": {"range": [0, 1], "title": {"text": y_title}},
              "xaxis": {"type": "category", "title": {"text": x_title}, "automargin": True},
              "margin": margin(40 if title else 10), "legend": legend_below()}
    return figure(bars, layout)


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
    trace, layout = parts(z, x_labels, y_labels, title, zrange, x_title=x_title, y_title=y_title)
    trace.update(text=cell_text(z, digits), texttemplate="%{text}", textfont={"size": 15})
    layout["height"] = 90 + 60 * z.shape[0]
    layout["coloraxis"]["showscale"] = False
    return figure([trace], layout)
