"""Mask figures: two-colour grids that equal the masks, padded tables, weight on padding."""
import numpy as np
import torch

from core_model.nn import masks
from viz_app.figures.heatmap import matrix
from viz_app.figures.masks import ALLOWED_COLOUR, BLOCKED_COLOUR, PAD_STYLE, mask_figure, pad_weight_bars, padded_table

IDS = torch.tensor([[5, 6, 7, 8], [9, 10, 0, 0]])  # sentence 2 padded with pad_id 0


def test_mask_figure_draws_the_mask_as_ones_and_zeros_with_a_two_entry_legend():
    mask = masks.combine(masks.causal_mask(4), masks.padding_mask(IDS, 0))[1, 0].numpy()  # [q, k]
    fig = mask_figure(mask, list("abcd"), list("wxyz"), "combined", "may attend", "blocked", "key", "query")
    heat = fig.data[0]
    assert np.array_equal(np.asarray(heat.z), mask.astype(np.float32))
    assert np.array_equal(heat.customdata == "may attend", mask)
    assert (fig.layout.coloraxis.cmin, fig.layout.coloraxis.cmax) == (0, 1)
    colours = [c for _, c in fig.layout.coloraxis.colorscale]
    assert colours[0] == BLOCKED_COLOUR and colours[-1] == ALLOWED_COLOUR
    assert list(fig.layout.coloraxis.colorbar.ticktext) == ["blocked", "may attend"]
    assert fig.layout.xaxis.title.text == "key" and fig.layout.yaxis.title.text == "query"
    assert list(heat.y) == list("wxyz")  # row 0 (the first query) on top, as in every matrix


def test_mask_labels_are_escaped():
    fig = mask_figure(np.ones((1, 1), bool), ["<pad>"], ["<b>x</b>"], "", "ok", "no")
    assert list(fig.data[0].x) == ["&lt;pad&gt;"] and list(fig.data[0].y) == ["&lt;b&gt;x&lt;/b&gt;"]


def test_padded_table_keeps_the_ids_and_greys_exactly_the_pad_cells():
    styler = padded_table(IDS.numpy(), IDS.numpy() == 0, ["s1", "s2"])
    assert np.array_equal(styler.data.to_numpy(), IDS.numpy())
    assert list(styler.data.columns) == ["0", "1", "2", "3"] and list(styler.data.index) == ["s1", "s2"]
    styler._compute()  # fills styler.ctx: {(row, col): [(css property, value), ...]}
    styled = {cell for cell, css in styler.ctx.items() if css}
    assert styled == {(1, 2), (1, 3)}
    assert "; ".join(f"{k}: {v}" for k, v in styler.ctx[(1, 2)]) == PAD_STYLE


def test_pad_weight_bars_show_one_bar_per_query_row_on_a_0_to_1_axis():
    fig = pad_weight_bars([0.0, 0.25, 0.5], ["0·a", "1·<pad>", "2·<pad>"], [False, True, True], "on <pad>", "w", "q")
    bar = fig.data[0]
    assert fig.layout.title.text == "on &lt;pad&gt;" and list(bar.text) == ["0.000", "0.250", "0.500"]
    assert np.allclose(np.asarray(bar.x), [0, 0.25, 0.5]) and list(bar.y) == ["0·a", "1·&lt;pad&gt;", "2·&lt;pad&gt;"]
    assert list(bar.marker.color) == [ALLOWED_COLOUR, BLOCKED_COLOUR, BLOCKED_COLOUR]
    assert tuple(fig.layout.xaxis.range) == (0, 1) and fig.layout.yaxis.autorange == "reversed"


def test_masked_scores_show_blocked_cells_empty():
    scores = torch.randn(1, 1, 4, 4)
    masked = masks.apply_mask(scores, masks.padding_mask(IDS[1:], 0))[0, 0].numpy()
    z = np.asarray(matrix(masked).data[0].z, dtype=np.float32)
    assert np.array_equal(np.isnan(z), np.isneginf(masked))
    assert np.isnan(z[:, 2:]).all() and np.isfinite(z[:, :2]).all()


def test_a_mask_keeps_square_cells_with_its_key_under_it_however_narrow_its_column():
    """Three decoder masks side by side were squeezed into strips by a colour bar beside each: cells are square
    now (y scaled to x) and the two-colour key is a row at the figure's foot."""
    fig = mask_figure(np.tril(np.ones((10, 10), bool)), list("abcdefghij"), list("abcdefghij"), "causal", "may",
                      "no")
    assert fig.layout.yaxis.scaleanchor == "x" and fig.layout.yaxis.scaleratio == 1
    bar = fig.layout.coloraxis.colorbar
    assert (bar.orientation, bar.yref, bar.y, bar.yanchor) == ("h", "container", 0, "bottom")
    assert fig.layout.height >= 200 + 24 * 10  # room for ten rows of labels
