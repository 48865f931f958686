"""Room for a figure's tick labels, axis titles and colour bars, worked out before the browser draws it.

plotly.js makes that room itself with `automargin` (Streamlit's theme turns it on for every axis): it draws the
chart, measures every tick label in the page (a layout pass per label), widens the margins and draws the chart
again. On the explorer that took about half of each chart's drawing time (the 7 charts of a 32-token sentence:
228–324 ms with automargin, 116–129 ms without, plotly.js in chromium on 2 cores). Here the margins come from
the labels' lengths instead, a little wider than they need, and automargin stays off.

Widths are estimated from the text: a Latin letter or digit is at most 0.62 of the font size wide in the theme's
sans-serif, a CJK character or an emoji a whole em. The browser tests (tests/e2e/test_browser.py, every page, and
the Chinese explorer) check in chromium that no tick label, axis title or colour-bar label leaves its chart.
"""
from __future__ import annotations

import html
import math
import unicodedata

import numpy as np

TICK = 12  # px: the tick labels' font in Streamlit's theme (and plotly's own)
TITLE = 14  # px: an axis title's font in Streamlit's theme
LINE = 1.3  # a line of text is this many font sizes high
PAD = 8  # px: Streamlit's theme puts this between the plot and its tick labels (margin.pad)
GAP = 12  # px: between the tick labels and the axis title
BAR = 10 + 6 + 28  # px: beside a colour bar's own thickness: its pad, its ticks and the space beyond its labels


def text_width(text: str, size: float) -> float:
    """An upper estimate of a line's width in px."""
    text = html.unescape(str(text))
    wide = sum(1 for ch in text if ch > "\x7f" and _wide(ch))  # no ASCII character is wide
    return size * (0.62 * (len(text) - wide) + wide)


def _wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in "WF" or ord(ch) >= 0x1F000


def _widest(labels, size: float) -> float:
    return max((text_width(label, size) for label in labels), default=0.0)


def _title(part: dict) -> str:
    """An axis's or colour bar's title text, given as a dict or as a string."""
    title = part.get("title") or ""
    return str(title.get("text") or "") if isinstance(title, dict) else str(title)


def fit(layout: dict, data: list[dict]) -> dict:
    """The layout with automargin off on every axis and its margins widened by what its axes and colour bars
    need (a margin given wider is kept). An axis that asks for automargin keeps it: a legend laid below the x axis
    (figures.base.legend_below) is placed under its labels and title only by plotly's own measuring."""
    axes = [key for key in layout if key.startswith(("xaxis", "yaxis"))]
    margin = dict(layout.get("margin") or {})
    need = {"l": 0.0, "r": 0.0, "t": 0.0, "b": 0.0}
    outer = _outer(layout, axes)
    out = dict(layout)
    for key in axes:
        if layout[key].get("automargin"):  # asked for: a legend below this axis, which plotly places by measuring
            continue
        axis = out[key] = {**layout[key], "automargin": False}
        if key in outer:
            side = _side(key, axis)
            need[side] = max(need[side], _axis_room(key, axis, data))
    for side, px in _bar_room(layout, data).items():
        need[side] += px
    for side, px in need.items():
        if px:
            margin[side] = math.ceil(max(margin.get(side, 0), 10 + px))
    if margin:
        out["margin"] = margin
    return out


def _side(key: str, axis: dict) -> str:
    if key.startswith("x"):
        return "t" if axis.get("side") == "top" else "b"
    return "r" if axis.get("side") == "right" else "l"


def _outer(layout: dict, axes: list[str]) -> set[str]:
    """The axes on the figure's edge: in a grid of subplots, those of the bottom row and the left column (the
    others' labels sit between the subplots, inside the figure)."""
    def start(key: str) -> float:
        anchor = layout[key].get("anchor", "y" if key.startswith("x") else "x")
        other = ("yaxis" if key.startswith("x") else "xaxis") + anchor[1:]
        return (layout.get(other, {}).get("domain") or [0, 1])[0]
    out = set()
    for letter in "xy":
        mine = [key for key in axes if key.startswith(letter) and "overlaying" not in layout[key]]
        if mine:
            low = min(start(key) for key in mine)
            out |= {key for key in mine if start(key) <= low + 1e-9}
    return out


def _axis_room(key: str, axis: dict, data: list[dict]) -> float:
    if axis.get("visible") is False:
        return 0.0
    room = 0.0
    if axis.get("showticklabels", True):
        labels = _labels(key, axis, data)
        if labels:
            size = (axis.get("tickfont") or {}).get("size", TICK)
            wide, high = _widest(labels, size), size * LINE
            angle = math.radians(_angle(axis))
            if key.startswith("x"):
                room = wide * math.sin(angle) + high * math.cos(angle)
            else:
                room = wide * math.cos(angle) + high * math.sin(angle)
            room += PAD + (axis.get("ticklen", 5) if axis.get("ticks") else 0)
    text = _title(axis)
    if text:
        room += GAP + TITLE * LINE * (1 + text.count("<br>"))
    return room


def _angle(axis: dict) -> float:
    """How far from level an axis's labels turn, in degrees: left to plotly ("auto") among autotickangles, the
    farthest it may pick."""
    angle = axis.get("tickangle")
    if angle in (None, "auto") and axis.get("autotickangles"):
        return max(abs(a) for a in axis["autotickangles"])
    return abs(angle or 0)


def _labels(key: str, axis: dict, data: list[dict]) -> list[str]:
    """The tick labels plotly will write on this axis: given by hand, the categories of its traces, or for
    numbers, its range's ends as plotly writes them (at least 4 characters)."""
    if axis.get("ticktext") is not None:
        return [str(t) for t in axis["ticktext"]]
    letter, name = key[0], key[0] + key[5:]
    values = [np.asarray(trace[letter]) for trace in data
              if trace.get(letter + "axis", letter) == name and trace.get(letter) is not None
              and not isinstance(trace[letter], dict)]
    words = [v for v in values if v.dtype.kind in "UO"]
    if words or axis.get("type") == "category":
        return [str(label) for v in words for label in v.ravel().tolist()] or ["0000"]
    numbers = [v.astype(float).ravel() for v in values if v.size and v.dtype.kind in "biuf"]
    ends = list(axis.get("range") or []) or [f(v[np.isfinite(v)]) for v in numbers for f in (np.min, np.max)
                                             if np.isfinite(v).any()]
    return [f"{float(end):.3g}" for end in ends] + ["−0.00"]


def _bar_room(layout: dict, data: list[dict]) -> dict:
    """A colour bar's room on the right (or at the bottom, lying down): its bar and its tick labels."""
    bars = [layout[key].get("colorbar") or {} for key in layout
            if key.startswith("coloraxis") and layout[key].get("showscale", True)]
    bars += [trace.get("colorbar") or {} for trace in data
             if "coloraxis" not in trace and (trace.get("showscale") or
                                              (trace.get("type") in ("heatmap", "contour") and
                                               trace.get("showscale", True)))]
    room = {"r": 0.0, "b": 0.0}
    for bar in bars:
        font = (bar.get("tickfont") or {}).get("size", TICK)
        labels = [str(t) for t in bar.get("ticktext") or []] or ["−0.00"]
        wide = _widest([*labels, _title(bar)], font)
        if bar.get("orientation") == "h":
            room["b"] = max(room["b"], bar.get("thickness", 30) + BAR + font * LINE)
        elif bar.get("x", 1.02) >= 1:  # beyond the plot's right edge, where plotly puts it unless told otherwise
            room["r"] = max(room["r"], bar.get("thickness", 30) + BAR + wide)
    return room
