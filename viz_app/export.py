"""What a page shows, to take away: a chart's numbers as CSV, a whole page as one self-contained HTML file.

The HTML file opens offline, years later, in any browser: no CDN, no server. Every piece of text is
HTML-escaped here, so a sentence holding `<script>` is shown as text, never run.
"""
from __future__ import annotations

import csv
import html
import io

import numpy as np
import plotly
import plotly.graph_objects as go

from .figures.attention import pool_max
from .figures.heatmap import spans


def to_csv(values, x_labels=None, y_labels=None) -> str:
    """The numbers of a 2-D array with its labels, as CSV text (-inf written as -inf)."""
    z = np.asarray(values, dtype=np.float32)
    x = list(x_labels) if x_labels is not None else list(range(z.shape[1]))
    y = list(y_labels) if y_labels is not None else list(range(z.shape[0]))
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([""] + [str(v) for v in x])
    for label, row in zip(y, z):
        writer.writerow([str(label)] + [str(v) for v in row])  # shortest text that reads back to the float32
    return out.getvalue()


def _write(rows, header) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def lines_csv(weights, kept, q_labels, k_labels, header, min_weight: float = 0.01) -> str:
    """The drawn lines as rows: query, key, weight."""
    w = np.asarray(weights, dtype=np.float32)
    qi, kj = np.nonzero(np.asarray(kept, bool) & (w >= min_weight))
    return _write(((q_labels[i], k_labels[j], str(w[i, j])) for i, j in zip(qi, kj)), header)


def grid_csv(patterns, q_labels, k_labels, header, block: int = 1, pooled: int = 1) -> str:
    """The grid's numbers as drawn, one row per cell: layer, head, query, key, weight (pooled like the grid;
    `pooled`: the patterns come pooled by that block already, of which `block` is a multiple)."""
    p = pool_max(patterns, block // pooled)  # [layers, heads, q/block, k/block]
    q, k = spans(q_labels, block), spans(k_labels, block)
    return _write(((l, h, q[i], k[j], str(p[l, h, i, j])) for l, h, i, j in np.ndindex(*p.shape)), header)


_STYLE = ("body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}"
          "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}"
          "dt{font-weight:bold}dd{margin:0 0 .5em 1em;white-space:pre-wrap}")


def _settings(items) -> str:
    rows = "".join(f"<dt>{html.escape(str(k))}</dt><dd>{html.escape(str(v))}</dd>" for k, v in items)
    return f"<dl>{rows}</dl>"


def _table(header, rows) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def page_html(title: str, settings, figures, tables=(), lang: str = "en", note: str = "") -> str:
    """One .html: `settings` [(label, value)], `figures` [(heading, go.Figure)], `tables` [(heading, header, rows)]."""
    parts = [f"<h1>{html.escape(title)}</h1>", _settings(settings)]
    if note:
        parts.append(f"<p>{html.escape(note)}</p>")
    for i, (heading, fig) in enumerate(figures):
        parts.append(f"<h2>{html.escape(heading)}</h2>")
        # plotly.js once, inside the first figure's div, so the file needs nothing from outside; plotly's own
        # template, as the app draws charts in Streamlit's theme and figures carry none (figures/base.py)
        shown = go.Figure(fig).update_layout(template="plotly")
        parts.append(shown.to_html(full_html=False, include_plotlyjs=i == 0, include_mathjax=False,
                                   config={"displaylogo": False}))
    for heading, header, rows in tables:
        parts.append(f"<h2>{html.escape(heading)}</h2>{_table(header, rows)}")
    return (f'<!DOCTYPE html>\n<html lang="{html.escape(lang)}"><head><meta charset="utf-8">'
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style>"
            f'<meta name="generator" content="plotly.py {html.escape(plotly.__version__)}"></head>'
            f"<body>{''.join(parts)}</body></html>\n")
