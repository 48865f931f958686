"""A figure made readable on a projector: every label at least 18 px, dark text, a height that fits a screen."""
from __future__ import annotations

import math

import plotly.graph_objects as go

from .base import legend_below
from .room import TICK

SIZE = 18  # px: the smallest text a projected chart shows (issue 16)
TITLE = 20
MAX_HEIGHT = 380  # px: with the page's title and controls above it, the chart fits a 1024×768 screen
ROW = 24 / 18  # a tick label's box in chromium is this many times its font size high (the theme's Source Sans)
ENTRY = SIZE * ROW + 5  # px: a legend entry's line and plotly's gap between entries


def readable(fig: go.Figure, ink: str) -> go.Figure:
    """A copy of `fig` with every text at SIZE px or more in `ink` (a colour with ≥ 4.5:1 contrast on the
    page's background) and its height at most MAX_HEIGHT; the data are untouched."""
    out = go.Figure(fig.to_dict(), _validate=False)
    layout = out.layout.to_plotly_json()
    font = {"size": SIZE, "color": ink}
    changes = {"font": font, "legend": {**layout.get("legend", {}), "font": font},
               "hoverlabel": {"font": {"size": SIZE}}}
    title = layout.get("title")
    if title:
        changes["title"] = {**(title if isinstance(title, dict) else {"text": title}),
                            "font": {"size": TITLE, "color": ink}}
    for name in layout:
        if name.startswith("coloraxis"):
            changes[name] = {**layout[name], "colorbar": {**layout[name].get("colorbar", {}), "tickfont": font}}
        if name.startswith(("xaxis", "yaxis")):
            axis = layout[name]
            changes[name] = {**axis, "tickfont": font, "color": ink, "automargin": True,  # the room was for 12 px
                             "title": {**axis.get("title", {}), "font": font}}
            if axis.get("type") == "log":  # only the powers of ten: plotly draws the labels between at 3/4 size
                changes[name]["dtick"] = 1
    changes["annotations"] = [{**a, "font": {**a.get("font", {}), "size": max(a.get("font", {}).get("size", 0), SIZE),
                                            "color": a.get("font", {}).get("color", ink)}}
                              for a in layout.get("annotations", [])]
    height = layout.get("height")
    changes["height"] = max(min(height, MAX_HEIGHT) if height else MAX_HEIGHT, rows_height(layout, out.data))
    if not fits_beside(layout, out.data, changes["height"]):
        changes["legend"] |= legend_below()
    out.update_layout(changes)
    out.update_traces(colorbar_tickfont=font, selector=lambda trace: hasattr(trace, "colorbar"))
    return out


def rows_height(layout: dict, data) -> int:
    """The height that gives each labelled row of a category y axis (heatmap.every_label: a tick on every row) a
    label's box at SIZE px, with room above and below grown from 12 px labels to SIZE: MAX_HEIGHT left 14 px a row
    to 14 tokens, and their labels ran into each other."""
    need = 0.0
    for key, axis in layout.items():
        if not key.startswith("yaxis") or axis.get("type") != "category" or axis.get("dtick") != 1:
            continue
        name = "y" + key[5:]
        rows = max((len(trace.y) for trace in data if (trace.yaxis or "y") == name and trace.y is not None),
                   default=0)
        low, high = axis.get("domain") or (0, 1)
        need = max(need, rows * SIZE * ROW / max(high - low, 0.1))
    margin = layout.get("margin") or {}
    return math.ceil(need + (margin.get("t", 0) + margin.get("b", 0)) * SIZE / TICK) if need else 0


def fits_beside(layout: dict, data, height: int) -> bool:
    """Whether the figure's legend, if it is one upright column beside the plot, fits the plot's height at SIZE px
    (the margins grown from 12 px labels to SIZE); else it would scroll, and is laid in rows at the foot instead."""
    entries = sum(1 for trace in data if trace.name and (trace.showlegend or trace.showlegend is None
                                                          and trace.type in ("scatter", "bar", "histogram")))
    if layout.get("showlegend") is False or entries < 2 or (layout.get("legend") or {}).get("orientation") == "h":
        return True
    margin = layout.get("margin") or {}
    return entries * ENTRY <= height - (margin.get("t", 0) + margin.get("b", 0)) * SIZE / TICK
