"""The attention explorer as a user drives it; every expected value comes from the model's own trace."""
import csv
import json
import io
import math
import re

import numpy as np
import pytest
from streamlit.proto.PlotlyChart_pb2 import PlotlyChart

from tests.app.conftest import (assert_clean, chart, decode, grid_tile, named_chart, named_z, open_keeping_downloads,
                                open_page)
from viz_app.figures.attention import tile
from viz_app import loaders, sidebar
from viz_app.page import chart_key
from viz_app.figures.heatmap import safe_labels
from viz_app.sidebar import EXAMPLES

MODEL = "translate-en-fr"
SENTENCE = "the small girl does not see the red car"
GRID, HEAD, LINES, STATS = "explorer.grid", "explorer.head", "explorer.lines", "explorer.stats"  # the charts' names


def pattern(text, stack="encoder", layer=0, kind="self_attn", model=MODEL):
    return loaders.run(model, text).trace.attn(stack, layer, kind).pattern[0]  # [h, q, k]


def visible(z):
    """Cells the chart draws (NaN = empty)."""
    return ~np.isnan(z)


def test_grid_holds_every_head_and_the_enlarged_head_follows_the_sidebar():
    at = open_page("explorer", src=SENTENCE)
    assert_clean(at)
    run = loaders.run(MODEL, SENTENCE)
    heads = run.trace.attn("encoder", 0).pattern.shape[1]
    for layer in range(run.trace.n_layers("encoder")):
        p = run.trace.attn("encoder", layer).pattern[0]
        for h in range(heads):
            np.testing.assert_array_equal(grid_tile(at, GRID, layer, h), p[h])
    np.testing.assert_array_equal(named_z(at, HEAD), pattern(SENTENCE)[0])
    at.sidebar.selectbox(key="head").set_value(2).run()
    at.sidebar.selectbox(key="layer").set_value(1).run()
    assert_clean(at)
    np.testing.assert_array_equal(named_z(at, HEAD), pattern(SENTENCE, layer=1)[2])
    assert named_chart(at, HEAD)["data"][0]["y"] == safe_labels(run.src_labels)
    grid = named_chart(at, GRID)
    frame, (rows, cols) = grid["layout"]["shapes"][0], tile(grid["layout"]["meta"], 1, 2)
    assert frame["x0"] < cols.start < cols.stop - 1 < frame["x1"]  # the grid outlines the head shown
    assert frame["y0"] < rows.start < rows.stop - 1 < frame["y1"]


POINTS = PlotlyChart.SelectionMode.Value("POINTS")


def click(layer, head) -> dict:
    """What the browser sends when a grid cell is clicked: a point selection of that cell's marker."""
    point = {"curve_number": 0, "point_number": 0, "point_index": 0, "customdata": [layer, head]}
    return {"selection": {"points": [point], "point_indices": [0], "box": [], "lasso": []}}


def test_clicking_a_grid_cell_picks_that_head(monkeypatch):
    """The grid's on_select callback (a click itself needs a browser) makes the clicked head the sidebar's."""
    ss = {chart_key(GRID): click(2, 3), "layer": 0, "head": 1, "explorer.average": True}
    monkeypatch.setattr(sidebar.st, "session_state", ss)
    sidebar.pick_head(chart_key(GRID), "explorer.average")
    assert (ss["layer"], ss["head"]) == (2, 3)
    assert ss["explorer.average"] is False  # a clicked head is shown on its own
    for empty in ({"selection": {"points": []}}, {"selection": {"points": [{"point_index": 0}]}}):  # no cell
        ss.update({chart_key(GRID): empty, "layer": 1, "explorer.average": True})
        sidebar.pick_head(chart_key(GRID), "explorer.average")
        assert (ss["layer"], ss["head"], ss["explorer.average"]) == (1, 3, True)


def test_the_grid_answers_clicks_and_the_sidebar_head_is_enlarged():
    at = open_page("explorer", src=SENTENCE, layer=2, head=3)
    assert_clean(at)
    assert POINTS in chart(at, GRID).proto.selection_mode  # a click on a cell reruns the page with its point
    assert not chart(at, HEAD).proto.selection_mode
    np.testing.assert_array_equal(named_z(at, HEAD), pattern(SENTENCE, layer=2)[3])


def test_average_is_the_mean_over_the_layers_heads():
    at = open_page("explorer", src=SENTENCE, layer=1)
    at.checkbox(key="explorer.average").check().run()
    assert_clean(at)
    np.testing.assert_allclose(named_z(at, HEAD), pattern(SENTENCE, layer=1).mean(0), rtol=1e-6)


def drawn_lines(at) -> int:
    """Segments in the lines view: each is x = 0, 1, NaN."""
    return sum(len(decode(t["x"])) // 3 for t in named_chart(at, LINES)["data"] if t["mode"] == "lines")


def test_top_k_keeps_the_k_largest_cells_of_each_row():
    at = open_page("explorer", src=SENTENCE, head=1)
    at.number_input(key="explorer.top_k").set_value(3).run()
    assert_clean(at)
    z, p = named_z(at, HEAD), pattern(SENTENCE)[1]
    assert (visible(z).sum(1) == 3).all()
    for row, shown in zip(p, visible(z)):
        assert row[shown].min() >= row[~shown].max()
    np.testing.assert_array_equal(z[visible(z)], p[visible(z)])
    assert drawn_lines(at) == (visible(z) & (p >= 0.01)).sum()  # the lines follow the same filter


def test_threshold_hides_cells_below_it():
    at = open_page("explorer", src=SENTENCE)
    at.slider(key="explorer.threshold").set_value(0.1).run()
    assert_clean(at)
    z, p = named_z(at, HEAD), pattern(SENTENCE)[0]
    np.testing.assert_array_equal(visible(z), p >= np.float32(0.1))
    assert len(named_chart(at, HEAD)["data"]) == 1  # the encoder masks nothing: no grey layer
    assert drawn_lines(at) == visible(z).sum()


def test_query_window_shows_exactly_those_rows():
    at = open_page("explorer", src=SENTENCE)
    at.slider(key="explorer.window").set_value((3, 7)).run()
    assert_clean(at)
    run = loaders.run(MODEL, SENTENCE)
    np.testing.assert_array_equal(named_z(at, HEAD), pattern(SENTENCE)[0][3:8])
    assert named_chart(at, HEAD)["data"][0]["y"] == safe_labels(run.src_labels[3:8])
    left = [t for t in named_chart(at, LINES)["data"] if t["mode"] == "text"][0]
    assert left["text"] == safe_labels(run.src_labels[3:8])


def test_decoder_self_attention_shows_the_causal_mask_as_empty_cells():
    at = open_page("explorer", src=SENTENCE, layer=2, head=1, **{"explorer.kind": "decoder.self_attn"})
    assert_clean(at)
    p = pattern(SENTENCE, "decoder", 2)[1]
    z = named_z(at, HEAD)
    causal = np.tril(np.ones(p.shape, bool))
    np.testing.assert_array_equal(visible(z), causal)
    np.testing.assert_array_equal(z[causal], p[causal])
    grey = named_z(at, HEAD, trace=1)  # masked cells are painted grey, the rest left as drawn
    np.testing.assert_array_equal(grey, ~causal)


def test_cross_attention_reads_the_source():
    at = open_page("explorer", src=SENTENCE)
    at.selectbox(key="explorer.kind").set_value("decoder.cross_attn").run()
    assert_clean(at)
    run = loaders.run(MODEL, SENTENCE)
    np.testing.assert_array_equal(named_z(at, HEAD), pattern(SENTENCE, "decoder", 0, "cross_attn")[0])
    spec = named_chart(at, HEAD)["data"][0]
    assert spec["x"] == safe_labels(run.src_labels) and spec["y"] == safe_labels(run.tgt_labels)  # "<s>" as text
    columns = list(at.dataframe[0].value.columns)
    assert len(columns) == 5  # layer, head and three statistics: no previous-token score across sentences


def test_head_statistics_match_the_trace():
    at = open_page("explorer", src=SENTENCE, **{"explorer.kind": "decoder.self_attn"})
    assert_clean(at)
    run = loaders.run(MODEL, SENTENCE)
    table = at.dataframe[0].value
    heads = run.trace.attn("decoder", 0).pattern.shape[1]
    assert len(table) == run.trace.n_layers("decoder") * heads
    for _, row in table.iterrows():
        layer, head = int(row.iloc[0]), int(row.iloc[1])
        p = run.trace.attn("decoder", layer).pattern[0, head].astype(np.float64)
        n = len(p)
        entropy = np.mean([-sum(x * math.log(x) for x in r if x > 0) for r in p])
        distance = np.mean([sum(p[i, j] * abs(i - j) for j in range(n)) for i in range(n)])
        on_bos = np.mean(p[:, 0])  # <s> is the one special key of the decoder input
        previous = np.mean([p[i, i - 1] for i in range(1, n)])
        np.testing.assert_allclose(row.iloc[2:].to_numpy(float), [entropy, distance, on_bos, previous],
                                   rtol=1e-5, atol=1e-7)
    assert any("0·<s>" in c.value for c in at.caption)
    stat_z = named_z(at, STATS)  # the map shows the previous-token score by default
    np.testing.assert_allclose(stat_z.ravel(), table.iloc[:, 5].to_numpy(float), rtol=1e-6)


def long_text(model: str, n_tokens: int) -> str:
    tokenizer = loaders.load_model(model).tokenizers["src" if loaders.load_model(model).config.has_encoder else "tgt"]
    text = EXAMPLES[model]
    while len(tokenizer.encode(text)) < n_tokens:
        text += " " + EXAMPLES[model]
    return text


@pytest.mark.parametrize("model", [m for m in loaders.available_models() if m in EXAMPLES])
def test_long_input_stays_readable_and_light(model):
    text = long_text(model, 260)  # past translate-en-fr's max_len of 64: the loader cuts it and says so
    at = open_page("explorer", timeout=120, model=model, src=text)
    assert_clean(at)
    loaded = loaders.load_model(model)
    cfg = loaded.config
    run = loaders.run(model, text)
    n = len(run.src_labels or run.tgt_labels)
    assert n <= cfg.positions
    if len(loaded.tokenizers["src" if cfg.has_encoder else "tgt"].encode(text)) >= loaders.readable(cfg):
        assert any("only the first" in w.value for w in at.warning)
    assert len(chart(at, GRID).proto.spec) <= 1_000_000  # the JSON the browser receives
    assert at.slider(key="explorer.window").value == (0, min(n, 64) - 1)
    at.slider(key="explorer.window").set_value((n - 10, n - 1)).run()
    assert_clean(at)
    stack = "encoder" if cfg.has_encoder else "decoder"
    p = pattern(text, stack, model=model)[0][n - 10:]  # [10, n]
    masked = np.zeros(p.shape, bool) if stack == "encoder" else ~np.tril(np.ones((n, n), bool))[n - 10:]
    keys = slice(max(n - 128, 0), n)  # at most 128 keys: the last ones, which these last rows read
    p, masked = p[:, keys], masked[:, keys]
    z = named_z(at, HEAD)
    assert z.shape == (10, min(n, 128)) and np.isnan(z[masked]).all()
    np.testing.assert_array_equal(z[~masked], p[~masked])
    assert named_chart(at, HEAD)["data"][0]["x"] == safe_labels((run.src_labels or run.tgt_labels)[keys])


def test_grid_csv_has_every_weight_of_every_head():
    at, made = open_keeping_downloads("explorer", src=SENTENCE)
    assert_clean(at)
    rows = list(csv.reader(io.StringIO(made["explorer.grid.csv"]())))
    run = loaders.run(MODEL, SENTENCE)
    p = np.stack([run.trace.attn("encoder", i).pattern[0] for i in range(run.trace.n_layers("encoder"))])
    assert len(rows) == 1 + p.size
    layer, head, query, key, weight = rows[-1]
    assert (query, key) == (run.src_labels[-1], run.src_labels[-1])
    assert np.float32(weight) == p[int(layer), int(head), -1, -1]


def test_html_export_is_self_contained_and_escapes_the_sentence():
    at, made = open_keeping_downloads("explorer", src="the girl <script>alert(1)</script> sees")
    assert_clean(at)
    html = made["attention-explorer.html"]()
    assert "<script>alert(1)</script>" not in html
    assert "the girl &lt;script&gt;alert(1)&lt;/script&gt; sees" in html
    assert "Plotly.newPlot" in html and len(html) > 3_000_000  # plotly.js itself is in the file
    assert not re.search(r"<script[^>]*\bsrc\s*=", html, re.I) and "<link" not in html  # nothing fetched
    assert not re.search(r"""(src|href)\s*=\s*["']?//""", html)
    assert html.count('class="plotly-graph-div"') == 4 and "<table>" in html  # 4 charts and the statistics


def heads_lines(at) -> dict:
    """The heads' lines view's data, as its page carries it: {(head, query, key): weight} and its labels."""
    page = at.get("iframe")[0].proto.srcdoc
    d = json.loads(re.search(r"const D = (.*?);\n", page).group(1))
    return {tuple(line): w for line, w in zip(d["lines"], d["weights"])}, d["rows"], d["keys"], d["rowPos"]


def test_every_heads_lines_follow_the_layer_the_block_and_the_close_ups_rows_and_top_k():
    """BertViz's head view on the explorer: the sidebar's layer, the block picked, the close-up's rows and top-k;
    each line a weight of the model's own trace (the browser's pointer: tests/e2e/test_head_lines_browser.py)."""
    at = open_page("explorer", src=SENTENCE, layer=2, **{"explorer.kind": "decoder.cross_attn"})
    at.slider(key="explorer.window").set_value((1, 3)).run()
    at.number_input(key="explorer.top_k").set_value(2).run()
    assert_clean(at)
    run = loaders.run(MODEL, SENTENCE)
    p = run.trace.attn("decoder", 2, "cross_attn").pattern[0][:, 1:4]  # [heads, rows 1..3, source keys]
    expected = {}
    for h, q in np.ndindex(p.shape[:2]):
        for k in np.argsort(-p[h, q], kind="stable")[:2]:
            if p[h, q, k] >= 0.01:
                expected[(h, q, int(k))] = round(float(p[h, q, k]), 4)
    lines, rows, keys, positions = heads_lines(at)
    assert lines == expected
    assert rows == list(run.tgt_labels[1:4]) and keys == list(run.src_labels) and positions == [1, 2, 3]
