"""The Positional encoding lab's numbers: the sinusoid's curves and similarity, the model's own encoding, the sum."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import blocks

D_MODELS = range(16, 513, 16)
LENGTHS = range(8, 513)
BASES = (100, 300, 1000, 3000, 10000, 30000, 100000)
DIMS = [0, 1, 8, 16]  # a list: the multiselect's value


def parse_dims(raw: str) -> list[int]:
    return [int(x) for x in raw.strip("[]").replace(" ", "").split(",") if x]  # "0,1,8" or "[0, 1, 8]"


def dims_within(d_model: int, dims) -> bool:
    """Dimensions a table d_model wide has, each once (a link naming one 50,000 times drew 50,000 curves)."""
    return all(isinstance(d, int) and 0 <= d < d_model for d in dims) and len(set(dims)) == len(dims)


def usable_dims(dims, d_model: int) -> list[int]:
    """The chosen dimensions a table d_model wide has (the choice shrinks with d_model)."""
    return [d for d in dims if isinstance(d, int) and 0 <= d < d_model]


def dim_kinds(d_model: int) -> tuple[str, ...]:
    """'sin' for the even dimensions, 'cos' for the odd ones."""
    return tuple("sin" if d % 2 == 0 else "cos" for d in range(d_model))


def similarity(table, cosine: bool = False) -> np.ndarray:
    """Rows' dot products (or cosine similarities) with each other: [n, d] → [n, n]."""
    rows = np.asarray(table, dtype=np.float64)  # [n, d]
    if cosine:
        rows = rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
    return (rows @ rows.T).astype(np.float32)


def wrapped(angles) -> np.ndarray:
    """Angles reduced to [0, 2π), the only part a rotation sees."""
    return np.mod(np.asarray(angles, dtype=np.float64), 2 * math.pi).astype(np.float32)


@dataclass(frozen=True)
class Lab:
    """The sinusoidal table of the lab's settings, its chosen columns, and its rows' dot products."""
    table: np.ndarray  # [length, d_model]
    similarity: np.ndarray  # [length, length]
    dims: tuple[int, ...]
    columns: np.ndarray  # [length, len(dims)] the chosen dimensions' curves
    norm: float  # √(d_model / 2): the length of every row
    pairs: int  # d_model / 2: the dot product is the cosine similarity times this


def lab(table, dims) -> Lab:
    """`table`: a sinusoidal table [length, d_model] (loaders.sinusoid); `dims`: the chosen dimensions."""
    table = np.asarray(table, dtype=np.float32)
    dims = tuple(int(d) for d in dims)
    d_model = table.shape[1]
    return Lab(table, similarity(table), dims, table[:, list(dims)], math.sqrt(d_model / 2), d_model // 2)


@dataclass(frozen=True)
class OwnTable:
    """One side's position vectors, and their similarity (cosine for learned rows, which differ in length)."""
    side: str
    table: np.ndarray  # [n, d_model]
    similarity: np.ndarray  # [n, n]
    cosine: bool


@dataclass(frozen=True)
class OwnRelative:
    """One stack's relative position bias (T5): its learned table and the bias it adds over query/key positions."""
    side: str
    buckets: np.ndarray  # [h, buckets] each head's learned value per bucket
    bias: np.ndarray  # [h, n, n] what the heads add to the scores of a query (row) and key (column)
    bias_rows: np.ndarray  # [h * n, n], the heads' matrices one under another


@dataclass(frozen=True)
class OwnEncoding:
    """The model's own position information, by kind (fields of other kinds are empty)."""
    kind: str  # sinusoidal, learned, rope, alibi, relative, none
    n: int  # positions shown: the lab's length, at most the model's max_len
    tables: tuple[OwnTable, ...] = ()  # sinusoidal (one: both sides share it) / learned (each side)
    angles: np.ndarray | None = None  # rope: [n, rotary_dims/2] pos·θᵢ (d_head/2 unless RoPE turns part of a head)
    wrapped: np.ndarray | None = None  # rope: the angles in [0, 2π)
    offset: np.ndarray | None = None  # rope: [n, n] q·k of one q and one k placed at every pair of positions
    bias: np.ndarray | None = None  # alibi: [h, n, n]
    bias_rows: np.ndarray | None = None  # alibi: [h * n, n], the heads' matrices one under another
    slopes: tuple[float, ...] = ()  # alibi: one per head
    relative: tuple[OwnRelative, ...] = ()  # relative: each side's stack


def own_encoding(own: dict, kind: str, sides, length: int, max_len: int) -> OwnEncoding:
    """`own`: what loaders.model_positions(model, length) returns for a model of that `kind`, input `sides`
    and `max_len`."""
    n = min(length, max_len)
    if kind in ("sinusoidal", "learned"):
        cosine = kind == "learned"  # learned rows differ in length, so a dot product would mostly show that
        shown = tuple(sides)[:1] if kind == "sinusoidal" else tuple(sides)  # sinusoidal tables are the same
        return OwnEncoding(kind, n, tuple(OwnTable(s, own[s], similarity(own[s], cosine), cosine) for s in shown))
    if kind == "rope":
        return OwnEncoding(kind, n, angles=own["angles"], wrapped=wrapped(own["angles"]), offset=own["offset"])
    if kind == "alibi":
        bias = own["bias"]  # [h, n, n]
        return OwnEncoding(kind, n, bias=bias, bias_rows=bias.reshape(-1, bias.shape[-1]),
                           slopes=tuple(float(s) for s in own["slopes"]))
    if kind == "relative":
        return OwnEncoding(kind, n, relative=tuple(
            OwnRelative(s, own[s]["buckets"], own[s]["bias"], own[s]["bias"].reshape(-1, n)) for s in sides))
    return OwnEncoding(kind, n)


@dataclass(frozen=True)
class SentenceSum:
    """The first input side's token embedding (×√d_model if the model scales it), its position vectors and their
    sum, each with its own colour range (a position table can be ten times the embedding's size, or a tenth)."""
    side: str
    labels: tuple[str, ...]
    parts: tuple[tuple[str, np.ndarray], ...]  # ("scaled" | "pos" | "out", [pos, d_model]); no "pos" without vectors
    bounds: tuple[float, ...]  # per part, its colour range ±bound
    has_pos: bool


def sentence_sum(run, has_encoder: bool) -> SentenceSum:
    side = "src" if has_encoder else "tgt"
    emb = run.trace.embed(side)
    parts = tuple((key, getattr(emb, key)[0]) for key in ("scaled", "pos", "out") if getattr(emb, key) is not None)
    bounds = tuple(float(np.abs(v).max()) or 1.0 for _, v in parts)
    return SentenceSum(side, tuple(blocks.labels(run, side)), parts, bounds, emb.pos is not None)
