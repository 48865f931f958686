"""Multi-head attention that hands back its weights; each step is recorded by the trace's hook beside it."""
from __future__ import annotations

import functools
import math

import torch
from torch import nn

from ..trace.attention_points import AttentionPoints
from ..trace.hook_points import active, heads_product, record, record_call, scale_scores
from ..trace.names import ATTN_LEAVES
from .masks import apply_mask, blocked, masked_softmax, query_blocks
from .positional import NO_SCALING, RopeScaling, alibi_bias_range, rope_table, rope_turn


def attention(q, k, v, mask=None, bias=None, scale=True, dropout=None, hook=None):
    """Scaled dot-product attention, the paper's equation (1): softmax(Q Kᵀ / √d_k + bias, masked) V.

    q [b, h, q, d_k]; k and v [b, kv, k, d_k], kv = h, or each key/value head shared by h / kv consecutive query heads
    (grouped-query attention: heads_product); mask (True = may attend) and bias (ALiBi's, or None) broadcast to
    [b, h, q, k]. Returns (z [b, h, q, d_k], weights [b, h, q, k]). `hook(leaf, value)` sees the split
    points a teacher shows one by one and hands back the value to go on with (the trace's AttentionPoints); the steps
    work in place on the scores, so a hook that keeps a step's value keeps a copy.
    """
    see = hook or _as_is
    scores = see("scores", heads_product(q, k.transpose(-2, -1)))  # Q Kᵀ [b, h, q, k]
    if scale:
        scores = scores.div_(math.sqrt(q.shape[-1]))  # each step overwrites the scores (see below)
    if bias is not None:
        scores = scores.add_(bias)
    scores = see("scores_scaled", scores)
    scores = see("scores_masked", apply_mask(scores, mask, in_place=True))  # -inf where a query may not look
    weights = see("pattern", masked_softmax(scores, mask, in_place=not torch.is_grad_enabled()))  # rows sum to 1
    # In place: the [b, h, q, k] scores are the largest arrays here (SmolLM2-135M at 2,048 tokens: 150 MB a layer)
    # and no step needs the one before. Gradients flow through all but the softmax (it must keep its output for
    # them: so with gradients it writes a new tensor); a hook that keeps a step's value keeps a copy.
    z = see("z", heads_product(weights if dropout is None else dropout(weights), v))  # [b, h, q, d_k]
    return z, weights


def attention_in_blocks(q, k, v, mask, bias, scale, blocks, hook=None):
    """attention() one block of queries at a time, each against only the keys its rows may see (`blocks`: (first
    row, end row, keys seen), masks.query_blocks): under a causal mask row i sees keys ..i, so about half of Q Kᵀ, of
    the softmax and of the weighted sum is never computed. A weight the mask blocks is exactly 0 either way; the
    rows' softmax and sums read the same numbers. `hook` (the trace's, AttentionPoints.in_blocks) is told of the
    score steps, never made whole, and sees the whole weights and z."""
    b, h, n, _ = q.shape
    weights, z = q.new_empty(b, h, n, k.shape[2]), q.new_empty(b, h, n, v.shape[-1])
    for first, end, seen in blocks:
        rows, keys = slice(first, end), slice(0, seen)
        z[:, :, rows], weights[:, :, rows, keys] = attention(q[:, :, rows], k[:, :, keys], v[:, :, keys],
                                                             mask[..., rows, keys], _rows(bias, rows, keys), scale)
        weights[:, :, rows, seen:] = 0.0
    if hook is not None:
        hook.scores_in_blocks(blocks)
        weights, z = hook("pattern", weights), hook("z", z)
    return z, weights


def _rows(bias, rows: slice, keys: slice):
    """A block's part of a bias [1, h, q or 1, k]."""
    return None if bias is None else bias[..., rows if bias.shape[-2] > 1 else slice(None), keys]


def _as_is(leaf: str, value: torch.Tensor) -> torch.Tensor:
    return value


class MultiHeadAttention(nn.Module):
    """Self- or cross-attention with separate Q, K, V and output projections (W_Q, W_K, W_V, W_O)."""
    LEAVES = ATTN_LEAVES

    def __init__(self, d_model: int, n_heads: int, dropout: float = 0.0, bias: bool = True,
                 positional: str = "none", base: float = 10000.0, n_kv_heads: int = 0, out_bias: bool | None = None,
                 rope_layout: str = "interleaved", scaled: bool = True, d_head: int = 0,
                 rope_scaling: RopeScaling = NO_SCALING, rope_dims: int = 0):
        """n_kv_heads: key/value heads (0 = n_heads), each shared by n_heads / n_kv_heads consecutive query heads;
        out_bias: W_O's bias (None = as `bias`); rope_layout: which dimensions RoPE turns together; scaled: False
        for a model trained without the 1/√d_k (T5, GPT-Neo); d_head: each head's width (0 = d_model / n_heads;
        Gemma's are wider); rope_scaling: RoPE's frequencies stretched for a longer context; rope_dims: how many of
        each head's first dimensions RoPE turns (0 = all)."""
        super().__init__()
        self.n_heads, self.d_head = n_heads, d_head or d_model // n_heads
        self.n_kv_heads = n_kv_heads or n_heads
        width = n_heads * self.d_head  # the heads side by side: d_model unless d_head is set
        self.q_proj = nn.Linear(d_model, width, bias=bias)
        self.k_proj = nn.Linear(d_model, self.n_kv_heads * self.d_head, bias=bias)
        self.v_proj = nn.Linear(d_model, self.n_kv_heads * self.d_head, bias=bias)
        self.out_proj = nn.Linear(width, d_model, bias=bias if out_bias is None else out_bias)
        self.dropout = nn.Dropout(dropout)
        self.positional, self.base, self.rope_layout = positional, base, rope_layout  # "rope" and "alibi" matter here
        self.rope_scaling, self.rope_dims = rope_scaling, rope_dims
        self.scaled = scaled

    def split(self, x: torch.Tensor, heads: int | None = None) -> torch.Tensor:
        b, n, _ = x.shape  # [b, n, heads × d_head]
        return x.view(b, n, heads or self.n_heads, self.d_head).transpose(1, 2)  # [b, heads, n, d_head]

    def heads_of(self, x: torch.Tensor, projection: nn.Linear, heads: int, turn=None) -> torch.Tensor:
        """x [b, n, d] through one projection, split into heads [b, heads, n, d_head], turned by RoPE's (cos, sin)
        if given."""
        out = self.split(projection(x), heads)
        return out if turn is None else rope_turn(out, *turn, self.rope_layout)

    def keys_values(self, x, memory, turn, cache):
        """K and V [b, kv heads, k, d_head] from x (self) or memory (cross), through the cache if given; `turn`: the
        (cos, sin) of RoPE's angles at x's positions (None without RoPE)."""
        kv = self.n_kv_heads
        if memory is not None:  # cross-attention: the memory does not change between steps
            if cache is not None and "k" in cache:
                return cache["k"], cache["v"]
            k, v = self.heads_of(memory, self.k_proj, kv), self.heads_of(memory, self.v_proj, kv)
        else:
            k, v = self.heads_of(x, self.k_proj, kv, turn), self.heads_of(x, self.v_proj, kv)
            if cache is not None and "k" in cache:  # append this step's keys to the earlier ones
                k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
        if cache is not None:
            cache["k"], cache["v"] = k, v
        return k, v

    def rope_turn_table(self, start: int, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """RoPE's (cos, sin) at the positions of x's tokens, for the dimensions it turns (rope_dims, or all)."""
        dims = self.rope_dims if 0 < self.rope_dims < self.d_head else self.d_head
        return rope_table(start, x.shape[1], dims, self.base, self.rope_scaling, x.device)

    def forward(self, x, memory=None, mask=None, start: int = 0, cache: dict | None = None, position_bias=None):
        """x [b, q, d]; memory [b, k, d] for cross-attention (None = self); → (out [b, q, d], weights).

        `start` is the absolute position of x's first token; `cache` keeps keys and values
        between decoding steps (self-attention appends, cross-attention computes them once).
        `position_bias`: (bias [1, h, q, k], the recipe the trace rebuilds it from), made outside the block and
        added to its scores (T5's relative bias, one per stack, shared by its layers), or None.
        """
        turn = self.rope_turn_table(start, x) if memory is None and self.positional == "rope" else None
        q = self.heads_of(x, self.q_proj, self.n_heads, turn)  # [b, h, q, d_head]
        k, v = self.keys_values(x, memory, turn, cache)
        bias, recipe = position_bias or (None, None)
        if memory is None and self.positional == "alibi":
            arguments = (self.n_heads, start, x.shape[1], k.shape[2])
            bias = alibi_bias_range(*arguments, device=x.device)  # [1, h, q, k]
            recipe = (alibi_bias_range, arguments)  # what the trace rebuilds the bias from, on the host
        scale, hook = self.scaled and scale_scores(), None
        if active() is not None:  # a trace is recording this call: the hook keeps each step (trace/attention_points)
            self.record_heads(x, memory, turn, cache, q, k, v)
            blocking = mask if mask is not None and blocked(mask)[0] else None
            hook = AttentionPoints(self, blocking, math.sqrt(self.d_head) if scale else None, bias, recipe, v)
        blocks = None if self.training or torch.is_grad_enabled() or memory is not None else query_blocks(mask)
        if blocks and (hook is None or hook.in_blocks(q.dtype)):
            z, weights = attention_in_blocks(q, k, v, mask, bias, scale, blocks, hook)
        else:
            z, weights = attention(q, k, v, mask, bias, scale, self.dropout if self.training else None, hook)
        out = self.merge_heads(z)
        record_call(self, "out", out, self.merge_heads, z)  # computed again from z when read
        return out, weights

    def record_heads(self, x, memory, turn, cache, q, k, v) -> None:
        """Record q, k and v, each to be computed again from what it was projected from when read (keys and values
        from a cache hold earlier steps': as themselves)."""
        scores = AttentionPoints.FROM_QK  # derived from q and k: they come with them
        record_call(self, "q", q, self.made_by(self.q_proj, self.n_heads, turn), x, needed_by=scores)
        if cache is not None:
            record(self, "k", k, needed_by=scores)
            record(self, "v", v)
            return
        source, turned = (x, turn) if memory is None else (memory, None)
        record_call(self, "k", k, self.made_by(self.k_proj, self.n_kv_heads, turned), source, needed_by=scores)
        record_call(self, "v", v, self.made_by(self.v_proj, self.n_kv_heads), source)

    def made_by(self, projection: nn.Linear, heads: int, turn=None):
        """heads_of with this projection, head count and turn: a function of what is projected."""
        return functools.partial(self.heads_of, projection=projection, heads=heads, turn=turn)

    def merge_heads(self, z: torch.Tensor) -> torch.Tensor:
        """The heads' outputs z [b, h, q, d_head] side by side [b, q, h·d_head], through W_O → [b, q, d_model]."""
        b, h, n, d = z.shape
        return self.out_proj(z.transpose(1, 2).reshape(b, n, h * d))
