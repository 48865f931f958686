"""The residual stream, the FFN's hidden units, normalization and the logit lens, as plotly figures."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..text import safe_labels
from .base import figure, margin
from .heatmap import parts

BEFORE_COLOUR, AFTER_COLOUR = "#e69f00", "#0072b2"  # Okabe–Ito orange and blue: colour-blind-safe


def norm_lines(norms, stage_labels, token_labels, title: str, x_title: str = "", y_title: str = "") -> go.Figure:
    """One line per token through the stages: norms [stages, pos]."""
    norms = np.asarray(norms, dtype=np.float32)
    x = safe_labels(stage_labels)
    lines = [{"type": "scatter", "x": x, "y": norms[:, i], "mode": "lines+markers", "name": str(label),
              "hovertemplate": "%{fullData.name}<br>%{x}: %{y:.3f}<extra></extra>"}
             for i, label in enumerate(token_labels)]
    layout = {"title": {"text": title}, "margin": margin(40 if title else 10),
              "xaxis": {"title": {"text": x_title}, "type": "category", "tickangle": -45},
              "yaxis": {"title": {"text": y_title}}}
    return figure(lines, layout)


def fraction_bars(fractions, labels, title: str, x_title: str = "", y_title: str = "") -> go.Figure:
    """One horizontal bar per token, 0..1, row 0 on top (to sit beside a heatmap of the same tokens)."""
    bar = {"type": "bar", "x": np.asarray(fractions, dtype=np.float32), "y": safe_labels(labels), "orientation": "h",
           "marker": {"color": AFTER_COLOUR}, "hovertemplate": "%{y}: %{x:.3f}<extra></extra>"}
    layout = {"title": {"text": title}, "margin": margin(40 if title else 10),
              "xaxis": {"title": {"text": x_title}, "range": [0, 1]},
              "yaxis": {"title": {"text": y_title}, "type": "category", "autorange": "reversed"}}
    return figure([bar], layout)


def norm_histograms(before, after, names, title: str, x_title: str = "", y_title: str = "") -> go.Figure:
    """Two overlaid histograms of one token's vector: before and after the norm."""
    bars = [{"type": "histogram", "x": np.asarray(v, dtype=np.float32), "name": name, "opacity": 0.6,
             "marker": {"color": colour}, "nbinsx": 40}
            for v, name, colour in zip((before, after), names, (BEFORE_COLOUR, AFTER_COLOUR))]
    layout = {"title": {"text": title}, "barmode": "overlay", "margin": margin(40 if title else 10),
              "xaxis": {"title": {"text": x_title}}, "yaxis": {"title": {"text": y_title}}}
    return figure(bars, layout)


def lens_figure(probs, top_pieces, x_labels, y_labels, title: str, x_title: str = "", y_title: str = "") -> go.Figure:
    """Logit lens: probs [layers, pos] of the final prediction, each cell labelled with that layer's top token."""
    trace, layout = parts(probs, x_labels, y_labels, title, zrange=(0, 1), x_title=x_title,
                          y_title=y_title)
    cells = np.asarray([safe_labels(row) for row in top_pieces], dtype=object)  # [layers, pos]
    trace.update(text=cells, texttemplate="%{text}",
                 hovertemplate="%{y} · %{x}<br>%{z:.4f}<br>%{text}<extra></extra>")
    return figure([trace], layout)
