"""Attention against torch's own: F.scaled_dot_product_attention and nn.MultiheadAttention.

Mask conventions differ, which is the easiest thing to get wrong here: ours and sdpa's boolean
attn_mask say True = may attend; nn.MultiheadAttention's attn_mask and key_padding_mask say
True = blocked.
"""
from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from core_model.nn.attention import MultiHeadAttention, attention
from core_model.nn.masks import causal_mask, padding_mask
from tests.tolerance import assert_activations_close

B, H, D_HEAD, D_MODEL = 2, 4, 8, 32
PAD = 0
# Second sentence is two tokens shorter: its last two keys are padding.
SRC_IDS = torch.tensor([[5, 6, 7, 8, 9], [5, 6, 7, PAD, PAD]])


def masks(case: str, q_len: int, k_len: int) -> torch.Tensor | None:
    """Our mask (True = may attend) for each case; every query keeps at least one key."""
    if case == "none":
        return None
    if case == "causal":
        return causal_mask(q_len, k_len)
    assert k_len == SRC_IDS.shape[1]
    return padding_mask(SRC_IDS, PAD)  # "padding" and "cross" both mask the padded keys


CASES = {  # case → (query length, key length); cross-attention has q_len ≠ k_len
    "none": (5, 5), "causal": (5, 5), "padding": (5, 5), "cross": (3, 5),
}


def heads(n: int) -> torch.Tensor:
    return torch.randn(B, H, n, D_HEAD)  # [b, h, n, d_head]


@pytest.mark.parametrize("case", CASES)
def test_attention_function_matches_sdpa(case):
    q_len, k_len = CASES[case]
    q, k, v = heads(q_len), heads(k_len), heads(k_len)
    mask = masks(case, q_len, k_len)
    z, weights = attention(q, k, v, mask)
    assert_activations_close(z, F.scaled_dot_product_attention(q, k, v, attn_mask=mask))
    # sdpa returns no weights, but attending over the identity matrix as values hands them back.
    eye = torch.eye(k_len).expand(B, H, k_len, k_len)
    assert torch.allclose(weights, F.scaled_dot_product_attention(q, k, eye, attn_mask=mask), atol=1e-6)


def test_unscaled_attention_matches_sdpa_with_scale_one():
    q, k, v = heads(4), heads(4), heads(4)
    z, _ = attention(q, k, v, scale=False)
    assert_activations_close(z, F.scaled_dot_product_attention(q, k, v, scale=1.0))
    # Unscaled scores are √d_head times sharper, so the two patterns must differ.
    assert not torch.allclose(z, attention(q, k, v)[0], atol=1e-3)


def test_position_bias_is_added_before_the_mask_as_in_sdpa():
    # ALiBi-style additive bias plus a causal mask: sdpa takes both as one float mask.
    q, k, v = heads(5), heads(5), heads(5)
    bias = torch.randn(1, H, 5, 5)
    mask = causal_mask(5)
    z, _ = attention(q, k, v, mask, bias)
    float_mask = bias.masked_fill(~mask, float("-inf"))
    assert_activations_close(z, F.scaled_dot_product_attention(q, k, v, attn_mask=float_mask))


def mha_pair(bias: bool = True) -> tuple[MultiHeadAttention, nn.MultiheadAttention]:
    ours = MultiHeadAttention(D_MODEL, H, bias=bias)
    ref = nn.MultiheadAttention(D_MODEL, H, bias=bias, batch_first=True)
    return ours, ref


def torch_masks(case: str, q_len: int, k_len: int) -> dict:
    """The same masks in nn.MultiheadAttention's terms (True = blocked)."""
    if case == "causal":
        return {"attn_mask": ~causal_mask(q_len, k_len)[0, 0]}  # [q, k]
    if case in ("padding", "cross"):
        return {"key_padding_mask": SRC_IDS == PAD}  # [b, k]
    return {}


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("case", CASES)
def test_module_matches_nn_multihead_attention(case, bias, copy_from_torch):
    ours, ref = mha_pair(bias)
    copy_from_torch(ours, ref)
    q_len, k_len = CASES[case]
    x = torch.randn(B, q_len, D_MODEL)
    memory = torch.randn(B, k_len, D_MODEL) if case == "cross" else None
    kv = x if memory is None else memory
    with torch.no_grad():
        out, weights = ours(x, memory, mask=masks(case, q_len, k_len))
        ref_out, ref_weights = ref(x, kv, kv, need_weights=True, average_attn_weights=False,
                                   **torch_masks(case, q_len, k_len))
    assert weights.shape == ref_weights.shape == (B, H, q_len, k_len)
    assert torch.allclose(weights, ref_weights, atol=1e-6)  # weights are 0..1: an absolute bound suits them
    assert_activations_close(out, ref_out)


def test_fully_blocked_row_gives_zero_weights_not_nan():
    q, k, v = heads(3), heads(3), heads(3)
    mask = torch.ones(B, 1, 3, 3, dtype=torch.bool)
    mask[1, :, 2] = False  # query 2 of sentence 1 may see nothing
    z, weights = attention(q, k, v, mask)
    assert not weights.isnan().any() and not z.isnan().any()
    assert torch.equal(weights[1, :, 2], torch.zeros(H, 3))
    assert torch.equal(z[1, :, 2], torch.zeros(H, D_HEAD))
    # Every other row is untouched by the dead one.
    assert torch.allclose(weights[1, :, :2], attention(q, k, v)[1][1, :, :2])


def test_fully_padded_sentence_outputs_only_the_output_bias():
    # With every key blocked, z is 0, so what leaves the block is W_O·0 + b = b: finite, explainable.
    ours = MultiHeadAttention(D_MODEL, H).eval()
    ids = torch.tensor([[4, 5, 6], [PAD, PAD, PAD]])
    with torch.no_grad():
        out, weights = ours(torch.randn(2, 3, D_MODEL), mask=padding_mask(ids, PAD))
    assert torch.equal(weights[1], torch.zeros(H, 3, 3))
    assert torch.equal(out[1], ours.out_proj.bias.detach().expand(3, D_MODEL))
    assert torch.allclose(weights[0].sum(-1), torch.ones(H, 3))


def test_heads_use_their_own_slice_of_the_projections():
    # Head h reads columns h·d_head … (h+1)·d_head of Q and K: check one score by hand.
    ours = MultiHeadAttention(D_MODEL, H).eval()
    x = torch.randn(1, 4, D_MODEL)
    with torch.no_grad():
        _, weights = ours(x)
        h = 2
        cols = slice(h * D_HEAD, (h + 1) * D_HEAD)
        q, k = ours.q_proj(x)[0, :, cols], ours.k_proj(x)[0, :, cols]  # [pos, d_head]
        expected = torch.softmax(q @ k.T / math.sqrt(D_HEAD), dim=-1)
    assert torch.allclose(weights[0, h], expected, atol=1e-6)


@pytest.mark.parametrize("positional", ["none", "rope", "alibi"])
def test_cached_steps_match_one_full_causal_pass(positional):
    # Decoding feeds one token at a time and keeps K, V in a cache; RoPE and ALiBi must then
    # use absolute positions (`start`), or step t would be treated as position 0.
    self_attn = MultiHeadAttention(D_MODEL, H, positional=positional).eval()
    cross_attn = MultiHeadAttention(D_MODEL, H).eval()
    t_len = 6
    x, memory = torch.randn(B, t_len, D_MODEL), torch.randn(B, 5, D_MODEL)
    memory_mask = padding_mask(SRC_IDS, PAD)
    with torch.no_grad():
        full_self, _ = self_attn(x, mask=causal_mask(t_len))
        full_cross, _ = cross_attn(x, memory, memory_mask)
        self_cache, cross_cache, steps_self, steps_cross = {}, {}, [], []
        for t in range(t_len):
            step = x[:, t:t + 1]
            mask = causal_mask(1, t + 1, offset=t)  # the new token sees itself and every cached one
            steps_self.append(self_attn(step, mask=mask, start=t, cache=self_cache)[0])
            steps_cross.append(cross_attn(step, memory, memory_mask, cache=cross_cache)[0])
    assert self_cache["k"].shape == (B, H, t_len, D_HEAD)
    assert cross_cache["k"].shape == (B, H, 5, D_HEAD)  # computed once, not appended per step
    assert_activations_close(torch.cat(steps_self, dim=1), full_self)
    assert_activations_close(torch.cat(steps_cross, dim=1), full_cross)


def test_a_block_trained_without_the_scale_takes_the_softmax_of_q_dot_k():
    ours = MultiHeadAttention(D_MODEL, H, scaled=False).eval()
    x = torch.randn(1, 4, D_MODEL)
    with torch.no_grad():
        _, weights = ours(x)
    q, k = ours.split(ours.q_proj(x)), ours.split(ours.k_proj(x))
    want = torch.softmax(q @ k.transpose(-2, -1), -1)  # no 1/√d_k
    assert torch.allclose(weights, want, atol=1e-6)
    assert not torch.allclose(weights, torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(D_HEAD), -1), atol=1e-3)
