"""Figures built as plain dicts, wrapped without plotly's validation.

Building through plotly's graph objects (px.imshow, make_subplots, update_layout) validates every
property and copies templates: 36 ms for one 32 × 32 heatmap, against 2 ms for the same dict
(BENCHMARKS.md, "Where a warm rerun's time goes"). The dicts use only plotly.js attributes, and
the tests read the figures back through plotly's objects as before.
"""
from __future__ import annotations

from functools import lru_cache

import plotly.colors
import plotly.graph_objects as go


def figure(data: list[dict], layout: dict) -> go.Figure:
    """A plotly figure of these traces and this layout, taken as they are (no validation pass).

    Its template is plotly's empty "none": copying the default template took 5 of the 6 ms of a figure,
    and Streamlit draws every chart in its own theme anyway (export.page_html puts plotly's back).
    """
    return go.Figure({"data": data, "layout": {"template": "none", **layout}}, _validate=False)


def colorscale(scale) -> list:
    """A named plotly.py scale ("Cividis", "RdBu_r") as the [position, colour] pairs plotly.js reads;
    pairs given as they are."""
    return list(_named(scale)) if isinstance(scale, str) else scale


@lru_cache(maxsize=32)
def _named(name: str) -> tuple[tuple[float, str], ...]:
    return tuple((float(p), c) for p, c in plotly.colors.get_colorscale(name))


def title(text: str) -> dict:
    return {"text": text}


def margin(top: int = 10, side: int = 10, bottom: int = 10) -> dict:
    return {"l": side, "r": side, "t": top, "b": bottom}
