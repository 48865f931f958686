"""Position information: sinusoidal, learned, RoPE, ALiBi (or none)."""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import torch
from torch import nn


def sinusoidal_table(length: int, d_model: int, base: float = 10000.0, layout: str = "interleaved") -> torch.Tensor:
    """PE[pos, 2i] = sin(pos / base^(2i/d)), PE[pos, 2i+1] = cos(pos / base^(2i/d)): [length, d_model].

    layout "halves" holds the same numbers in another order: the sines in dimensions 0 … d/2-1 and the
    cosines in d/2 … d-1, so PE[pos, i] = sin(…), PE[pos, d/2 + i] = cos(…) (Marian's table).
    """
    pos = torch.arange(length, dtype=torch.float64)[:, None]  # [length, 1]
    inv_freq = float(base) ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)  # [d/2]; an int base
    # above 2**63 (a config may hold one) would overflow torch's int64 as it is raised to a tensor
    angles = pos * inv_freq  # [length, d/2]
    table = torch.zeros(length, d_model, dtype=torch.float64)
    if layout == "halves":
        table[:, : d_model // 2] = torch.sin(angles)
        table[:, d_model // 2 :] = torch.cos(angles)
    else:
        table[:, 0::2] = torch.sin(angles)
        table[:, 1::2] = torch.cos(angles)
    return table.float()


class SinusoidalPositions(nn.Module):
    """The fixed encoding of the paper; a buffer, not a weight, so checkpoints do not carry it."""

    def __init__(self, max_len: int, d_model: int, base: float, layout: str = "interleaved"):
        super().__init__()
        self.register_buffer("table", sinusoidal_table(max_len, d_model, base, layout), persistent=False)

    def forward(self, positions: torch.Tensor) -> torch.Tensor:
        return self.table[positions]  # [pos, d_model]


class LearnedPositions(nn.Module):
    """One trained vector per position (BERT, GPT-2)."""

    def __init__(self, max_len: int, d_model: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(max_len, d_model) * 0.02)

    def forward(self, positions: torch.Tensor) -> torch.Tensor:
        return self.weight[positions]  # [pos, d_model]


@dataclass(frozen=True)
class RopeScaling:
    """How RoPE's frequencies are stretched for a longer context (ModelConfig.rope_scaling and its rope_* numbers;
    transformers' rope_type with factor, low_freq_factor, high_freq_factor, original_max_position_embeddings)."""
    kind: str = "none"  # "none", "linear" or "llama3"
    factor: float = 1.0
    low_freq_factor: float = 1.0
    high_freq_factor: float = 4.0
    original_max_len: int = 8192

    @classmethod
    def of(cls, cfg) -> "RopeScaling":
        return cls(cfg.rope_scaling, cfg.rope_factor, cfg.rope_low_freq_factor, cfg.rope_high_freq_factor,
                   cfg.rope_original_max_len)

    def scaled(self, inv_freq: torch.Tensor) -> torch.Tensor:
        """θᵢ stretched, as transformers' modeling_rope_utils computes it (_compute_linear_scaling_rope_parameters,
        _compute_llama3_parameters): linear divides every θᵢ by the factor (positions / factor); llama3 divides only
        the slow pairs' (wavelength 2π/θᵢ above original / low_freq_factor), keeps the fast pairs' (below original /
        high_freq_factor), and blends the two linearly in between."""
        if self.kind == "linear":
            return inv_freq / self.factor
        if self.kind != "llama3":
            return inv_freq
        low, high, old = self.low_freq_factor, self.high_freq_factor, self.original_max_len
        wavelen = 2 * math.pi / inv_freq  # [d/2]
        slow = torch.where(wavelen > old / low, inv_freq / self.factor, inv_freq)
        smooth = (old / wavelen - low) / (high - low)  # 0 at the slow end of the blend, 1 at the fast end
        blended = (1 - smooth) * slow / self.factor + smooth * slow
        between = ~(wavelen < old / high) * ~(wavelen > old / low)
        return torch.where(between, blended, slow)


NO_SCALING = RopeScaling()


def rope_angles(positions: torch.Tensor, d_head: int, base: float, scaling: RopeScaling = NO_SCALING) -> torch.Tensor:
    """The rotation angle pos·θᵢ of each dimension pair i at each position, θᵢ = base^(-2i/d_head) (stretched by
    `scaling` for a longer context): [pos, d_head/2]."""
    dims = torch.arange(0, d_head, 2, dtype=torch.float32, device=positions.device)
    inv_freq = float(base) ** (-dims / d_head)  # [d/2] (as above)
    return positions.to(torch.float32)[:, None] * scaling.scaled(inv_freq)


def rope_rotate(x: torch.Tensor, positions: torch.Tensor, base: float, layout: str = "interleaved",
                scaling: RopeScaling = NO_SCALING, dims: int = 0) -> torch.Tensor:
    """Rotate each pair of dimensions of x [b, h, pos, d_head] by its position's angle (RoFormer).

    layout "interleaved" pairs (2i, 2i+1); "halves" pairs (i, d_head/2 + i), as GPT-NeoX and Llama
    (rotate_half) lay them out. q·k of two rotated vectors then depends only on the offset between their positions.
    dims (partial rotary, GPT-NeoX's and Phi's): only the first `dims` dimensions are turned, as a head of that width
    would be (its own frequencies); the others pass as they are. 0: all of them.
    """
    angles = rope_angles(positions, dims if 0 < dims < x.shape[-1] else x.shape[-1], base, scaling)  # [pos, d/2]
    return rope_turn(x, torch.cos(angles), torch.sin(angles), layout)


def rope_turn(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str = "interleaved") -> torch.Tensor:
    """rope_rotate's arithmetic, given each position's cos and sin [pos, r/2] of its angles: the first r dimensions
    of x [b, h, pos, d_head] turned, the others (partial rotary) passed as they are."""
    turned = 2 * cos.shape[-1]
    if turned < x.shape[-1]:
        return torch.cat([rope_turn(x[..., :turned], cos, sin, layout), x[..., turned:]], dim=-1)
    if layout == "halves":
        first, second = x.chunk(2, dim=-1)  # [b, h, pos, d/2] each
        return torch.cat([first * cos - second * sin, second * cos + first * sin], dim=-1)
    even, odd = x[..., 0::2], x[..., 1::2]  # [b, h, pos, d/2] each
    out = torch.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


@functools.lru_cache(maxsize=8)
def rope_table(start: int, n: int, dims: int, base: float, scaling: RopeScaling,
               device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """(cos, sin) [n, dims/2] of the angles at positions start … start + n - 1: an attention block turns its queries
    and keys with them, and every layer of a stack shares them (as transformers' rotary embedding computes them
    once a forward pass). Read only: rope_turn makes new tensors."""
    angles = rope_angles(torch.arange(start, start + n, device=device), dims, base, scaling)
    return torch.cos(angles), torch.sin(angles)


def alibi_slopes(n_heads: int) -> torch.Tensor:
    """Head h's penalty per token of distance: 2^(-8h/n) for n a power of two (Press et al.)."""
    return _alibi_slopes(n_heads).clone()


@functools.lru_cache(maxsize=16)
def _alibi_slopes(n_heads: int) -> torch.Tensor:
    def power_of_two_slopes(n: int) -> list[float]:
        return [2 ** (-8 * (h + 1) / n) for h in range(n)]

    closest = 2 ** math.floor(math.log2(n_heads))
    slopes = power_of_two_slopes(closest)
    # Other head counts take the odd-numbered slopes of the next power of two, as in the paper's code.
    slopes += power_of_two_slopes(2 * closest)[0::2][: n_heads - closest]
    return torch.tensor(slopes, dtype=torch.float32)


def alibi_bias(n_heads: int, q_pos: torch.Tensor, k_pos: torch.Tensor) -> torch.Tensor:
    """-slope_h × |query position - key position|, added to scaled scores: [1, h, q, k]."""
    distance = (q_pos[:, None] - k_pos[None, :]).abs().to(torch.float32)  # [q, k]
    return -_alibi_slopes(n_heads).to(distance.device)[None, :, None, None] * distance[None, None]


# A decoding step's bias is a few hundred numbers, the same for every layer of the step: kept for
# the next layers (and other steps at the same place) instead of rebuilt. Never larger ones.
SMALL_BIAS = 1 << 16  # elements


def alibi_bias_range(n_heads: int, start: int, q_len: int, k_len: int, device=None) -> torch.Tensor:
    """alibi_bias for queries at start … start + q_len - 1 and keys 0 … k_len - 1 on `device` (None: the host); the
    same bits.

    Small biases come from a cache and are shared: the caller must not write into them.
    """
    if n_heads * q_len * k_len <= SMALL_BIAS:
        return _small_bias(n_heads, start, q_len, k_len, device)
    return alibi_bias(n_heads, torch.arange(start, start + q_len, device=device), torch.arange(k_len, device=device))


@functools.lru_cache(maxsize=64)
def _small_bias(n_heads: int, start: int, q_len: int, k_len: int, device) -> torch.Tensor:
    return alibi_bias(n_heads, torch.arange(start, start + q_len, device=device), torch.arange(k_len, device=device))


def relative_buckets(offsets: torch.Tensor, bidirectional: bool, n_buckets: int, max_distance: int) -> torch.Tensor:
    """T5's bucket of each key-minus-query offset (transformers' T5Attention._relative_position_bucket).

    Bidirectional (the encoder): keys before the query (offset ≤ 0) take buckets 0 … n/2-1, keys after it n/2 … n-1;
    causal (the decoder): only keys before the query, every bucket for them. Within a side's b buckets, distances
    0 … b/2-1 have a bucket each; longer ones share buckets whose width grows logarithmically, and every distance
    from max_distance on falls in the side's last bucket.
    """
    buckets = torch.zeros_like(offsets)
    if bidirectional:
        n_buckets //= 2
        buckets += (offsets > 0).long() * n_buckets
        distance = offsets.abs()
    else:
        distance = -torch.clamp(offsets, max=0)
    exact = n_buckets // 2
    wide = exact + (torch.log(distance.float() / exact) / math.log(max_distance / exact)
                    * (n_buckets - exact)).long()
    wide = torch.clamp(wide, max=n_buckets - 1)
    return buckets + torch.where(distance < exact, distance, wide)


class RelativePositionBias(nn.Module):
    """T5's relative position bias of one stack: a learned scalar per head and bucket, added to every layer's
    self-attention scores (transformers keeps the table in layer 0's relative_attention_bias; weight [buckets, h])."""

    def __init__(self, n_buckets: int, n_heads: int, max_distance: int, bidirectional: bool):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_buckets, n_heads) * 0.02)
        self.max_distance, self.bidirectional = max_distance, bidirectional

    def buckets(self, start: int, q_len: int, k_len: int) -> torch.Tensor:
        """The bucket [q, k] of queries at start … start + q_len - 1 and keys 0 … k_len - 1."""
        where = self.weight.device
        keys, queries = torch.arange(k_len, device=where), torch.arange(start, start + q_len, device=where)
        offsets = keys[None, :] - queries[:, None]  # key - query
        return relative_buckets(offsets, self.bidirectional, self.weight.shape[0], self.max_distance)

    def forward(self, start: int, q_len: int, k_len: int) -> torch.Tensor:
        """The bias [1, h, q, k]: head h's learned value for the bucket of each key's offset from each query."""
        return self.weight[self.buckets(start, q_len, k_len)].permute(2, 0, 1)[None]


def as_given(bias: torch.Tensor) -> torch.Tensor:
    """A bias the trace keeps as computed (a recipe of its own: see trace.hook_points.derive), read on the host."""
    return bias.cpu()
