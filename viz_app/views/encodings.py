"""Every positional encoding on one sentence: each shipped model's position signal, the attention one head of its
layer 0 would give from position alone, and that head's real attention (place/encodings.py draws them).

A run here is any object with the fields of loaders.EncodingRun: one model's layer-0 self-attention on the first
tokens of the sentence, and what its position signal is made of (the vectors added, the queries and keys from
positions alone, RoPE's plain queries and keys, ALiBi's slopes).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .positional import wrapped

KINDS = ("sinusoidal", "learned", "rope", "alibi")  # the order of the page's columns
ADDED = ("sinusoidal", "learned")  # the kinds that add a vector to every token
# The colour range of the vectors added: ±this percentile of their |values|, as one outlier would leave the rest
# white (MiniLM's row 0 reaches 1.87 in dimension 99, where half its values are below 0.015).
PERCENTILE = 99


def softmax(scores, causal: bool) -> np.ndarray:
    """Row-wise softmax of [q, k] scores; causal: key j > query i gets weight 0 (a decoder's mask)."""
    s = np.asarray(scores, dtype=np.float64)
    if causal:
        s = np.where(np.tril(np.ones(s.shape, dtype=bool)), s, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)


def rope_angles(n: int, d_head: int, base: float) -> np.ndarray:
    """RoPE's angle pos·θᵢ of pair i at positions 0 … n-1, θᵢ = base^(−2i/d_head): [n, d_head/2]."""
    theta = float(base) ** (-np.arange(0, d_head, 2, dtype=np.float64) / d_head)  # [d/2]
    return (np.arange(n, dtype=np.float64)[:, None] * theta).astype(np.float32)


def rotate(x, angles) -> np.ndarray:
    """Each pair (2i, 2i+1) of x [..., n, d] turned by its position's angle [n, d/2], as RoPE turns q and k."""
    x, angles = np.asarray(x, dtype=np.float64), np.asarray(angles, dtype=np.float64)
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty(np.broadcast_shapes(x.shape, (*angles.shape[:-1], x.shape[-1])))
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


def alibi_bias(slope: float, n: int) -> np.ndarray:
    """ALiBi's bias of one head, −slope·|query position − key position|: [n, n]."""
    distance = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])
    return (-float(slope) * distance).astype(np.float32)


@dataclass(frozen=True)
class Encoding:
    """One model's position signal on the sentence and what it does to one head of layer 0."""
    kind: str  # sinusoidal, learned, rope, alibi
    model: str
    head: int
    labels: tuple[str, ...]  # [n] the tokens as this model's tokenizer splits them, with their positions
    signal: np.ndarray  # drawn: [n, d_model] vectors added; rope: [n, d_head/2] angles mod 2π; alibi: [n, n] bias
    raw: np.ndarray  # the same numbers as computed (rope: the angles before wrapping)
    scores: np.ndarray  # [n, n] the position-only scores before the mask (÷√d_k; ALiBi: the bias itself)
    alone: np.ndarray  # [n, n] the head's attention from position alone: softmax(scores), masked if causal
    pattern: np.ndarray  # [n, n] the head's real attention on the sentence (the trace's)
    slope: float | None = None  # alibi: the head's slope
    bound: float | None = None  # sinusoidal, learned: the colour range ±bound of the vectors (PERCENTILE)
    peak: float | None = None  # sinusoidal, learned: their largest |value|, drawn at the end of the range


def position_scores(run, head: int) -> tuple[np.ndarray, np.ndarray]:
    """(what is drawn as the signal before wrapping, the position-only scores [n, n]) of `run`'s kind."""
    n, scale = len(run.labels), math.sqrt(run.d_head)
    if run.kind in ADDED:  # (P W_Q + b_Q)(P W_K + b_K)ᵀ / √d_k, the projections made by the model from positions
        q, k = (np.asarray(a[head], dtype=np.float64) for a in (run.pos_q, run.pos_k))  # [n, d_head]
        return np.asarray(run.pos, dtype=np.float32), (q @ k.T / scale).astype(np.float32)
    if run.kind == "rope":  # one mean q and one mean k, each turned for every position
        angles = rope_angles(n, run.d_head, run.base)
        q = rotate(np.asarray(run.plain_q[head], dtype=np.float64).mean(0), angles)  # [n, d_head]
        k = rotate(np.asarray(run.plain_k[head], dtype=np.float64).mean(0), angles)
        return angles, (q @ k.T / scale).astype(np.float32)
    if run.kind == "alibi":
        bias = alibi_bias(run.slopes[head], n)
        return bias, bias
    raise ValueError(f"no position signal to show for the kind {run.kind!r}.")


def encoding(run, head: int) -> Encoding:
    """Head `head` of layer 0 of `run` (a loaders.EncodingRun)."""
    raw, scores = position_scores(run, head)
    signal = wrapped(raw) if run.kind == "rope" else raw
    slope = float(run.slopes[head]) if run.kind == "alibi" else None
    bound = peak = None
    if run.kind in ADDED:
        size = np.abs(raw.astype(np.float64))
        bound, peak = float(np.percentile(size, PERCENTILE)) or 1.0, float(size.max())
    return Encoding(run.kind, run.model, head, tuple(run.labels), signal, raw, scores, softmax(scores, run.causal),
                    np.asarray(run.pattern[head], dtype=np.float32), slope, bound, peak)
