"""Per-head statistics of attention patterns (pure numpy): what kind of head is this?

Every function takes weights `p` shaped [..., q, k] (rows sum to 1 over the allowed keys, 0 on
masked ones) and returns one number per leading index, a mean over query rows. Rows with no
weight at all (a query that may attend to nothing) are left out of the mean, never counted as 0.
The [q, k] products stay in float32 (the weights' own precision) and every sum is taken in float64:
at real size a layer's weights are gigabytes in float64 (SmolLM2-135M at 2,048 tokens: 300 MB a layer).
"""
from __future__ import annotations

import warnings

import numpy as np

STATS = ("entropy", "distance", "special", "previous")
CROSS_STATS = ("entropy", "distance", "special")  # a previous token means nothing across two sentences
FRAME_STATS = ("cls", "sep")  # where a BERT head parks: on [CLS] or on [SEP]
PEAK_STATS = ("previous", "cls", "sep", "special")  # the ones whose high values name a kind of head
TINY = np.finfo(np.float32).tiny  # the smallest normal float32


def live_rows(p) -> np.ndarray:
    """Which query rows of `p` [..., q, k] carry weight [..., q]: the rows every statistic averages over."""
    return np.asarray(p).sum(axis=-1, dtype=np.float64) > 0


def _row_mean(values: np.ndarray, p: np.ndarray, live=None) -> np.ndarray:
    """Mean of per-row `values` [..., q] over the rows of `p` that carry weight (`live`: live_rows(p), when the caller
    has it already)."""
    live = live_rows(p) if live is None else live
    with warnings.catch_warnings():  # a head with no live row gives NaN, said as "empty" on the page
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(np.where(live, values.astype(np.float64), np.nan), axis=-1)


def entropy(p, live=None) -> np.ndarray:
    """Mean over rows of -Σ p log p, in nats (0 = one key takes all, log n = spread evenly over n keys).
    `live`: live_rows(p), when the caller has it already (table)."""
    p = np.asarray(p, dtype=np.float32)
    terms = np.maximum(p, TINY)  # log(0) would be -inf: a masked key's term is 0 · log(TINY) = 0, so 0 log 0 = 0
    np.log(terms, out=terms)
    terms *= p  # p log p, in the one array
    return _row_mean(-terms.sum(axis=-1, dtype=np.float64), p, live)


def mean_distance(p, relative: bool = False, live=None) -> np.ndarray:
    """Mean over rows of Σ_j p[i, j]·|i − j| in tokens; relative=True measures positions as fractions 0..1
    of each side's length, which is what makes it comparable when queries and keys are different sentences."""
    p = np.asarray(p, dtype=np.float32)
    n_q, n_k = p.shape[-2:]
    i, j = np.arange(n_q, dtype=np.float64), np.arange(n_k, dtype=np.float64)
    if relative:
        i, j = i / max(n_q - 1, 1), j / max(n_k - 1, 1)
    gap = np.abs(i[:, None] - j[None, :]).astype(np.float32)  # [q, k]
    return _row_mean((p * gap).sum(axis=-1, dtype=np.float64), p, live)


def special_weight(p, special, live=None) -> np.ndarray:
    """Mean over rows of the weight on special keys (<s>, </s>, <pad>, [CLS], [SEP]); `special` is bool [k]."""
    p = np.asarray(p, dtype=np.float32)
    on_special = p[..., np.flatnonzero(special)].sum(axis=-1, dtype=np.float64)  # only those columns are read
    return _row_mean(on_special, p, live)


def previous_token(p, live=None) -> np.ndarray:
    """Mean over rows i ≥ 1 of p[i, i−1]: 1 for a head that always looks one token back."""
    p = np.asarray(p, dtype=np.float32)
    if min(p.shape[-2:]) < 2:
        return np.full(p.shape[:-2], np.nan)
    n = min(p.shape[-2] - 1, p.shape[-1] - 1)
    rows = np.arange(1, n + 1)
    return _row_mean(p[..., rows, rows - 1], p[..., 1:n + 1, :], None if live is None else live[..., 1:n + 1])


def table(patterns, special, cross: bool = False, frame=None) -> dict[str, np.ndarray]:
    """Every statistic of every head: patterns [layers, heads, q, k] → {name: [layers, heads]}.

    `frame` = (is_cls, is_sep), bool [k] each, for input framed as [CLS] … [SEP]: the weight on each. The rows that
    carry weight are found once for all of them.
    """
    p = np.asarray(patterns, dtype=np.float32)
    live = live_rows(p)
    stats = {
        "entropy": entropy(p, live),
        "distance": mean_distance(p, relative=cross, live=live),
        "special": special_weight(p, special, live),
        **({} if cross else {"previous": previous_token(p, live)}),
    }
    if frame is not None:
        stats["cls"], stats["sep"] = (special_weight(p, keys, live) for keys in frame)
    return stats


def top(values, k: int = 3) -> list[tuple[int, int, float]]:
    """The k heads with the highest value of a statistic [layers, heads]: (layer, head, value), highest first."""
    values = np.asarray(values, dtype=np.float64)
    order = np.argsort(-np.nan_to_num(values, nan=-np.inf), axis=None, kind="stable")[:k]
    return [(int(i // values.shape[1]), int(i % values.shape[1]), float(values.flat[i])) for i in order]
