"""A page as one self-contained HTML file: its figures with plotly.js inlined, its text escaped.

The file opens offline, years later, in any browser: no CDN, no server. Every piece of text is
HTML-escaped here, so a sentence holding `<script>` is shown as text, never run.
"""
from __future__ import annotations

import html

import plotly
import plotly.graph_objects as go

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
        # plotly.js once, inside the first figure's div, so the file needs nothing from outside
        parts.append(go.Figure(fig).to_html(full_html=False, include_plotlyjs=i == 0, include_mathjax=False,
                                            config={"displaylogo": False}))
    for heading, header, rows in tables:
        parts.append(f"<h2>{html.escape(heading)}</h2>{_table(header, rows)}")
    return (f'<!DOCTYPE html>\n<html lang="{html.escape(lang)}"><head><meta charset="utf-8">'
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style>"
            f'<meta name="generator" content="plotly.py {html.escape(plotly.__version__)}"></head>'
            f"<body>{''.join(parts)}</body></html>\n")
