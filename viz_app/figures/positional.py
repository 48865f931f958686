"""Positional encodings: curves per dimension, position-to-position similarity, per-head bias grids."""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from .base import colorscale, figure, margin
from .heatmap import DIVERGING_SCALE

LINE_COLOURS = ("#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb", "#000000")  # Tol
CYCLIC_SCALE = "Twilight"  # angles wrap around: 0 and 2π get the same colour
H_SPACING = 0.1  # between the head grid's columns, as a fraction of the figure's width: room for a colour bar


def curves(table, dims, names, title: str = "", x_title: str = "", y_title: str = "") -> go.Figure:
    """One line per chosen column of a [positions, dims] table over the positions, named by `names`."""
    values = np.asarray(table, dtype=np.float32)  # [pos, d]
    positions = np.arange(values.shape[0])
    lines = [{"type": "scatter", "x": positions, "y": values[:, dim], "mode": "lines", "name": str(name),
              "line": {"color": LINE_COLOURS[i % len(LINE_COLOURS)], "width": 2},
              "hovertemplate": "%{x}: %{y:.4f}<extra>%{fullData.name}</extra>"}
             for i, (dim, name) in enumerate(zip(dims, names))]
    layout = {"title": {"text": title}, "xaxis": {"title": {"text": x_title}}, "yaxis": {"title": {"text": y_title}},
              "hovermode": "x unified", "margin": margin(40 if title else 10)}
    return figure(lines, layout)


def _domains(count: int, spacing: float) -> list[list[float]]:
    """`count` equal spans of 0..1 with `spacing` between them, first at 0 (as make_subplots lays them out)."""
    size = (1.0 - spacing * (count - 1)) / count
    starts = [sum([size] * i) + i * spacing for i in range(count)]
    return [[min(1.0, max(0.0, v)) for v in (start, start + size)] for start in starts]


def _grid_axes(rows: int, cols: int, x_title: str, y_title: str) -> tuple[dict, list, list]:
    """Axes x{i+1}/y{i+1} for cell i of a rows × cols grid, row 0 on top (empty cells keep theirs, as in
    make_subplots): x titled on the last row, y on the first column, every y reversed (row 0 of a matrix
    on top, as in every other matrix of the app). Also the cells' x and y domains, top row first."""
    xs, ys = _domains(cols, H_SPACING), _domains(rows, 0.12 if rows > 1 else 0.08)[::-1]
    layout = {}
    for i in range(rows * cols):
        a, (r, c) = "" if i == 0 else str(i + 1), divmod(i, cols)
        layout[f"xaxis{a}"] = {"anchor": f"y{a}", "domain": xs[c]}
        layout[f"yaxis{a}"] = {"anchor": f"x{a}", "domain": ys[r], "autorange": "reversed"}
        if r == rows - 1:
            layout[f"xaxis{a}"]["title"] = {"text": x_title}
        if c == 0:
            layout[f"yaxis{a}"]["title"] = {"text": y_title}
    return layout, xs, ys


def _beside(xs, ys, r: int, c: int) -> dict:
    """A thin colour bar just right of cell (r, c), as tall as the cell."""
    return {"x": xs[c][1] + 0.005, "xanchor": "left", "xref": "paper", "y": sum(ys[r]) / 2, "yanchor": "middle",
            "yref": "paper", "len": ys[r][1] - ys[r][0], "lenmode": "fraction", "thickness": 8, "nticks": 4}


def head_grid(mats, titles, title: str = "", x_title: str = "", y_title: str = "", cols: int = 4) -> go.Figure:
    """Small multiples of [h, q, k] matrices, one per head, each on its own diverging colour range (symmetric
    about 0, its colour bar beside it): heads' values can differ a hundredfold (ALiBi's slopes), and one shared
    range would leave the gentle heads blank.

    Head i is on axes x{i+1}/y{i+1} of a grid laid out by hand (_grid_axes); its title is an annotation
    above its cell, as make_subplots' subplot titles.
    """
    z = np.asarray(mats, dtype=np.float32)  # [h, q, k]
    n = z.shape[0]
    cols = max(1, min(cols, n))
    rows = math.ceil(n / cols)
    layout, xs, ys = _grid_axes(rows, cols, x_title, y_title)
    bounds = [float(np.abs(z[h]).max()) or 1.0 for h in range(n)]
    scale = colorscale(DIVERGING_SCALE)
    axes = [str(h + 1) if h else "" for h in range(n)]
    traces = [{"type": "heatmap", "z": z[h], "zmin": -bounds[h], "zmax": bounds[h], "colorscale": scale,
               "colorbar": _beside(xs, ys, h // cols, h % cols), "name": str(titles[h]), "xaxis": f"x{axes[h]}",
               "yaxis": f"y{axes[h]}",
               "hovertemplate": "%{y} → %{x}<br>%{z:.4f}<extra>%{fullData.name}</extra>"} for h in range(n)]
    layout["annotations"] = [{"text": name, "x": sum(xs[i % cols]) / 2.0, "y": ys[i // cols][1], "xref": "paper",
                              "yref": "paper", "xanchor": "center", "yanchor": "bottom", "showarrow": False,
                              "font": {"size": 16}}
                             for i, name in enumerate(titles) if name and i < rows * cols]
    layout.update(title={"text": title}, height=260 * rows + 60, margin=margin(70))
    return figure(traces, layout)
