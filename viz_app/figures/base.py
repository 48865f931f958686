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

from ..text import plain, safe_labels
from .room import fit


def figure(data: list[dict], layout: dict) -> go.Figure:
    """A plotly figure of these traces and this layout, taken as they are (no validation pass), but for its words.

    Every title (the figure's, an axis's, a colour bar's, the legend's), annotation, tick text given by hand and
    trace name (a legend entry, %{fullData.name} in a hover) is text, never plotly's markup: escaped here, once,
    so a figure passes them as they read (a token `<s>` in a title is not a strike-through). Categories, cell text
    and hover text are data, escaped by the figure that sets them (text.safe_labels).
    Its template is plotly's empty "none": copying the default template took 5 of the 6 ms of a figure,
    and Streamlit draws every chart in its own theme anyway (export.page_html puts plotly's back).
    Its margins hold its labels, titles and colour bars (room.fit), so the browser need not measure them.
    """
    data = [_words(trace) | ({"name": plain(trace["name"])} if "name" in trace else {}) for trace in data]
    layout = {key: _words(part) if key.startswith(("xaxis", "yaxis", "coloraxis", "legend")) else part
              for key, part in _words(layout).items()}
    if "annotations" in layout:
        layout["annotations"] = [{**note, "text": plain(note["text"])} if "text" in note else note
                                 for note in layout["annotations"]]
    return go.Figure({"data": data, "layout": {"template": "none", **fit(layout, data)}}, _validate=False)


def _words(part):
    """A trace's or layout part's title, tick texts and colour bar (its title and ticks) as plain text."""
    if not isinstance(part, dict):
        return part
    out = dict(part)
    if isinstance(out.get("title"), dict) and "text" in out["title"]:
        out["title"] = {**out["title"], "text": plain(out["title"]["text"])}
    elif isinstance(out.get("title"), str):
        out["title"] = plain(out["title"])
    if "ticktext" in out:
        out["ticktext"] = safe_labels(out["ticktext"])
    if isinstance(out.get("colorbar"), dict):
        out["colorbar"] = _words(out["colorbar"])
    return out


def colorscale(scale) -> list:
    """A named plotly.py scale ("Cividis", "RdBu_r") as the [position, colour] pairs plotly.js reads;
    pairs given as they are."""
    return list(_named(scale)) if isinstance(scale, str) else scale


@lru_cache(maxsize=32)
def _named(name: str) -> tuple[tuple[float, str], ...]:
    return tuple((float(p), c) for p, c in plotly.colors.get_colorscale(name))


def title(text: str) -> dict:
    return {"text": text}


def legend_below() -> dict:
    """A horizontal legend at the figure's foot (measured on the whole figure, not the plot): plotly makes room for
    it under the tick labels and the x axis's title, so however narrow the chart and however many rows the legend
    wraps into, it never covers the title, an axis or the data."""
    return {"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom", "x": 0, "xanchor": "left"}


def margin(top: int = 10, side: int = 10, bottom: int = 10) -> dict:
    return {"l": side, "r": side, "t": top, "b": bottom}
