"""Two heads side by side, with their difference on one diverging scale (numpy): the explorer's comparison.

A head is named "block:layer:head" (encoder.self_attn:0:1), so a pair fits in a link. The two heads come from two
runs: one run twice (two heads of one model on one sentence), one model on two sentences, or two models on one
sentence. Their difference is taken over the tokens the runs share: each side's token labels are aligned by their
pieces (positions left out, difflib.SequenceMatcher), and a − b is kept at the matched query rows × matched key
columns, so a run against itself keeps every cell. Two heads whose queries or keys read different texts (an encoder
self-attention head reads the typed sentence, a cross-attention head's queries read the output) have no difference
and are shown side by side only.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass

import numpy as np

from . import blocks


def head_id(block: str, layer: int, head: int) -> str:
    return f"{block}:{layer}:{head}"


def parse_head(name: str) -> tuple[str, int, int]:
    block, layer, head = name.split(":")
    return block, int(layer), int(head)


def head_ids(cfg, trace) -> tuple[str, ...]:
    """Every head the model has, block by block, layer by layer."""
    return tuple(head_id(b, layer, h) for b in blocks.blocks(cfg)
                 for layer in range(trace.n_layers(blocks.split(b)[0])) for h in range(cfg.n_heads))


def piece(label: str) -> str:
    """'3·the' → 'the': a token label without its position."""
    return label.partition("·")[2]


def reads(run, side: str) -> str:
    """What a side's tokens are: the typed text (the source, or a decoder-only model's prompt) or the output."""
    return "text" if side == "src" or not run.src_ids else "output"


def align(a_labels, b_labels) -> tuple[np.ndarray, np.ndarray]:
    """The positions in a and in b of the tokens matched by their pieces, in order (the same labels: all of them)."""
    if tuple(a_labels) == tuple(b_labels):  # one run against itself, or two models that read it alike
        every = np.arange(len(a_labels))
        return every, every
    matcher = difflib.SequenceMatcher(None, [piece(x) for x in a_labels], [piece(x) for x in b_labels],
                                      autojunk=False)  # autojunk would drop frequent tokens ("the") from long texts
    found = matcher.get_matching_blocks()
    return (np.array([m.a + i for m in found for i in range(m.size)], dtype=np.int64),
            np.array([m.b + i for m in found for i in range(m.size)], dtype=np.int64))


def shared_label(a_label: str, b_label: str) -> str:
    """A matched token's label: '3·the' where both runs have it at 3, '3/4·the' where b has it at 4."""
    a_pos, _, text = a_label.partition("·")
    b_pos = b_label.partition("·")[0]
    return a_label if a_pos == b_pos else f"{a_pos}/{b_pos}·{text}"


def left_out(labels, kept: np.ndarray) -> tuple[str, ...]:
    """The labels whose positions are not in `kept`."""
    kept = set(kept.tolist())
    return tuple(label for i, label in enumerate(labels) if i not in kept)


@dataclass(frozen=True)
class Pair:
    a: np.ndarray  # [q, k] the first head's weights
    b: np.ndarray  # [q', k'] the second's
    labels: tuple  # ((q labels, k labels) of a, (q labels, k labels) of b)
    diff: np.ndarray | None  # [m, n] a − b at the matched queries × matched keys, or None (see `why`)
    shared: tuple  # (q labels, k labels) of diff: the matched tokens (shared_label)
    unmatched: tuple  # (labels of a, labels of b) that nothing in the other run matches, the queries' side first
    largest: tuple  # ((query, key, a, b, a − b), …), the largest |a − b| first
    why: str = ""  # no diff: "unlike" (queries or keys read different texts), "disjoint" (no token matched)


def weights(run, name: str) -> tuple[np.ndarray, tuple, tuple]:
    """One head's weights in `run` (batch 0), its (q labels, k labels) and the texts they read."""
    block, layer, head = parse_head(name)
    stack, kind = blocks.split(block)
    sides = blocks.SIDES[block]
    return (np.asarray(run.trace.attn(stack, layer, kind).pattern[0, head], dtype=np.float32),
            tuple(blocks.labels(run, side) for side in sides), tuple(reads(run, side) for side in sides))


def pair(run_a, head_a: str, run_b, head_b: str, top: int = 8) -> Pair:
    """Head `head_a` of run_a and `head_b` of run_b, their difference over the tokens they share, its `top` largest."""
    (a, labels_a, texts_a), (b, labels_b, texts_b) = weights(run_a, head_a), weights(run_b, head_b)
    labels = (labels_a, labels_b)
    if texts_a != texts_b:
        return Pair(a, b, labels, None, (), (), (), "unlike")
    (q_a, q_b), (k_a, k_b) = matched = [align(x, y) for x, y in zip(labels_a, labels_b)]  # queries', keys'
    sides = (0,) if texts_a[0] == texts_a[1] else (0, 1)  # a self-attention head's keys are its queries
    unmatched = tuple(tuple(label for s in sides for label in left_out(labels[w][s], matched[s][w])) for w in (0, 1))
    if not len(q_a) or not len(k_a):
        return Pair(a, b, labels, None, (), unmatched, (), "disjoint")
    a_kept, b_kept = a[np.ix_(q_a, k_a)], b[np.ix_(q_b, k_b)]
    diff = a_kept - b_kept
    shared = (tuple(shared_label(labels_a[0][i], labels_b[0][j]) for i, j in zip(q_a, q_b)),
              tuple(shared_label(labels_a[1][i], labels_b[1][j]) for i, j in zip(k_a, k_b)))
    order = np.argsort(-np.abs(diff), axis=None, kind="stable")[:top]
    largest = tuple((shared[0][i // diff.shape[1]], shared[1][i % diff.shape[1]], float(a_kept.flat[i]),
                     float(b_kept.flat[i]), float(diff.flat[i])) for i in order)
    return Pair(a, b, labels, diff, shared, unmatched, largest)
