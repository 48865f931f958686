"""The Tokens & embeddings page's numbers: the token table, the ×√d_model scaling, the neighbour map."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import blocks

K_MAX = 10  # neighbours per token the page offers
K_CHOICES = range(1, K_MAX + 1)
FIT_MIN = 3  # a sentence with fewer different tokens cannot fit two axes on its own rows
LABEL_CHAR = 0.013  # a label's character on the map, as a share of its larger span (~8 px of a ~600 px chart)
LABEL_LINE = 0.04  # a label's line, the same way


def row_norms(values) -> np.ndarray:
    """The L2 norm of each row of a 2-D array: [rows]."""
    return np.linalg.norm(np.asarray(values, dtype=np.float64), axis=-1).astype(np.float32)


def nearest(matrix, ids, k: int, exclude=()) -> tuple[np.ndarray, np.ndarray]:
    """For each id, the k other rows of `matrix` closest by cosine: (ids [n, k], cosine [n, k])."""
    m = np.asarray(matrix, dtype=np.float64)  # [vocab, d]
    unit = m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
    ids = np.asarray(ids, dtype=np.int64)
    cos = unit[ids] @ unit.T  # [n, vocab]
    cos[:, list(exclude)] = -np.inf
    cos[np.arange(len(ids)), ids] = -np.inf  # a token is not its own neighbour
    k = max(0, min(k, int(np.isfinite(cos).sum(axis=1).min(initial=m.shape[0]))))  # never an excluded row
    order = np.argsort(-cos, axis=1, kind="stable")[:, :k]  # [n, k]
    return order, np.take_along_axis(cos, order, axis=1).astype(np.float32)


def pca_2d(fit_rows, *others) -> tuple[list[np.ndarray], np.ndarray]:
    """Project rows on the top two principal axes of `fit_rows` (numpy SVD).

    Returns ([fit_rows projected, each of `others` projected], share of variance per axis [2]).
    Each axis's sign is fixed (its largest loading positive) so the picture does not flip between runs.
    """
    fit = np.asarray(fit_rows, dtype=np.float64)  # [n, d]
    mean = fit.mean(axis=0)
    # Only the axes are needed: the thin SVD, except for a single row (the full one then still gives two axes).
    # The full one's U is [n, n]: 12,000 rows (2,048 tokens and their neighbours) took 20 s and 1.1 GB.
    _, s, vt = np.linalg.svd(fit - mean, full_matrices=len(fit) < 2)
    axes = vt[:2]  # [2, d]
    axes *= np.sign(axes[np.arange(2), np.abs(axes).argmax(axis=1)])[:, None]
    total = float((s ** 2).sum())
    share = np.zeros(2, dtype=np.float32)
    share[: min(2, len(s))] = (s[:2] ** 2) / total if total > 0 else 0.0

    def project(rows):
        rows = np.asarray(rows, dtype=np.float64).reshape(-1, fit.shape[1])  # [m, d]
        return ((rows - mean) @ axes.T).astype(np.float32)  # [m, 2]

    return [project(fit)] + [project(o) for o in others], share


def label_boxes(points, labels, span: float) -> tuple[np.ndarray, np.ndarray]:
    """Each label's centre and half-size in screen-like units (the map's equal-scaled axes divided by `span`, its
    larger side): (centres [n, 2], half sizes [n, 2]); a label sits one line above its point."""
    centres = np.asarray(points, dtype=np.float64).reshape(-1, 2) / (span or 1.0) + [0.0, LABEL_LINE]
    half = np.array([[LABEL_CHAR * len(str(label)) / 2, LABEL_LINE / 2] for label in labels]).reshape(-1, 2)
    return centres, half


def overlaps(centres, half, i: int, kept) -> bool:
    """Whether label i's box overlaps any of the labels `kept` (indices)."""
    kept = list(kept)
    gap = np.abs(centres[kept] - centres[i]) < half[kept] + half[i]  # [kept, 2]
    return bool(gap.all(axis=1).any())


def spread_labels(points, labels, span: float) -> np.ndarray:
    """Which points the map labels: greedily in sentence order, a label whose box overlaps none already kept (a
    repeated token, at the same point, keeps its first label). bool [n]; the rest are named on hover."""
    centres, half = label_boxes(points, labels, span)
    kept: list[int] = []
    for i in range(len(centres)):
        if not overlaps(centres, half, i, kept):
            kept.append(i)
    return np.isin(np.arange(len(centres)), kept)


def shown_sides(run, sides) -> tuple[str, ...]:
    """The model's input sides (cfg.sides) that this run has tokens on."""
    return tuple(side for side in sides if blocks.ids(run, side))


NO_WORD = "—"  # a special token's word index: a table showed "None", in English on a Chinese page too


@dataclass(frozen=True)
class TokenTable:
    """One row per token, as (column key, values) pairs: position, piece, id, word (as text; NO_WORD for a special
    token)."""
    columns: tuple[tuple[str, tuple], ...]


def token_table(run, side: str, pieces, word_ids) -> TokenTable:
    """The run's `side` tokens with the tokenizer's display pieces and word ids (-1: no word)."""
    ids = tuple(int(i) for i in blocks.ids(run, side))
    words = tuple(str(int(w)) if w >= 0 else NO_WORD for w in word_ids)  # specials belong to no word
    return TokenTable((("position", tuple(range(len(ids)))), ("piece", tuple(pieces)), ("id", ids), ("word", words)))


@dataclass(frozen=True)
class Scaling:
    """The embedding rows before and after ×√d_model, and the lengths of the rows added up into the input."""
    tok: np.ndarray  # [pos, d_model] looked up
    scaled: np.ndarray  # [pos, d_model] after the scaling
    bounds: tuple[float, float]  # each table's own colour range ±bound: on one, the unscaled rows would look blank
    series: tuple[str, ...]  # "tok", "scaled" and, with position vectors, "pos"
    norms: tuple[np.ndarray, ...]  # one [pos] array per series
    norm_table: np.ndarray  # [pos, series], the same numbers as columns
    means: tuple[tuple[str, dict], ...]  # ("mean", {before, after, factor}) and, with positions, ("mean_pos", {pos})
    root_d: float  # √d_model


def scaling(run, side: str, d_model: int, scale_embedding: bool) -> Scaling:
    """The run's `side` embedding stage; `scale_embedding`: whether the model multiplies by √d_model."""
    emb = run.trace.embed(side)
    tok, scaled = emb.tok[0], emb.scaled[0]  # [pos, d_model]
    bounds = (float(np.abs(tok).max()) or 1.0, float(np.abs(scaled).max()) or 1.0)
    rows = {"tok": tok, "scaled": scaled, **({"pos": emb.pos[0]} if emb.pos is not None else {})}
    norms = tuple(row_norms(v) for v in rows.values())
    root = math.sqrt(d_model)
    mean = [float(n.mean()) for n in norms]
    means = [("mean", {"before": mean[0], "after": mean[1], "factor": root if scale_embedding else 1.0})]
    if emb.pos is not None:
        means.append(("mean_pos", {"pos": mean[2]}))
    return Scaling(tok, scaled, bounds, tuple(rows), norms, np.stack(norms, axis=1), tuple(means), root)


@dataclass(frozen=True)
class NeighbourMap:
    """The sentence's embedding rows and their vocabulary neighbours on two principal axes."""
    points: np.ndarray  # [n, 2] the sentence's tokens
    faint: np.ndarray  # [n * k, 2] their neighbours, token by token
    both: np.ndarray  # [n + n * k, 2] points then faint, as one table
    labelled: np.ndarray  # bool [n]: the tokens whose label is drawn (no two overlap); the rest on hover
    share: float  # of the fitted rows' variance the two axes show
    few: bool  # too few different tokens: the axes were fitted on the neighbours too
    near: tuple[tuple[str, str, float], ...]  # [n * k] per neighbour: its piece, the token label it is near, cosine
    table: tuple[tuple[str, int, tuple[str, ...]], ...]  # columns (key, number, cells): the token, then neighbour j


def neighbour_map(run, side: str, near) -> NeighbourMap:
    """`near`: loaders.Neighbours of the run's `side` ids (ids, cosine [n, k], vectors [n, k, d], pieces [n][k])."""
    rows = run.trace.embed(side).tok[0]  # [n, d_model]
    labels = blocks.labels(run, side)
    n, k = near.ids.shape
    faint_rows = near.vectors.reshape(n * k, rows.shape[1])  # [n * k, d_model]
    few = len(set(blocks.ids(run, side))) < FIT_MIN
    (_, points, faint), share = pca_2d(np.concatenate([rows, faint_rows]) if few else rows, rows, faint_rows)
    pairs = [(i, j) for i in range(n) for j in range(k)]
    cells = [tuple(f"{near.pieces[i][j]} ({near.cosine[i, j]:.3f})" for i in range(n)) for j in range(k)]
    table = (("token", 0, tuple(labels)), *(("neighbour", j + 1, column) for j, column in enumerate(cells)))
    both = np.concatenate([points, faint])
    span = float(np.ptp(both, axis=0).max()) if len(both) else 1.0
    return NeighbourMap(points, faint, both, spread_labels(points, labels, span), float(share.sum()), few,
                        tuple((near.pieces[i][j], labels[i], float(near.cosine[i, j])) for i, j in pairs), table)
