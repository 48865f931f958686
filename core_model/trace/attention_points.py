"""What attention() records at its split points, and which of them the trace derives instead of keeping.

nn/attention.py's attention() hands each step to a hook: the scores Q Kᵀ, the scaled scores (+ any ALiBi
bias), the masked scores, the weights (`pattern`) and each head's output (`z`). While a trace records, the
attention block passes an AttentionPoints, which keeps `pattern` as it is, notes `z` as computed again from the
weights and v (hook_points.record_call) and, for the three [b, h, q, k] score arrays, notes a recipe instead
(hook_points.derive): the scores from q and k, the scaled ones from the scores, the divisor and the bias's own
arguments, the masked ones from the scaled and the mask. They are computed, bit for bit, only when someone reads
them. What cannot be rebuilt (scores not in float32, a bias without a recipe) is kept as a copy of what was
computed: attention() goes on in place.
"""
from __future__ import annotations

import functools

import torch

from .hook_points import edit, edited, half, heads_product, reach, record, record_call, record_derived, summarize

DERIVED = ("scores_scaled", "scores_masked")  # derived from the scores
FROM_QK = ("scores", *DERIVED)  # derived, in the end, from q and k


class AttentionPoints:
    """attention()'s hook for one call of one attention block: records each step under the block's path."""
    FROM_QK = FROM_QK

    def __init__(self, module, mask, divisor: float | None, bias, bias_recipe, v):
        """`mask`: the block's mask if it blocks any key, else None; `v` the values the weights mix."""
        self.module, self.mask, self.divisor = module, mask, divisor
        self.bias, self.bias_recipe, self.v = bias, bias_recipe, v
        self.weights, self.blocks = None, None  # the weights as computed; the blocks of queries they were computed by
        self.scores_noted = False  # are the scores in the trace (kept or derived), so their successors can be derived?

    def __call__(self, leaf: str, value: torch.Tensor) -> torch.Tensor:
        getattr(self, leaf)(value)
        return value

    def scores(self, value) -> None:
        derived = value.dtype == torch.float32 and record_derived(self.module, "scores",
                                                                  ("product", ("q", "k")), DERIVED)
        self.scores_noted = derived or record(self.module, "scores", value, needed_by=DERIVED, copy=True)

    def scores_scaled(self, value) -> None:
        rebuildable = self.bias is None or self.bias_recipe is not None
        if self.scores_noted and value.dtype == torch.float32 and rebuildable:
            record_derived(self.module, "scores_scaled", ("scaled", ("scores",), self.divisor, self.bias_recipe))
        else:
            record(self.module, "scores_scaled", value, needed_by=("scores_masked",), copy=True)

    def scores_masked(self, value) -> None:
        record_derived(self.module, "scores_masked", ("masked", ("scores_scaled",), self.mask))

    def in_blocks(self, dtype: torch.dtype) -> bool:
        """Whether attention may run by blocks of queries while this records (nn/attention.attention_in_blocks): the
        score steps can be derived from q and k (they are never made whole), and no edit changes a step (an edit is
        made in a whole array, and the steps after it read it)."""
        rebuildable = self.bias is None or self.bias_recipe is not None
        steps = (*FROM_QK, "pattern", "z")
        return dtype == torch.float32 and rebuildable and not any(edited(self.module, leaf) for leaf in steps)

    def scores_in_blocks(self, blocks) -> None:
        """The score steps of a call made by `blocks` (masks.query_blocks): derived where the trace wants them, else
        only reached."""
        self.blocks = blocks
        self.scores_noted = record_derived(self.module, "scores", ("product", ("q", "k")), DERIVED)
        if self.scores_noted:
            record_derived(self.module, "scores_scaled", ("scaled", ("scores",), self.divisor, self.bias_recipe))
            self.scores_masked(None)
        else:
            for leaf in FROM_QK:
                reach(self.module, leaf)

    def pattern(self, value) -> None:
        if half():  # float16 on request: an edit is made in the weights themselves first (record makes it again)
            edit(self.module, "pattern", value)
        record(self.module, "pattern", value.to(torch.float16) if half() else value)
        summarize(self.module, "pattern", value)  # an on-demand trace keeps it pooled
        self.weights = value

    def z(self, value) -> None:
        """pattern @ V, computed again when read from the kept weights and values (not from float16 weights: they are
        a copy, with no name in the trace, so z is kept)."""
        if self.blocks is None:
            record_call(self.module, "z", value, heads_product, self.weights, self.v)
        else:
            record_call(self.module, "z", value, functools.partial(weighted_in_blocks, blocks=self.blocks),
                        self.weights, self.v)


def weighted_in_blocks(weights: torch.Tensor, v: torch.Tensor, blocks) -> torch.Tensor:
    """pattern @ V as nn.attention.attention_in_blocks computes it, one block of queries at a time against the keys
    it sees (each block's weights a tensor of their own there), so that z derived from the whole weights has the
    forward's bits."""
    z = weights.new_empty(*weights.shape[:-1], v.shape[-1])
    for first, end, seen in blocks:
        z[:, :, first:end] = heads_product(weights[:, :, first:end, :seen].contiguous(), v[:, :, :seen])
    return z
