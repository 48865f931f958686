"""Two heads side by side, with their difference on one diverging scale (numpy): the explorer's comparison.

A head is named "block:layer:head" (encoder.self_attn:0:1), so a pair fits in a link. Two heads over the same
queries and keys (any layer, any block of the same sides) have a difference; two that are not (an encoder
self-attention head and a cross-attention head) are shown side by side only.
"""
from __future__ import annotations

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


@dataclass(frozen=True)
class Pair:
    a: np.ndarray  # [q, k] the first head's weights
    b: np.ndarray  # [q', k'] the second's
    diff: np.ndarray | None  # a − b, or None when their queries and keys differ
    labels: tuple  # ((q labels, k labels) of a, (q labels, k labels) of b)
    largest: tuple  # ((query, key, a, b, a − b), …), the largest |a − b| first


def pair(run, first: str, second: str, top: int = 8) -> Pair:
    """The two heads' attention weights in `run` (batch 0), their difference and its `top` largest cells."""
    weights, labels = [], []
    for name in (first, second):
        block, layer, head = parse_head(name)
        stack, kind = blocks.split(block)
        weights.append(np.asarray(run.trace.attn(stack, layer, kind).pattern[0, head], dtype=np.float32))
        labels.append(tuple(blocks.labels(run, side) for side in blocks.SIDES[block]))
    a, b = weights
    if labels[0] != labels[1]:
        return Pair(a, b, None, tuple(labels), ())
    diff = a - b
    order = np.argsort(-np.abs(diff), axis=None, kind="stable")[:top]
    q_labels, k_labels = labels[0]
    largest = tuple((q_labels[i // diff.shape[1]], k_labels[i % diff.shape[1]], float(a.flat[i]), float(b.flat[i]),
                     float(diff.flat[i])) for i in order)
    return Pair(a, b, diff, tuple(labels), largest)
