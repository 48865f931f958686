"""A figure made readable on a projector: every label at least 18 px, dark text, a height that fits a screen."""
from __future__ import annotations

import plotly.graph_objects as go

SIZE = 18  # px: the smallest text a projected chart shows (issue 16)
TITLE = 20
MAX_HEIGHT = 380  # px: with the page's title and controls above it, the chart fits a 1024×768 screen


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
    changes["height"] = min(height, MAX_HEIGHT) if height else MAX_HEIGHT
    out.update_layout(changes)
    out.update_traces(colorbar_tickfont=font, selector=lambda trace: hasattr(trace, "colorbar"))
    return out
