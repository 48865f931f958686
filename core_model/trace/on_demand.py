"""A trace that fits (issue 36): at real size, keep what a page reads and compute a layer's values when it is read.

A full trace of GPT-2 small at 1,024 tokens holds 1.5 GiB, most of it every layer's [b, h, q, k] weights; a page
draws a pooled grid of every head and one layer up close. So an on-demand trace keeps, from the forward pass:

- what is not per layer (the embeddings, a stack's final norm and relative bias, the output layer's input),
- each layer's input (`resid_pre`, [b, pos, d_model]: small), with what the stack handed its layers (masks, the
  encoder's output, the relative bias),
- each attention block's weights max-pooled into at most `side` × `side` cells (`pooled`, with their block), and
  whatever `digest(name, weights)` makes of the full weights while they exist (the page's per-head statistics);
- the logits as a recipe: the output layer applied to its input when read.

Any other value of layer i, when read, comes from running layer i again on its recorded input with the same masks,
recording everything: the same module, the same input tensor and the same operations, so the same bits as a full
trace (tests/core/test_on_demand.py checks every value of every layer). The layers computed so far are kept in one
cache for the whole process, bounded by LAYER_BYTES (the oldest go first; a layer alone over it is not kept); a
trace's layers leave it when the trace is gone.
"""
from __future__ import annotations

import itertools
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch
import torch.nn.functional as F

POOL_SIDE = 256  # cells a side of each head's pooled weights at most: the grid draws fewer
LAYER_BYTES = 512 * 2**20  # the layers computed on reading, all traces together (Qwen2-0.5B at 2,048 tokens: ~330 MiB)


@dataclass(frozen=True)
class OnDemand:
    """How an on-demand trace records: the pooled side, and an optional digest of each block's full weights."""
    side: int = POOL_SIDE
    digest: Callable[[str, np.ndarray], object] | None = None  # (pattern name, [b, h, q, k] weights) → kept as is

    def keeps(self, name: str) -> bool:
        """Kept from the forward pass: everything outside the layers, and each layer's input."""
        return ".layers." not in name or name.endswith(".resid_pre")


def pool_block(n_q: int, n_k: int, side: int) -> int:
    """The block side that brings [n_q, n_k] within side × side cells."""
    return max(1, math.ceil(max(n_q, n_k) / side))


def pool_max(weights: torch.Tensor, block: int) -> np.ndarray:
    """[..., q, k] → each block × block square's largest weight (a partial square at the edge: of what it covers),
    as viz_app.figures.attention.pool_max does in numpy (there without padding)."""
    if block == 1:
        return weights.detach().to(torch.float32).cpu().numpy().copy()
    *lead, n_q, n_k = weights.shape
    rows, cols = -(-n_q // block), -(-n_k // block)
    w = weights.detach().to(torch.float32)
    if (rows * block, cols * block) != (n_q, n_k):
        w = F.pad(w, (0, cols * block - n_k, 0, rows * block - n_q))  # weights ≥ 0: the zeros never win
    w = w.reshape(*lead, rows, block, cols * block).amax(dim=-2)  # each block of rows to its largest, then each
    pooled = w.reshape(*lead, rows, cols, block).amax(dim=-1)  # block of columns: 4x max_pool2d's speed here
    return pooled.cpu().numpy()  # pooled on the model's device, then copied


def layer_of(name: str) -> tuple[str, int] | None:
    """'decoder.layers.3.self_attn.z' → ('decoder', 3); None for a name outside the layers."""
    stack, sep, rest = name.partition(".layers.")
    index = rest.split(".", 1)[0]
    return (stack, int(index)) if sep and index.isdigit() else None


_ids = itertools.count()


class LayerCache:
    """Layers computed on reading, by (trace, stack, layer): one bound in bytes for every trace of the process."""

    def __init__(self, max_bytes: int = LAYER_BYTES):
        self.max_bytes = max_bytes
        self._items: OrderedDict = OrderedDict()  # key → (Recorder, bytes), oldest first
        self._lock = threading.Lock()

    @staticmethod
    def new_id() -> int:
        return next(_ids)  # a trace's key part: unlike id(), never reused by a later trace

    @property
    def nbytes(self) -> int:
        with self._lock:
            return sum(n for _, n in self._items.values())

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def forget(self, trace: int) -> None:
        """Drop the layers of a trace (its new_id) that is gone: nobody can read them again."""
        with self._lock:
            for key in [k for k in self._items if k[0] == trace]:
                del self._items[key]

    def get(self, key, compute: Callable):
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key][0]
        layer = compute()  # outside the lock: two sessions may each compute a layer the other has not asked for
        size = layer.nbytes()
        with self._lock:
            if size <= self.max_bytes:
                self._items[key] = (layer, size)
            total = sum(n for _, n in self._items.values())
            while total > self.max_bytes:
                _, (_, dropped) = self._items.popitem(last=False)
                total -= dropped
        return layer


LAYERS = LayerCache()


def recompute(context: dict, x: torch.Tensor, index: int, scale: bool, half: bool, recording) -> object:
    """Run layer `index` of a stack again on its recorded input `x`, recording everything it computes, each value
    kept as itself (`whole`: it is computed to be read); → that Recorder. `context` is what Stack.forward handed its
    layers (hook_points.remember), `recording` hook_points.recording."""
    stack = context["stack"]
    mask = context["local_mask"] if index in stack.local else context["mask"]
    with torch.no_grad(), recording(scale, half=half, whole=True) as layer:
        stack.layers[index](x, mask, context["memory"], context["memory_mask"], context["start"], None,
                            context["bias"])
    return layer
