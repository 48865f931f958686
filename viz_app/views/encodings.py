"""Every positional encoding on one sentence: each shipped model's position signal, the attention one head of its
layer 0 would give from position alone, and that head's real attention (place/encodings.py draws them).

A run here is any object with the fields of loaders.EncodingRun: one model's layer-0 self-attention on the first
tokens of the sentence, what its position signal is made of (the vectors added, RoPE's angles, ALiBi's slopes), and
every head's scores and weights from position alone, all computed there by core_model. Here one head is picked and
the signal is made ready to draw.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .positional import wrapped

KINDS = ("sinusoidal", "learned", "rope", "alibi")  # the order of the page's columns
ADDED = ("sinusoidal", "learned")  # the kinds that add a vector to every token
# The colour range of the vectors added: ±this percentile of their |values|, as one outlier would leave the rest
# white (MiniLM's row 0 reaches 1.87 in dimension 99, where half its values are below 0.015).
PERCENTILE = 99


@dataclass(frozen=True)
class Encoding:
    """One model's position signal on the sentence and what it does to one head of layer 0."""
    kind: str  # sinusoidal, learned, rope, alibi
    model: str
    head: int
    labels: tuple[str, ...]  # [n] the tokens as this model's tokenizer splits them, with their positions
    signal: np.ndarray  # drawn: [n, d_model] vectors added; rope: [n, rotary_dims/2] angles mod 2π; alibi: [n, n] bias
    raw: np.ndarray  # the same numbers as computed (rope: the angles before wrapping)
    scores: np.ndarray  # [n, n] the position-only scores before the mask (÷√d_k; ALiBi: the bias itself)
    alone: np.ndarray  # [n, n] the head's attention from position alone: softmax(scores), masked if causal
    pattern: np.ndarray  # [n, n] the head's real attention on the sentence (the trace's)
    slope: float | None = None  # alibi: the head's slope
    bound: float | None = None  # sinusoidal, learned: the colour range ±bound of the vectors (PERCENTILE)
    peak: float | None = None  # sinusoidal, learned: their largest |value|, drawn at the end of the range


def position_signal(run, head: int) -> np.ndarray:
    """What is drawn as `run`'s position signal, before wrapping: the vectors added, RoPE's angles, or ALiBi's bias of
    the head (which is all its scores from position alone are)."""
    if run.kind in ADDED:
        return np.asarray(run.pos, dtype=np.float32)
    if run.kind == "rope":
        return np.asarray(run.angles, dtype=np.float32)
    if run.kind == "alibi":
        return np.asarray(run.scores[head], dtype=np.float32)
    raise ValueError(f"no position signal to show for the kind {run.kind!r}.")


def encoding(run, head: int) -> Encoding:
    """Head `head` of layer 0 of `run` (a loaders.EncodingRun)."""
    raw = position_signal(run, head)
    signal = wrapped(raw) if run.kind == "rope" else raw
    slope = float(run.slopes[head]) if run.kind == "alibi" else None
    bound = peak = None
    if run.kind in ADDED:
        size = np.abs(raw.astype(np.float64))
        bound, peak = float(np.percentile(size, PERCENTILE)) or 1.0, float(size.max())
    scores, alone, pattern = (np.asarray(a[head], dtype=np.float32) for a in (run.scores, run.alone, run.pattern))
    return Encoding(run.kind, run.model, head, tuple(run.labels), signal, raw, scores, alone, pattern,
                    slope, bound, peak)
