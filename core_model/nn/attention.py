"""Multi-head attention that hands back its weights, with every stage recorded."""
from __future__ import annotations

import math

import torch
from torch import nn

from ..trace.hook_points import record, record_derived, scale_scores
from ..trace.names import ATTN_LEAVES
from .masks import masked_softmax
from .positional import alibi_bias_range, rope_rotate



# Derived on reading, never stored (see hook_points): the scores from q and k, the rest from the scores.
DERIVED = ("scores_scaled", "scores_masked")
FROM_QK = ("scores", *DERIVED)


def attention(q, k, v, mask=None, bias=None, scale=True, dropout=None, module=None, bias_recipe=None):
    """softmax(QKᵀ/√d_k + bias, masked) V for q [b, h, q, d], k and v [b, h, k, d] → (z, weights).

    Records the scores before scaling, after scaling (and any position bias), after the mask, and after softmax, the
    split points a teacher shows one by one. In float32 the first three are recipes (hook_points.derive): the scores
    from the kept q and k, the rest from them if any bias can be rebuilt (`bias_recipe`: an ALiBi bias's arguments).

    Where no trace keeps a [b, h, q, k] intermediate and no gradient is taken, the next step
    writes into it instead of allocating another: the same float32 operations, so the same bits.
    """
    scores = q @ k.transpose(-2, -1)  # [b, h, q, k]
    derived = scores.dtype == torch.float32 and record_derived(module, "scores", ("product", ("q", "k")), DERIVED)
    stored = not derived and record(module, "scores", scores, needed_by=DERIVED)
    owned = not stored and not torch.is_grad_enabled()  # may scores be overwritten?
    divisor = math.sqrt(q.shape[-1]) if scale else None
    scaled = scores
    if divisor is not None:
        scaled = scaled.div_(divisor) if owned else scaled / divisor
        owned = not torch.is_grad_enabled()
    if bias is not None:
        scaled = scaled.add_(bias) if owned else scaled + bias  # [b, h, q, k]
        owned = not torch.is_grad_enabled()
    if (derived or stored) and scores.dtype == torch.float32 and (bias is None or bias_recipe is not None):
        record_derived(module, "scores_scaled", ("scaled", ("scores",), divisor, None if bias is None else bias_recipe))
    elif record(module, "scores_scaled", scaled, needed_by=("scores_masked",)):
        owned = False
    masked = scaled
    blocking = mask is not None and not bool(mask.all())  # nothing blocked: spare a copy of the scores
    if blocking:
        masked = masked.masked_fill_(~mask, float("-inf")) if owned else masked.masked_fill(~mask, float("-inf"))
        owned = not torch.is_grad_enabled()
    record_derived(module, "scores_masked", ("masked", ("scores_scaled",), mask if blocking else None))
    if mask is not None and not blocking:  # no key blocked, so no row fully blocked: plain softmax
        weights = torch.softmax(masked, dim=-1, out=masked) if owned else torch.softmax(masked, dim=-1)
    else:
        weights = masked_softmax(masked, mask, in_place=owned)  # [b, h, q, k]
    record(module, "pattern", weights)
    z = (dropout(weights) if dropout is not None else weights) @ v  # [b, h, q, d]
    record(module, "z", z)
    return z, weights


class MultiHeadAttention(nn.Module):
    """Self- or cross-attention with separate Q, K, V and output projections (W_Q, W_K, W_V, W_O)."""
    LEAVES = ATTN_LEAVES

    def __init__(self, d_model: int, n_heads: int, dropout: float = 0.0, bias: bool = True,
                 positional: str = "none", base: float = 10000.0):
        super().__init__()
        self.n_heads, self.d_head = n_heads, d_model // n_heads
        self.q_proj = nn.Linear(d_model, d_model, bias=bias)
        self.k_proj = nn.Linear(d_model, d_model, bias=bias)
        self.v_proj = nn.Linear(d_model, d_model, bias=bias)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)
        self.positional, self.base = positional, base  # only "rope" and "alibi" matter here

    def split(self, x: torch.Tensor) -> torch.Tensor:
        b, n, _ = x.shape  # [b, n, d_model]
        return x.view(b, n, self.n_heads, self.d_head).transpose(1, 2)  # [b, h, n, d_head]

    def keys_values(self, x, memory, q_pos, cache):
        """K and V [b, h, k, d_head] from x (self) or memory (cross), through the cache if given."""
        if memory is not None:  # cross-attention: the memory does not change between steps
            if cache is not None and "k" in cache:
                return cache["k"], cache["v"]
            k, v = self.split(self.k_proj(memory)), self.split(self.v_proj(memory))
        else:
            k, v = self.split(self.k_proj(x)), self.split(self.v_proj(x))
            if self.positional == "rope":
                k = rope_rotate(k, q_pos, self.base)
            if cache is not None and "k" in cache:  # append this step's keys to the earlier ones
                k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
        if cache is not None:
            cache["k"], cache["v"] = k, v
        return k, v

    def forward(self, x, memory=None, mask=None, start: int = 0, cache: dict | None = None):
        """x [b, q, d]; memory [b, k, d] for cross-attention (None = self); → (out [b, q, d], weights).

        `start` is the absolute position of x's first token; `cache` keeps keys and values
        between decoding steps (self-attention appends, cross-attention computes them once).
        """
        q_pos = torch.arange(start, start + x.shape[1])
        q = self.split(self.q_proj(x))  # [b, h, q, d_head]
        k, v = self.keys_values(x, memory, q_pos, cache)
        bias = recipe = None
        if memory is None and self.positional == "rope":
            q = rope_rotate(q, q_pos, self.base)
        if memory is None and self.positional == "alibi":
            arguments = (self.n_heads, start, x.shape[1], k.shape[2])
            bias = alibi_bias_range(*arguments)  # [1, h, q, k]
            recipe = (alibi_bias_range, arguments)  # what the trace rebuilds the bias from
        for leaf, value in (("q", q), ("k", k)):
            record(self, leaf, value, needed_by=FROM_QK)  # the scores are derived from them
        record(self, "v", v)
        z, weights = attention(q, k, v, mask, bias, scale_scores(), self.dropout if self.training else None, self, recipe)
        b, h, n, d = z.shape
        out = self.out_proj(z.transpose(1, 2).reshape(b, n, h * d))  # [b, q, d_model]
        record(self, "out", out)
        return out, weights
