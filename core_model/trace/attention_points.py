"""What attention() records at its split points, and which of them the trace derives instead of keeping.

nn/attention.py's attention() hands each step to a hook: the scores Q Kᵀ, the scaled scores (+ any ALiBi
bias), the masked scores, the weights (`pattern`) and each head's output (`z`). While a trace records, the
attention block passes an AttentionPoints, which keeps `pattern` and `z` as they are and, for the three
[b, h, q, k] score arrays, notes a recipe instead (hook_points.derive): the scores from the kept q and k, the
scaled ones from the scores, the divisor and the bias's own arguments, the masked ones from the scaled and the
mask. They are computed, bit for bit, only when someone reads them. What cannot be rebuilt (scores not in
float32, a bias without a recipe) is kept as a copy of what was computed: attention() goes on in place.
"""
from __future__ import annotations

import torch

from .hook_points import edit, edited, half, reach, record, record_derived, summarize

DERIVED = ("scores_scaled", "scores_masked")  # derived from the scores
FROM_QK = ("scores", *DERIVED)  # derived, in the end, from q and k


class AttentionPoints:
    """attention()'s hook for one call of one attention block: records each step under the block's path."""
    FROM_QK = FROM_QK

    def __init__(self, module, mask, divisor: float | None, bias, bias_recipe):
        """`mask`: the block's mask if it blocks any key, else None."""
        self.module, self.mask, self.divisor = module, mask, divisor
        self.bias, self.bias_recipe = bias, bias_recipe
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

    def scores_in_blocks(self) -> None:
        """The score steps of a call made by blocks: derived where the trace wants them, else only reached."""
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

    def z(self, value) -> None:
        record(self.module, "z", value)
