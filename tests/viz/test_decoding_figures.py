"""Decoding figures, without streamlit: bars, stacked rows, the alignment outline, the beam tree."""
from __future__ import annotations

import numpy as np
import plotly.colors
import pytest

from viz_app import text
from viz_app.figures import decoding as figs
from viz_app.views import decoding as view
from viz_app.figures.heatmap import ATTENTION_SCALE


def values(array_or_list):
    """Plotly keeps numpy arrays as given until serialized; compare them as float arrays."""
    return np.asarray(array_or_list, dtype=np.float64)


def test_softmax_matches_the_definition_and_survives_large_logits():
    logits = np.array([1000.0, 999.0, -5.0], dtype=np.float32)
    p = view.softmax(logits)
    expected = np.exp([1.0, 0.0, -1005.0]) / np.exp([1.0, 0.0, -1005.0]).sum()
    assert p.sum() == pytest.approx(1.0) and np.allclose(p, expected)


def test_stack_rows_leaves_future_keys_as_minus_inf():
    out = view.stack_rows([np.array([1.0]), np.array([0.25, 0.75]), np.array([0.2, 0.3, 0.5])])
    assert out.shape == (3, 3) and out.dtype == np.float32
    assert np.isneginf(out[0, 1:]).all() and np.isneginf(out[1, 2])
    assert np.array_equal(out[2], np.float32([0.2, 0.3, 0.5]))


def test_markdown_text_escapes_punctuation_only():
    assert text.markdown_text("3·*a*") == "3·\\*a\\*"
    assert text.markdown_text(":red[x] $y$") == "\\:red\\[x\\] \\$y\\$"
    assert text.markdown_text("chat") == "chat" and text.markdown_text("2·été") == "2·été"


def test_top_k_bars_draws_each_probability_most_likely_on_top_and_colours_the_chosen():
    fig = figs.top_k_bars(["le", "<la>", "un"], [0.5, 0.3, 0.1], chosen=1, title="T", x_title="p")
    (bar,) = fig.data
    assert bar.orientation == "h" and list(bar.y) == ["le", "&lt;la&gt;", "un"]
    assert np.allclose(values(bar.x), [0.5, 0.3, 0.1])
    assert bar.marker.color[1] == figs.CHOSEN and bar.marker.color[0] == bar.marker.color[2] == figs.OTHER
    assert fig.layout.yaxis.autorange == "reversed" and tuple(fig.layout.xaxis.range) == (0, 1)
    assert not fig.layout.showlegend


def test_top_k_bars_with_a_reference_adds_the_model_distribution_behind():
    fig = figs.top_k_bars(["a", "b"], [0.8, 0.2], chosen=-1, reference=[0.6, 0.3], names=("sampled", "model"))
    reference, sampled = fig.data
    assert reference.name == "model" and np.allclose(values(reference.x), [0.6, 0.3])
    assert sampled.name == "sampled" and figs.CHOSEN not in sampled.marker.color
    assert fig.layout.showlegend


def test_weight_bars_show_the_weights_on_the_shared_scale():
    fig = figs.weight_bars(["0·a", "1·b"], np.float32([0.25, 0.75]), "mean", "source", "weight")
    assert np.allclose(values(fig.data[0].y), [0.25, 0.75]) and list(fig.data[0].x) == ["0·a", "1·b"]
    assert tuple(fig.layout.yaxis.range) == (0, 1)


def test_alignment_shows_the_rows_and_outlines_the_current_step():
    rows = view.stack_rows([np.float32([1.0]), np.float32([0.4, 0.6])])
    fig = figs.alignment(rows, ["0·a", "1·b"], ["1·x", "2·y"], current=1, title="all")
    z = values(fig.data[0].z)
    assert np.isnan(z[0, 1]) and np.allclose(z[1], [0.4, 0.6])  # the future key is an empty cell
    assert fig.layout.coloraxis.cmin == 0 and fig.layout.coloraxis.cmax == 1
    colours = [colour for _, colour in fig.layout.coloraxis.colorscale]
    assert colours == [colour for _, colour in plotly.colors.get_colorscale(ATTENTION_SCALE)]
    (rect,) = fig.layout.shapes
    assert (rect.y0, rect.y1, rect.x0, rect.x1) == (0.5, 1.5, -0.5, 1.5)


# A hand-made tree: step 0 keeps two beams; step 1 extends beam 1 twice (one ends) and beam 0 once.
LABELS = [["le", "la"], ["chat", "</s>", "chien"]]
PARENTS = [[-1, -1], [1, 1, 0]]
SCORES = [[-0.5, -0.9], [-1.0, -1.2, -1.5]]
FINISHED = [[False, False], [False, True, False]]


def tree(best=(1, 1)):
    return figs.beam_tree(LABELS, SCORES, SCORES, PARENTS, FINISHED, best=list(best), root="<s>",
                          words=("score", "norm", "done"))


def test_best_path_follows_the_parents_back():
    assert view.best_path(PARENTS, (1, 0)) == [1, 0]
    assert view.best_path(PARENTS, (1, 2)) == [0, 2]
    assert view.best_path(PARENTS, (0, 1)) == [1]


def test_beam_tree_has_one_node_per_beam_linked_to_its_parent():
    fig = tree()
    nodes = fig.data[-1]
    assert list(zip(nodes.x, nodes.y)) == [(0, 0), (0, 1), (1, 0), (1, 1), (1, 2)]
    assert list(nodes.text) == ["le", "la", "chat", "&lt;/s&gt;", "chien"]
    assert list(nodes.marker.symbol) == ["circle"] * 3 + ["diamond", "circle"]
    segments = []
    for trace in fig.data[:2]:  # grey edges, then the best path's
        xs, ys = list(trace.x), list(trace.y)
        segments += [((xs[i], ys[i]), (xs[i + 1], ys[i + 1])) for i in range(0, len(xs), 3)]
    expected = {((-1, 0), (0, 0)), ((-1, 0), (0, 1)), ((0, 1), (1, 0)), ((0, 1), (1, 1)), ((0, 0), (1, 2))}
    assert set(segments) == expected and len(segments) == 5


def test_beam_tree_marks_the_best_path_and_says_what_ended():
    fig = tree(best=(1, 1))
    best_edges = fig.data[1]
    assert list(best_edges.x) == [-1, 0, None, 0, 1, None] and list(best_edges.y) == [0, 1, None, 1, 1, None]
    colors = list(fig.data[-1].marker.color)
    assert colors == [figs.OTHER, figs.CHOSEN, figs.OTHER, figs.CHOSEN, figs.OTHER]
    assert "done" in fig.data[-1].hovertext[3] and "done" not in fig.data[-1].hovertext[2]
    assert "-1.200" in fig.data[-1].hovertext[3]
    assert fig.layout.yaxis.autorange == "reversed"


def test_token_chips_escape_every_label_and_mark_the_chosen_one():
    chips = text.token_chips(["0·<s>", "1·*le*"], "2·[chat]")
    assert chips == ":gray-badge[0·\\<s\\>] :gray-badge[1·\\*le\\*] :orange-badge[**2·\\[chat\\]**]"
