"""The Attention explorer's views: every head of a block at once, one head up close, head statistics.

Plain numpy. Weights are [q, k] (one head) or [layers, heads, q, k] (a whole stack). The positions drawn
may leave out [CLS] and [SEP] (the sidebar's switch); the statistics always count every position.
"""
from __future__ import annotations

import dataclasses
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from . import blocks, head_stats

_CORES = os.cpu_count() or 1
_POOL = ThreadPoolExecutor(_CORES, thread_name_prefix="head-stats")  # digest()'s, for the whole process

WINDOW = 64  # query rows shown at first: a long input opens on a slice that stays readable
KEYS = 128  # keys the close-up shows at most: those that matter to the rows shown


@dataclass(frozen=True)
class Marks:
    """Which of one side's tokens the tokenizer calls special, and which frame the input ([CLS] … [SEP])."""
    special: np.ndarray  # bool [n]: <s>, </s>, <pad>, [CLS], [SEP]…
    frame: tuple[np.ndarray, np.ndarray] | None  # (is [CLS], is [SEP]) bool [n] each; None if nothing frames it


def shown(marks: Marks, hide: bool) -> np.ndarray:
    """The positions the attention views draw: all, or all but [CLS] and [SEP] when hidden."""
    if hide and marks.frame is not None:
        return np.flatnonzero(~(marks.frame[0] | marks.frame[1]))
    return np.arange(len(marks.special))


@dataclass(frozen=True)
class Grid:
    """Every head of one attention block, with the selected layer and head (within this stack).

    At real size the run's trace is on demand (core_model/trace/on_demand.py): the grid draws the weights the
    forward pass pooled (every position, `pooled` > 1), the close-up the selected layer, computed when read."""
    block: str
    every: np.ndarray | None  # [layers, heads, q, k] at every position; None for an on-demand trace
    patterns: np.ndarray  # [layers, heads, shown q, shown k] what the grid draws; pooled: [.., ⌈q/p⌉, ⌈k/p⌉], all
    selected: np.ndarray  # [heads, shown q, shown k] the selected layer in full: what the close-up draws
    blocked: np.ndarray  # bool [heads, shown q, shown k] cells the selected layer's mask forbids
    q_labels: tuple[str, ...]  # shown queries
    k_labels: tuple[str, ...]  # shown keys
    hidden: bool  # some positions ([CLS], [SEP]) are left out of what is drawn
    layer: int
    head: int
    pooled: int = 1  # the block each cell of `patterns` already pools (on demand), 1 for the weights themselves

    @property
    def n_q(self) -> int:
        return len(self.q_labels)

    @property
    def kind(self) -> str:
        return blocks.split(self.block)[1]


def grid(run, block: str, marks: dict, hide: bool, layer: int, head: int) -> Grid:
    """Stack the block's patterns over layers; `marks` {side: Marks} says which positions `hide` leaves out."""
    stack, kind = blocks.split(block)
    q_side, k_side = blocks.SIDES[block]
    trace = run.trace
    n_layers = trace.n_layers(stack)
    layer = min(layer, n_layers - 1)
    view = trace.attn(stack, layer, kind)
    blocked, selected = np.isneginf(view.scores_masked[0]), view.pattern[0]  # [heads, q, k]
    hide = hide and not trace.on_demand  # pooled cells mix positions: at real size every position is shown
    qi, ki = shown(marks[q_side], hide), shown(marks[k_side], hide)
    hidden = len(qi) < selected.shape[1] or len(ki) < selected.shape[2]
    pick = (lambda a: a[..., qi, :][..., ki]) if hidden else (lambda a: a)  # the shown positions
    pooled = [trace.pooled_pattern(stack, i, kind) for i in range(n_layers)] if trace.on_demand else None
    every = None if pooled else np.stack([trace.attn(stack, i, kind).pattern[0] for i in range(n_layers)])
    patterns = np.stack([p[0] for p, _ in pooled]) if pooled else pick(every)  # [layers, heads, q, k]
    q_labels, k_labels = blocks.labels(run, q_side), blocks.labels(run, k_side)
    return Grid(block, every, patterns, pick(selected), pick(blocked), tuple(q_labels[i] for i in qi),
                tuple(k_labels[j] for j in ki), hidden, layer, head, pooled[0][1] if pooled else 1)


def first_window(n_q: int) -> tuple[int, int]:
    """The query rows shown at first: all of them, or the first WINDOW."""
    return 0, min(n_q, WINDOW) - 1


def window_ok(n_q: int, value) -> bool:
    """A query window (first, last) within 0..n_q-1."""
    return isinstance(value, tuple) and len(value) == 2 and 0 <= value[0] <= value[1] < n_q


def parse_window(raw: str) -> tuple[int, ...]:
    """A link's '(3, 7)' or '3,7' → (3, 7)."""
    return tuple(int(v) for v in raw.strip("()").split(","))


def filter_mask(weights, top_k: int = 0, threshold: float = 0.0, allowed=None) -> np.ndarray:
    """Cells kept: among the allowed ones, the top_k largest of each row (0 = all) that reach threshold."""
    w = np.asarray(weights, dtype=np.float32)  # [q, k]
    allowed = np.ones(w.shape, bool) if allowed is None else np.asarray(allowed, bool)
    keep = allowed & (w >= threshold)
    if 0 < top_k < w.shape[-1]:
        ranked = np.where(allowed, w, -np.inf)
        order = np.argsort(-ranked, axis=-1, kind="stable")[..., :top_k]  # ties go to the earlier key
        top = np.zeros(w.shape, bool)
        np.put_along_axis(top, order, True, axis=-1)
        keep &= top
    return keep


def shown_values(weights, blocked, kept) -> np.ndarray:
    """What the enlarged heatmap draws: the weight, -inf where masked, NaN where filtered out."""
    w = np.asarray(weights, dtype=np.float32)
    return np.where(blocked, -np.inf, np.where(kept, w, np.nan)).astype(np.float32)


@dataclass(frozen=True)
class Focus:
    """One head (or the mean of the layer's heads) up close, over a window of query rows."""
    weights: np.ndarray  # [rows, k]
    kept: np.ndarray  # bool [rows, k]: what top-k and the threshold keep
    values: np.ndarray  # [rows, k] as drawn: -inf where masked, NaN where filtered out
    rows: tuple[str, ...]  # the window's query labels
    start: int  # the window's first query position
    layer: int
    head: int
    average: bool
    keys: slice  # the keys shown (all of a short input)
    k_labels: tuple[str, ...]  # their labels
    outside: float  # the largest weight a shown row puts on all the keys not shown together

    @property
    def title_key(self) -> str:
        """The i18n key of its title, with fields layer and head."""
        return "explorer.mean_title" if self.average else "explorer.head_title"


def key_window(n_k: int, window: tuple[int, int], causal: bool, size: int = KEYS) -> slice:
    """The keys the close-up shows for query rows `window`: all of at most `size`; under a causal mask the `size`
    ending at the last row (no row reads a later key); else the `size` around the rows' middle."""
    if n_k <= size:
        return slice(0, n_k)
    end = min(window[1] + 1, n_k) if causal else min(max((window[0] + window[1] + 1) // 2 + size // 2, size), n_k)
    start = max(end - size, 0)
    return slice(start, start + size)


def focus(g: Grid, average: bool, top_k: int, threshold: float, window: tuple[int, int]) -> Focus:
    """The selected head of `g` (or its layer's mean), rows window[0]..window[1] over the keys that matter to
    them (key_window), filtered by top-k and threshold."""
    lo, hi = window
    keys = key_window(g.selected.shape[-1], window, g.block == "decoder.self_attn")
    full = (g.selected.mean(0) if average else g.selected[g.head])[lo:hi + 1]  # [rows, k]
    weights = full[:, keys]
    masked = (g.blocked.all(0) if average else g.blocked[g.head])[lo:hi + 1, keys]  # the mean is masked where all are
    kept = filter_mask(weights, top_k, threshold, allowed=~masked)
    outside = float((full.sum(1, dtype=np.float64) - weights.sum(1, dtype=np.float64)).max(initial=0.0))
    return Focus(weights, kept, shown_values(weights, masked, kept), g.q_labels[lo:hi + 1], lo, g.layer, g.head,
                 average, keys, tuple(g.k_labels[keys]), max(outside, 0.0))


LINES_MIN = 0.01  # the heads' lines leave out weights under 1 % (drawn at opacity = weight, they would not show)
LINES_MAX = 12_000  # lines one view sends at most: the strongest, the page saying how many it left out


@dataclass(frozen=True)
class HeadLines:
    """Every head of the selected layer as lines from the close-up's query rows to its keys (BertViz's head view):
    line n goes from row `query[n]` to key `key[n]` in head `head[n]` with weight `weight[n]`."""
    head: np.ndarray  # int [n]
    query: np.ndarray  # int [n]: a row of `rows` (0 = the window's first, at position `start`)
    key: np.ndarray  # int [n]: a key of `k_labels` (0 = position keys.start)
    weight: np.ndarray  # float32 [n]
    n_heads: int
    rows: tuple[str, ...]
    start: int
    keys: slice
    k_labels: tuple[str, ...]
    left_out: int  # lines of at least LINES_MIN left out to stay within LINES_MAX, the faintest


def head_lines(g: Grid, top_k: int, threshold: float, window: tuple[int, int]) -> HeadLines:
    """Each head of `g`'s layer over the close-up's rows and keys, filtered as the close-up is (top-k and threshold
    in each head's row), weights under LINES_MIN left out."""
    lo, hi = window
    keys = key_window(g.selected.shape[-1], window, g.block == "decoder.self_attn")
    weights = g.selected[:, lo:hi + 1, keys]  # [heads, rows, keys]
    kept = filter_mask(weights, top_k, max(threshold, LINES_MIN), allowed=~g.blocked[:, lo:hi + 1, keys])
    head, query, key = np.nonzero(kept)
    order = np.sort(np.argsort(-weights[head, query, key], kind="stable")[:LINES_MAX])  # the strongest, in order
    return HeadLines(head[order], query[order], key[order], weights[head, query, key][order].astype(np.float32),
                     weights.shape[0], g.q_labels[lo:hi + 1], lo, keys, tuple(g.k_labels[keys]),
                     max(len(head) - LINES_MAX, 0))


@dataclass(frozen=True)
class Stats:
    """Every statistic of every head of a block (head_stats), and what stands out."""
    values: dict  # name → [layers, heads], in table order
    label_keys: dict  # name → the i18n key of its title
    layer: np.ndarray  # [layers·heads] each table row's layer
    head: np.ndarray  # [layers·heads] each table row's head
    peaks: tuple  # ((name, ((layer, head, value), …)), …) the top heads of each peak statistic
    special: tuple[str, ...]  # labels of the special keys
    cross: bool  # queries and keys are two sentences
    default: str  # the statistic mapped at first

    def column(self, name: str) -> np.ndarray:
        return self.values[name].ravel()

    def zrange(self, name: str):
        """Weights share the attention's 0..1 colour scale; other statistics get their own."""
        return (0, 1) if name in head_stats.PEAK_STATS or name.startswith(DETECTED) else None


DETECTED = "detected_"  # the statistics a head detector found on random tokens repeated once, not on this text


def with_detected(stats: Stats, found: dict) -> Stats:
    """`stats` with each detector's scores {kind: [layers, heads]} (core_model.detectors) as statistics of their own,
    named "detected_<kind>"; as they were without any."""
    if not found:
        return stats
    values = {**stats.values, **{DETECTED + kind: np.asarray(v) for kind, v in found.items()}}
    keys = {**stats.label_keys, **{DETECTED + kind: f"explorer.stat.{DETECTED}{kind}" for kind in found}}
    return dataclasses.replace(stats, values=values, label_keys=keys)


def stats(run, g: Grid, marks: dict) -> Stats:
    """The statistics of every head at every position (hidden ones included), with the key side's `marks`."""
    key_side = blocks.SIDES[g.block][1]
    key = marks[key_side]
    cross = g.kind == "cross_attn"
    if g.every is not None:
        values = head_stats.table(g.every, key.special, cross=cross, frame=key.frame)
    else:  # on demand: each layer's statistics were taken from its full weights during the forward pass (digest)
        stack, kind = blocks.split(g.block)
        digests = [run.trace.digest(stack, i, kind) for i in range(g.patterns.shape[0])]
        values = {s: np.stack([d[s] for d in digests]) for s in digests[0]}
    label_keys = {s: f"explorer.stat.{s}" + (".cross" if cross and s == "distance" else "") for s in values}
    n_layers, n_heads = g.patterns.shape[:2]
    peaks = tuple((s, tuple(head_stats.top(values[s]))) for s in head_stats.PEAK_STATS if s in values)
    labels = blocks.labels(run, key_side)
    return Stats(values, label_keys, np.repeat(np.arange(n_layers), n_heads), np.tile(np.arange(n_heads), n_layers),
                 peaks, tuple(labels[j] for j in np.flatnonzero(key.special)), cross,
                 "previous" if "previous" in values else "entropy")


def digest(marks: dict, cores: int = _CORES):
    """An on-demand trace's digest (core_model/trace/on_demand.py): the statistics `stats` gives of every head,
    taken from each block's full weights [b, h, q, k] while they exist; `marks` {side: Marks} as for `stats`.
    The heads are shared out among a thread per core, `cores` of them (numpy lets go of the GIL over whole arrays):
    at real size the statistics took as long as the forward pass itself in one thread (SmolLM2-135M, 1,500 tokens:
    8 s). With one, they are taken in the calling thread."""
    def of(name: str, weights: np.ndarray) -> dict[str, np.ndarray]:
        parts = name.split(".")  # <stack>.layers.<i>.<kind>.pattern
        key = marks[blocks.SIDES[f"{parts[0]}.{parts[3]}"][1]]
        cuts = np.linspace(0, weights.shape[1], min(cores, weights.shape[1]) + 1).astype(int)  # views, not copies
        table = lambda a, b: head_stats.table(weights[:1, a:b], key.special,  # noqa: E731
                                              cross=parts[3] == "cross_attn", frame=key.frame)
        found = list((_POOL.map if cores > 1 else map)(table, cuts[:-1], cuts[1:]))
        return {s: np.concatenate([f[s][0] for f in found]) for s in found[0]}  # [heads] each
    return of


def marks_of(tokenizer, ids) -> Marks:
    """Which of `ids` the tokenizer calls special, and which frame the input ([CLS] … [SEP]) if it frames it."""
    frame = tuple(np.array([i == end for i in ids], bool) for end in (tokenizer.bos_id, tokenizer.eos_id))
    return Marks(np.array([tokenizer.is_special(i) for i in ids], bool), frame if tokenizer.frames_input else None)
