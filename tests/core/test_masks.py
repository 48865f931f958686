"""Masks: one convention (True = may attend), shapes that broadcast over [b, h, q, k], no NaN."""
from __future__ import annotations

import torch

from core_model.nn.masks import apply_mask, causal_mask, combine, masked_softmax, padding_mask

Y, N = True, False  # may attend, blocked


def test_padding_mask_allows_real_tokens_only():
    ids = torch.tensor([[7, 8, 9], [7, 0, 0]])
    mask = padding_mask(ids, pad_id=0)
    assert mask.shape == (2, 1, 1, 3)  # one row per sentence, shared by every head and query
    assert mask[:, 0, 0].tolist() == [[Y, Y, Y], [Y, N, N]]


def test_causal_mask_is_lower_triangular():
    assert causal_mask(3)[0, 0].tolist() == [[Y, N, N], [Y, Y, N], [Y, Y, Y]]


def test_causal_mask_with_offset_places_queries_after_the_cached_keys():
    # Two new queries at absolute positions 3 and 4, five keys: 0..3 then 0..4 are visible.
    mask = causal_mask(2, offset=3)
    assert mask.shape == (1, 1, 2, 5)
    assert mask[0, 0].tolist() == [[Y, Y, Y, Y, N], [Y, Y, Y, Y, Y]]
    # An explicit key length overrides q_len + offset (one step against a longer cache).
    assert causal_mask(1, 4, offset=3)[0, 0].tolist() == [[Y, Y, Y, Y]]


def test_combined_mask_allows_a_key_only_if_every_mask_does():
    ids = torch.tensor([[5, 6, 0]])
    mask = combine(causal_mask(3), None, padding_mask(ids, 0))
    assert mask.shape == (1, 1, 3, 3)
    # The pad key (column 2) is blocked even for the query that causality would let see it.
    assert mask[0, 0].tolist() == [[Y, N, N], [Y, Y, N], [Y, Y, N]]
    assert combine(None, None) is None


def test_blocked_scores_become_minus_infinity_and_get_exactly_zero_weight():
    scores = torch.tensor([[1.0, 2.0, 3.0]])
    masked = apply_mask(scores, torch.tensor([[Y, N, Y]]))
    assert masked.tolist() == [[1.0, float("-inf"), 3.0]]
    weights = masked_softmax(masked)
    assert weights[0, 1].item() == 0.0
    assert torch.allclose(weights[0, [0, 2]], torch.softmax(torch.tensor([1.0, 3.0]), -1))
    assert apply_mask(scores, None) is scores


def test_fully_blocked_row_gives_zero_weights_never_nan():
    scores = torch.randn(1, 2, 3, 4)
    mask = torch.ones(1, 1, 3, 4, dtype=torch.bool)
    mask[..., 1, :] = False  # query 1 may attend to nothing
    weights = masked_softmax(apply_mask(scores, mask))
    assert not weights.isnan().any()
    assert torch.equal(weights[:, :, 1], torch.zeros(1, 2, 4))
    # The other rows are still proper distributions.
    assert torch.allclose(weights[:, :, [0, 2]].sum(-1), torch.ones(1, 2, 2))


def test_softmax_told_the_mask_finds_the_same_blocked_rows_as_a_scan_of_the_scores():
    scores = torch.randn(2, 3, 4, 5)
    mask = torch.rand(2, 1, 4, 5) > 0.4
    mask[0, 0, 2] = False  # a row with nothing allowed
    masked = apply_mask(scores, mask)
    assert torch.equal(masked_softmax(masked, mask), masked_softmax(masked))
    assert torch.equal(masked_softmax(masked, mask)[0, :, 2], torch.zeros(3, 5))
    everything = torch.ones(1, 1, 1, 5, dtype=torch.bool)
    assert apply_mask(scores, everything) is scores  # nothing blocked, nothing copied
    assert torch.equal(masked_softmax(scores, everything), torch.softmax(scores, -1))
