"""Explorer figures without streamlit: grid, enlarged head, lines, statistics map (and their CSV)."""
import csv
import io
import json

import numpy as np
import plotly.io
import pytest

from tests.app.conftest import decode
from viz_app.export import grid_csv, lines_csv
from viz_app.figures import attention as fa
from viz_app.views import explorer as view
from tests.viz.fake import softmax_rows


def spec(fig) -> dict:
    return json.loads(plotly.io.to_json(fig, validate=False))  # what st.plotly_chart sends


NAMES = dict(layer_names=["L0", "L1", "L2"], head_names=["H0", "H1", "H2", "H3"], hint="layer {layer}, head {head}")


def test_grid_tiles_each_heads_weights_exactly_in_one_heatmap():
    p = softmax_rows((3, 4, 9, 9))
    fig = fa.grid(p, **NAMES)
    heat, targets = spec(fig)["data"]  # one heatmap for all heads, one trace of click targets
    assert heat["type"] == "heatmap" and heat["coloraxis"] == "coloraxis"
    assert "customdata" not in heat and "text" not in heat  # nothing per cell beyond z
    z = decode(heat["z"])
    meta = fig.layout.meta
    drawn = np.zeros(z.shape, bool)
    for layer in range(3):
        for head in range(4):
            rows, cols = fa.tile(meta, layer, head)
            np.testing.assert_array_equal(z[rows, cols], p[layer, head])
            drawn[rows, cols] = True
            i = layer * 4 + head
            assert targets["customdata"][i] == [layer, head]
            assert rows.start <= targets["y"][i] < rows.stop and cols.start <= targets["x"][i] < cols.stop
            assert targets["text"][i] == f"layer {layer}, head {head}"
    assert np.isnan(z[~drawn]).all() and (~drawn).any()  # the gaps between tiles are empty, not 0


def test_grid_layout_shared_scale_and_selected_frame():
    fig = fa.grid(softmax_rows((3, 4, 5, 5)), selected=(2, 1), **NAMES)
    layout = spec(fig)["layout"]
    assert (layout["coloraxis"]["cmin"], layout["coloraxis"]["cmax"]) == (0, 1)
    assert layout["hoverdistance"] == -1  # a click anywhere reaches the nearest target marker
    (frame,) = layout["shapes"]
    rows, cols = fa.tile(fig.layout.meta, 2, 1)
    assert frame["x0"] < cols.start and frame["x1"] > cols.stop - 1  # around head (2, 1)'s tile, only it
    assert frame["y0"] < rows.start and frame["y1"] > rows.stop - 1
    assert frame["x0"] > cols.start - fig.layout.meta["gap"] - 0.5
    titles = [a["text"] for a in layout["annotations"]]
    assert set(NAMES["layer_names"] + NAMES["head_names"]) <= set(titles)


@pytest.mark.parametrize("layers, heads, n, block", [(3, 4, 250, 3), (1, 1, 2048, 8)])
def test_long_input_is_pooled_by_block_maximum(layers, heads, n, block):
    p = softmax_rows((layers, heads, n, n), causal=True)
    names = dict(NAMES, layer_names=NAMES["layer_names"][:layers], head_names=NAMES["head_names"][:heads])
    fig = fa.grid(p, **names)
    assert fig.layout.meta["block"] == fa.grid_block(layers * heads, n, n) == block  # 2,048: a tile ≤ 256²
    z = decode(spec(fig)["data"][0]["z"])
    layer, head = layers - 1, heads // 2
    rows, cols = fa.tile(fig.layout.meta, layer, head)
    side = -(-n // block)
    assert (rows.stop - rows.start, cols.stop - cols.start) == (side, side) and side <= fa.GRID_SIDE
    expected = np.array([[p[layer, head, i * block:(i + 1) * block, j * block:(j + 1) * block].max()
                          for j in range(side)] for i in range(side)])
    np.testing.assert_array_equal(z[rows, cols], expected)


@pytest.mark.parametrize("layers, heads, n",
                         [(3, 4, 64), (3, 4, 128), (3, 4, 256), (6, 8, 256), (12, 12, 384), (2, 2, 1024), (3, 4, 2048)])
@pytest.mark.parametrize("values", ["causal", "near_one"])
def test_grid_payload_stays_small(layers, heads, n, values):
    rng = np.random.default_rng(0)
    if values == "causal":
        p = np.tril(rng.random((layers, heads, n, n), dtype=np.float32))
    else:  # weights just under 1 are the worst case: their base64 is full of "/", which JSON writes as 6 bytes
        p = 1 - rng.random((layers, heads, n, n), dtype=np.float32) * 1e-3
    names = [f"L{i}" for i in range(layers)], [f"H{i}" for i in range(heads)]
    size = len(plotly.io.to_json(fa.grid(p, *names, "{layer}/{head}", selected=(0, 0)), validate=False))
    assert size <= (1_000_000 if values == "causal" else 2_000_000)  # 2 MB: a websocket message's limit


def test_head_view_shows_masked_cells_grey_and_filtered_cells_blank():
    w = softmax_rows((4, 4), causal=True)
    blocked = ~np.tril(np.ones((4, 4), bool))
    kept = view.filter_mask(w, threshold=0.3, allowed=~blocked)
    values = view.shown_values(w, blocked, kept)
    fig = spec(fa.head_view(values, list("abcd"), list("abcd"), "t"))
    weights, grey = fig["data"]
    z = decode(weights["z"])
    np.testing.assert_array_equal(z[kept], w[kept])
    assert np.isnan(z[~kept]).all()  # neither kind of empty cell is drawn as a 0
    assert weights["hoverongaps"] is False and "customdata" not in weights  # nothing sent per cell but z
    assert (fig["layout"]["coloraxis"]["cmin"], fig["layout"]["coloraxis"]["cmax"]) == (0, 1)
    paint = decode(grey["z"])
    assert paint.dtype == np.uint8 and grey["hoverinfo"] == "skip" and grey["x"] == weights["x"]
    np.testing.assert_array_equal(paint, blocked)  # grey exactly where masked; filtered cells stay blank
    assert grey["colorscale"][0][1] == "rgba(0,0,0,0)"


def test_head_view_without_masked_cells_has_one_trace():
    w = softmax_rows((3, 3))
    values = view.shown_values(w, np.zeros((3, 3), bool), np.ones((3, 3), bool))
    fig = spec(fa.head_view(values, list("abc"), list("abc"), "t"))
    assert len(fig["data"]) == 1
    np.testing.assert_array_equal(decode(fig["data"][0]["z"]), w)


def test_head_view_payload_is_the_weights_only():
    n = 320
    w = np.tril(softmax_rows((n, n), causal=True))
    kept = view.filter_mask(w, top_k=2, allowed=np.tril(np.ones((n, n), bool)))
    fig = fa.head_view(view.shown_values(w, ~np.tril(np.ones((n, n), bool)), kept), range(n), range(n), "t")
    raw = n * n * (4 + 1)  # float32 weights and the uint8 mask layer
    assert len(plotly.io.to_json(fig, validate=False)) < 2 * raw  # base64 and JSON escapes, no per-cell text


def segments(fig):
    """(query position, key position, opacity, width) of every drawn line."""
    out = []
    for trace in spec(fig)["data"]:
        if trace["mode"] != "lines":
            continue
        xs, ys = decode(trace["x"]), decode(trace["y"])
        for s in range(0, len(xs), 3):
            assert (xs[s], xs[s + 1]) == (0, 1) and np.isnan(xs[s + 2]) and np.isnan(ys[s + 2])
            out.append((-ys[s], -ys[s + 1], trace["opacity"], trace["line"]["width"]))
    return out


def test_lines_draw_the_kept_cells_with_opacity_by_weight():
    w = softmax_rows((5, 7), seed=2)
    kept = view.filter_mask(w, top_k=2)
    fig = fa.lines(w, kept, [f"q{i}" for i in range(5)], [f"k{j}" for j in range(7)], q_start=10)
    drawn = segments(fig)
    expected = {(i + 10, j) for i, j in zip(*np.nonzero(kept & (w >= 0.01)))}
    assert {(q, k) for q, k, _, _ in drawn} == expected and len(drawn) == len(expected)
    by_weight = sorted((w[int(q) - 10, int(k)], o, width) for q, k, o, width in drawn)
    assert [o for _, o, _ in by_weight] == sorted(o for _, o, _ in by_weight)  # heavier → more opaque
    assert [x for _, _, x in by_weight] == sorted(x for _, _, x in by_weight)  # and thicker
    assert len([t for t in spec(fig)["data"] if t["mode"] == "lines"]) <= fa.LINE_BUCKETS


def test_lines_escape_labels_and_list_the_reached_keys():
    w = np.zeros((2, 6), np.float32)
    w[0, 2], w[1, 4] = 1, 1
    fig = spec(fa.lines(w, w > 0, ["<b>q</b>", "q1"], [f"k{j}" for j in range(6)]))
    texts = [t["text"] for t in fig["data"] if t["mode"] == "text"]
    assert texts[0] == ["&lt;b&gt;q&lt;/b&gt;", "q1"]
    assert texts[1] == ["k0", "k1", "k2", "k3", "k4"]  # queries start at 0, so keys 0..4


def test_lines_for_queries_past_the_last_key():
    # cross-attention: decoder positions 8..9 read a 3-token source
    w = np.array([[0.0, 0.2, 0.8], [1.0, 0.0, 0.0]], np.float32)
    fig = spec(fa.lines(w, w > 0, ["q8", "q9"], ["k0", "k1", "k2"], q_start=8))
    texts = [t for t in fig["data"] if t["mode"] == "text"]
    assert texts[1]["text"] == ["k0", "k1", "k2"] and list(decode(texts[0]["y"])) == [-8, -9]
    assert fig["layout"]["yaxis"]["range"] == [-9.7, 0.7]  # every token on screen
    assert {(q, k) for q, k, _, _ in segments(fa.lines(w, w > 0, ["q8", "q9"], ["k0", "k1", "k2"], 8))} == \
        {(8, 1), (8, 2), (9, 0)}


def test_lines_csv_and_grid_csv():
    w = softmax_rows((3, 4), seed=5)
    kept = view.filter_mask(w, top_k=1)
    rows = list(csv.reader(io.StringIO(lines_csv(w, kept, ["a", "b", "c"], list("wxyz"), ["q", "k", "w"]))))
    assert rows[0] == ["q", "k", "w"] and len(rows) == 4
    for q, k, weight in rows[1:]:
        assert np.float32(weight) == w["abc".index(q), "wxyz".index(k)]
    p = softmax_rows((2, 3, 4, 5))
    rows = list(csv.reader(io.StringIO(grid_csv(p, list("abcd"), list("vwxyz"), list("LHqkw")))))
    assert len(rows) == 1 + p.size
    l, h, q, k, weight = rows[-1]
    assert (l, h, q, k) == ("1", "2", "d", "z") and np.float32(weight) == p[1, 2, 3, 4]
    pooled = list(csv.reader(io.StringIO(grid_csv(p, list("abcd"), list("vwxyz"), list("LHqkw"), block=2))))
    assert len(pooled) == 1 + 2 * 3 * 2 * 3  # what the grid draws: 2 × 3 cells per head
    l, h, q, k, weight = pooled[-1]
    assert (q, k) == ("c … d", "z") and np.float32(weight) == p[1, 2, 2:, 4:].max()


def test_stat_map_shows_the_values_on_layers_by_heads():
    v = np.arange(12, dtype=np.float32).reshape(3, 4) / 12
    fig = spec(fa.stat_map(v, NAMES["layer_names"], NAMES["head_names"], "previous", zrange=(0, 1)))
    np.testing.assert_array_equal(decode(fig["data"][0]["z"]), v)
    assert fig["data"][0]["x"] == NAMES["head_names"] and fig["data"][0]["y"] == NAMES["layer_names"]


def test_pool_max_and_grid_block():
    w = np.arange(9, dtype=np.float32).reshape(3, 3)
    np.testing.assert_array_equal(fa.pool_max(w, 2), [[4, 5], [7, 8]])
    np.testing.assert_array_equal(fa.pool_max(w, 1), w)
    heads = np.random.default_rng(0).random((2, 5, 7), dtype=np.float32)  # uneven both ways, with a leading axis
    want = [[[heads[h, r:r + 3, c:c + 3].max() for c in range(0, 7, 3)] for r in range(0, 5, 3)] for h in range(2)]
    np.testing.assert_array_equal(fa.pool_max(heads, 3), want)
    assert fa.grid_block(12, 250, 250) == 3  # 100 000 // 12 = 8333 cells a head: √(62 500 / 8333) → 3
    assert fa.grid_block(1, 10, 10) == 1


def test_a_long_matrix_is_drawn_with_its_rows_averaged_in_labelled_blocks():
    from viz_app.figures import heatmap

    rng = np.random.default_rng(1)
    z = rng.normal(size=(2048, 256)).astype(np.float32)
    z[2, 3] = -np.inf
    labels = [f"{i}·t" for i in range(2048)]
    fig = spec(heatmap.matrix(z, None, labels, "t"))
    drawn, y = decode(fig["data"][0]["z"]), fig["data"][0]["y"]
    block = -(-z.size // heatmap.MAX_CELLS)
    assert drawn.shape == (-(-2048 // block), 256) and drawn.size <= heatmap.MAX_CELLS
    np.testing.assert_allclose(drawn[1], z[block:2 * block].mean(0), rtol=1e-6)  # each row: the mean of its block
    assert np.isnan(drawn[0, 3])  # a block holding a blocked (-inf) cell shows it blocked (empty)
    assert y[1] == f"{block}·t … {2 * block - 1}·t" and y[-1].endswith("2047·t")
    small = spec(heatmap.matrix(z[:64], None, labels[:64], "t"))
    np.testing.assert_array_equal(decode(small["data"][0]["z"])[10], z[10])  # short: every row as it is


def test_the_grid_s_head_names_alternate_between_two_lines_from_nine_heads():
    from viz_app.figures.attention import STAGGER, grid

    def lifts(n_heads):
        fig = grid(np.full((2, n_heads, 3, 3), 0.5, np.float32), ["L0", "L1"], [f"head {h}" for h in range(n_heads)],
                   "{layer} {head}")
        return [a.yshift or 0 for a in fig.layout.annotations if a.text.startswith("head")]

    assert lifts(4) == [0] * 4
    assert lifts(12) == [0, STAGGER] * 6  # MiniLM's twelve: each line's names are two tiles apart
