"""The page as one self-contained HTML file: plotly.js inside, nothing fetched, every text escaped."""
import json
import re

import numpy as np
import plotly.graph_objects as go
from plotly.offline import get_plotlyjs_version

from viz_app.export import page_html

EVIL = '<script>alert("x")</script> & <b>bold</b>'


def figures():
    heat = go.Figure(go.Heatmap(z=np.eye(3, dtype=np.float32), x=["a", "b", "</script><script>alert(2)"]))
    return [("grid " + EVIL, heat), ("lines", go.Figure(go.Scatter(x=[0, 1], y=[0, 1])))]


def test_text_is_escaped_everywhere():
    html = page_html("title " + EVIL, [("sentence", EVIL), (EVIL, "x")], figures(),
                     [("table " + EVIL, ["col " + EVIL], [[EVIL], [1.5]])])
    assert "<script>alert" not in html and "</script><script>alert(2)" not in html
    escaped = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;"
    # title tag, heading, setting label and value, figure heading, table heading, header and cell
    assert html.count(escaped) == 8
    assert "<td>1.5</td>" in html


def test_plotly_js_is_inlined_once_and_nothing_is_fetched():
    html = page_html("t", [], figures())
    assert html.count(f"plotly.js v{get_plotlyjs_version()}") == 1  # the bundle, once for both figures
    assert len(html) > 3_000_000
    assert html.count("Plotly.newPlot(") == 2
    assert not re.search(r"<script[^>]*\bsrc\s*=", html, re.I)
    assert not re.search(r"<link\b", html, re.I)
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html.split("plotly.js v")[0])  # our own markup
    assert "cdn.plot.ly/plotly-" not in html and "mathjax.js" not in html.lower()  # no CDN copy of either


def test_figures_carry_their_data_and_the_page_its_language():
    html = page_html("t", [("k", "v")], figures(), lang="zh")
    assert html.startswith("<!DOCTYPE html>") and '<html lang="zh">' in html and '<meta charset="utf-8">' in html
    specs = re.findall(r'Plotly\.newPlot\(\s*"[^"]+",\s*(\[.*?\]),\s*\{', html, re.S)
    assert len(specs) == 2
    heat = json.loads(specs[0])[0]
    assert heat["type"] == "heatmap" and heat["z"]["dtype"] == "f4"  # float32 binary, as in the app
    assert heat["x"][2] == "</script><script>alert(2)"  # kept as data, escaped only as \u003c in the file


def test_no_figures_means_no_plotly():
    html = page_html("t", [("a", "b")], [])
    assert "plotly.js v" not in html and "<dd>b</dd>" in html
