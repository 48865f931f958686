"""The explorer's views on a tiny hand-made run: grid, hidden [CLS]/[SEP], focus filters, head statistics."""
import math

import numpy as np
import pytest

from tests.viz import fake
from tests.viz.fake import softmax_rows
from viz_app.views import explorer as view

SRC = ("0·[CLS]", "1·a", "2·b", "3·[SEP]")
TGT = ("0·<s>", "1·x", "2·y")
IDS = {"src_ids": (101, 7, 8, 102), "tgt_ids": (1, 5, 6)}
# Two layers of two heads; each block's patterns are the shared fake's: softmax_rows(seed = its place in fake.BLOCKS)
RUN = fake.run(layers=2, heads=2, src=SRC, tgt=TGT, attn=("pattern", "scores_masked"), **IDS)
ENC = softmax_rows((2, 2, 4, 4))  # [layers, heads, q, k]
DEC = softmax_rows((2, 2, 3, 3), seed=1, causal=True)
CROSS = softmax_rows((2, 2, 3, 4), seed=2)
CAUSAL = ~np.tril(np.ones((2, 3, 3), bool))  # [heads, q, k] blocked above the diagonal
FRAMED = view.Marks(np.array([True, False, False, True]),
                    (np.array([True, False, False, False]), np.array([False, False, False, True])))
PLAIN = view.Marks(np.array([True, False, False]), None)  # <s> is special; nothing frames the target
MARKS = {"src": FRAMED, "tgt": PLAIN}


def test_shown_leaves_out_the_frame_only_when_asked_and_framed():
    assert list(view.shown(FRAMED, True)) == [1, 2]
    assert list(view.shown(FRAMED, False)) == [0, 1, 2, 3]
    assert list(view.shown(PLAIN, True)) == [0, 1, 2]


def test_grid_stacks_every_layer_and_keeps_the_selection():
    g = view.grid(RUN, "encoder.self_attn", MARKS, False, 1, 0)
    np.testing.assert_array_equal(g.patterns, ENC)
    np.testing.assert_array_equal(g.every, ENC)
    assert (g.layer, g.head, g.hidden, g.n_q, g.kind) == (1, 0, False, 4, "self_attn")
    assert g.q_labels == SRC and g.k_labels == SRC
    assert not g.blocked.any() and g.blocked.shape == (2, 4, 4)


def test_grid_hides_cls_and_sep_from_what_is_drawn_not_from_every():
    g = view.grid(RUN, "encoder.self_attn", MARKS, True, 0, 1)
    np.testing.assert_array_equal(g.patterns, ENC[:, :, 1:3, 1:3])
    np.testing.assert_array_equal(g.every, ENC)
    assert g.hidden and g.q_labels == ("1·a", "2·b") and g.k_labels == ("1·a", "2·b")
    assert g.blocked.shape == (2, 2, 2)


def test_grid_clamps_the_layer_and_takes_that_layers_mask():
    g = view.grid(RUN, "decoder.self_attn", MARKS, True, 7, 1)  # the target is not framed: nothing hidden
    assert g.layer == 1 and not g.hidden and g.q_labels == TGT
    np.testing.assert_array_equal(g.blocked, CAUSAL)


def test_cross_attention_grid_has_target_queries_and_source_keys():
    g = view.grid(RUN, "decoder.cross_attn", MARKS, True, 0, 0)
    assert g.q_labels == TGT and g.k_labels == ("1·a", "2·b")
    np.testing.assert_array_equal(g.patterns, CROSS[..., 1:3])
    assert g.kind == "cross_attn"


def test_focus_is_one_head_over_the_window():
    g = view.grid(RUN, "decoder.self_attn", MARKS, False, 1, 1)
    f = view.focus(g, False, 0, 0.0, (1, 2))
    np.testing.assert_array_equal(f.weights, DEC[1, 1, 1:3])
    assert f.rows == TGT[1:3] and f.start == 1 and (f.layer, f.head) == (1, 1)
    assert f.title_key == "explorer.head_title"
    np.testing.assert_array_equal(f.kept, ~CAUSAL[1, 1:3])  # everything allowed is kept
    expected = np.where(CAUSAL[1, 1:3], -np.inf, DEC[1, 1, 1:3])
    np.testing.assert_array_equal(f.values, expected)


def test_focus_mean_over_heads_with_top_k_and_threshold():
    g = view.grid(RUN, "decoder.self_attn", MARKS, False, 0, 1)
    f = view.focus(g, True, 1, 0.2, (0, 2))
    mean = (DEC[0, 0] + DEC[0, 1]) / 2
    np.testing.assert_allclose(f.weights, mean, rtol=1e-6)
    top = mean == np.where(CAUSAL[0], -1, mean).max(1, keepdims=True)
    np.testing.assert_array_equal(f.kept, top & (mean >= 0.2))
    assert np.isneginf(f.values[CAUSAL[0]]).all()  # both heads are masked there
    assert np.isnan(f.values[~CAUSAL[0] & ~f.kept]).all()
    assert f.title_key == "explorer.mean_title"


def test_top_k_keeps_exactly_the_k_largest_of_each_row():
    w = softmax_rows((6, 10), seed=3)
    for k in (1, 3, 9):
        kept = view.filter_mask(w, top_k=k)
        assert (kept.sum(1) == k).all()
        for row, keep in zip(w, kept):
            assert row[keep].min() > row[~keep].max()
    assert view.filter_mask(w, top_k=0).all() and view.filter_mask(w, top_k=50).all()


def test_top_k_picks_only_allowed_keys():
    w = softmax_rows((5, 5), causal=True)
    allowed = np.tril(np.ones((5, 5), bool))
    kept = view.filter_mask(w, top_k=3, allowed=allowed)
    assert list(kept.sum(1)) == [1, 2, 3, 3, 3]
    assert not (kept & ~allowed).any()


def test_threshold_hides_cells_below_it():
    w = softmax_rows((6, 8), seed=1)
    kept = view.filter_mask(w, threshold=0.2)
    np.testing.assert_array_equal(kept, w >= 0.2)
    both = view.filter_mask(w, top_k=2, threshold=0.2)
    np.testing.assert_array_equal(both, view.filter_mask(w, top_k=2) & (w >= 0.2))


def test_top_k_ties_go_to_the_earlier_key():
    kept = view.filter_mask(np.array([[0.25, 0.25, 0.25, 0.25]]), top_k=2)
    assert kept.tolist() == [[True, True, False, False]]


def test_shown_values_mark_masked_and_filtered_cells_apart():
    w = np.array([[0.5, 0.3, 0.2]], np.float32)
    values = view.shown_values(w, np.array([[False, False, True]]), np.array([[True, False, False]]))
    assert values.dtype == np.float32 and values[0, 0] == np.float32(0.5)
    assert np.isnan(values[0, 1]) and np.isneginf(values[0, 2])


def test_query_window_helpers():
    assert view.first_window(3) == (0, 2) and view.first_window(500) == (0, view.WINDOW - 1)
    assert view.parse_window("(3, 7)") == (3, 7) and view.parse_window("3,7") == (3, 7)
    assert view.window_ok(8, (3, 7)) and view.window_ok(8, (0, 0))
    assert not any(view.window_ok(8, v) for v in ((5, 1), (0, 8), (-1, 2), (1, 2, 3), [1, 2], "1,2"))
    with pytest.raises(ValueError):
        view.parse_window("abc")


def previous_token(n):
    p = np.zeros((n, n), np.float32)
    p[np.arange(1, n), np.arange(n - 1)] = 1
    p[0, 0] = 1
    return p


def stats_run():
    """One layer, two heads of a 4-token framed sentence: a previous-token head and an even one."""
    heads = np.stack([previous_token(4), np.full((4, 4), 0.25, np.float32)])[None]  # [1, 2, 4, 4]
    values = {**fake.named("encoder.layers.0.self_attn", pattern=heads, scores_masked=np.zeros((1, 2, 4, 4))),
              **fake.named("decoder.layers.0.cross_attn", pattern=np.full((1, 2, 3, 4), 0.25, np.float32),
                           scores_masked=np.zeros((1, 2, 3, 4)))}
    return fake.run(values, src=SRC, tgt=TGT, **IDS)


def test_stats_of_every_head_at_every_position():
    run = stats_run()
    g = view.grid(run, "encoder.self_attn", MARKS, True, 0, 0)  # hidden in the charts, counted here
    s = view.stats(run, g, MARKS)
    assert list(s.values) == ["entropy", "distance", "special", "previous", "cls", "sep"]
    np.testing.assert_allclose(s.values["previous"], [[1.0, 0.25]])  # rows 1..3 of the first head read i−1
    np.testing.assert_allclose(s.values["entropy"], [[0.0, math.log(4)]], atol=1e-12)
    np.testing.assert_allclose(s.values["distance"], [[0.75, (6 / 4 + 4 / 4 + 4 / 4 + 6 / 4) / 4]])
    np.testing.assert_allclose(s.values["special"], [[0.5, 0.5]])  # row 0 and row 1 on [CLS]; two of four keys
    np.testing.assert_allclose(s.values["cls"], [[0.5, 0.25]])
    np.testing.assert_allclose(s.values["sep"], [[0.0, 0.25]])
    assert s.layer.tolist() == [0, 0] and s.head.tolist() == [0, 1]
    np.testing.assert_array_equal(s.column("previous"), [1.0, 0.25])
    assert s.special == ("0·[CLS]", "3·[SEP]") and not s.cross and s.default == "previous"
    assert s.label_keys["distance"] == "explorer.stat.distance"
    assert dict(s.peaks)["previous"][0] == (0, 0, 1.0)
    assert [name for name, _ in s.peaks] == ["previous", "cls", "sep", "special"]
    assert s.zrange("previous") == (0, 1) and s.zrange("entropy") is None


def test_cross_attention_stats_have_no_previous_token_score():
    run = stats_run()
    s = view.stats(run, view.grid(run, "decoder.cross_attn", MARKS, False, 0, 0), MARKS)
    assert "previous" not in s.values and s.cross and s.default == "entropy"
    assert s.label_keys["distance"] == "explorer.stat.distance.cross"
    # queries at 0, ½, 1 of the target spread evenly over keys at 0, ⅓, ⅔, 1 of the source
    expected = np.mean([np.mean([abs(i - j) for j in (0, 1 / 3, 2 / 3, 1)]) for i in (0, 0.5, 1)])
    np.testing.assert_allclose(s.values["distance"], [[expected, expected]])


def lines_as_cells(lines) -> dict:
    return {(int(h), int(q), int(k)): float(w) for h, q, k, w in zip(lines.head, lines.query, lines.key, lines.weight)}


def test_head_lines_are_every_heads_weights_of_the_layer_over_the_window_but_the_masked_and_the_faint():
    g = view.grid(RUN, "decoder.self_attn", MARKS, False, 1, 0)
    lines = view.head_lines(g, 0, 0.0, (1, 2))
    expected = {(h, q - 1, k): float(DEC[1, h, q, k]) for h in range(2) for q in (1, 2) for k in range(3)
                if k <= q and DEC[1, h, q, k] >= view.LINES_MIN}  # rows 1..2, no later key (the causal mask)
    assert lines_as_cells(lines) == pytest.approx(expected)
    assert (lines.n_heads, lines.rows, lines.start, lines.k_labels, lines.left_out) == (2, TGT[1:], 1, TGT, 0)


def test_head_lines_filter_each_heads_rows_as_the_close_up_does():
    g = view.grid(RUN, "encoder.self_attn", MARKS, False, 0, 0)
    lines = view.head_lines(g, 1, 0.0, (0, 3))  # top-1: each head's strongest key of each row
    assert lines_as_cells(lines) == pytest.approx({(h, q, int(ENC[0, h, q].argmax())): float(ENC[0, h, q].max())
                                                   for h in range(2) for q in range(4)})
    strong = view.head_lines(g, 0, 0.3, (0, 3))
    assert lines_as_cells(strong) == pytest.approx({(h, q, k): float(ENC[0, h, q, k]) for h in range(2)
                                                    for q in range(4) for k in range(4) if ENC[0, h, q, k] >= 0.3})


def test_head_lines_keep_the_strongest_and_count_the_rest_past_their_bound(monkeypatch):
    monkeypatch.setattr(view, "LINES_MAX", 5)
    g = view.grid(RUN, "encoder.self_attn", MARKS, False, 0, 0)
    lines = view.head_lines(g, 0, 0.0, (0, 3))
    every = np.sort(ENC[0][ENC[0] >= view.LINES_MIN])[::-1]
    assert lines.left_out == len(every) - 5
    np.testing.assert_allclose(np.sort(lines.weight)[::-1], every[:5])
    assert list(zip(lines.head, lines.query, lines.key)) == sorted(zip(lines.head, lines.query, lines.key))  # in order
