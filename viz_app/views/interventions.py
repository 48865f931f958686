"""Heads knocked out (the decoding page's section): which heads a visitor can remove, what changed in the output, and
the sweep's drops as one layer × head grid per attention block. Plain numpy; the numbers are
core_model.interventions' (through loaders.knocked_out and loaders.output_score)."""
from __future__ import annotations

import ast
from dataclasses import dataclass

import numpy as np

from . import blocks

Head = tuple[str, int, int]  # (block "stack.kind", layer, head)
MAX_LINK_HEADS = 4096  # characters of a link's list of heads at most (about 100 heads)


def heads(cfg) -> tuple[Head, ...]:
    """Every head of every attention block of the model (blocks.blocks' order: the encoder's first)."""
    layers = {"encoder": cfg.n_encoder_layers, "decoder": cfg.n_decoder_layers}
    return tuple((b, layer, h) for b in blocks.blocks(cfg) for layer in range(layers[blocks.split(b)[0]])
                 for h in range(cfg.n_heads))


def parse_heads(raw: str) -> list[Head]:
    """A link's list of heads, as the page writes it ("[('encoder.self_attn', 2, 1)]") → [(block, layer, head)];
    ValueError for anything else."""
    if len(raw) > MAX_LINK_HEADS:  # a link's list of heads is short; a long one could nest deep enough to hurt
        raise ValueError(raw[:80])
    try:
        value = ast.literal_eval(raw)  # literals only: nothing in a link is run
    except (SyntaxError, RecursionError, MemoryError) as e:
        raise ValueError(raw[:80]) from e
    if not isinstance(value, list) or not all(
            isinstance(h, tuple) and len(h) == 3 and isinstance(h[0], str)
            and all(isinstance(i, int) and not isinstance(i, bool) for i in h[1:]) for h in value):
        raise ValueError(raw)
    return value


def changed(original, knocked) -> list[bool]:
    """For each token of the knocked-out output, whether it differs from the original's at that position (a token
    past the original's end is a change)."""
    return [i >= len(original) or token != original[i] for i, token in enumerate(knocked)]


@dataclass(frozen=True)
class Sweep:
    """Each head removed alone: the drop in log P(original output), NaN where not tried (the time ran out)."""
    drops: dict  # block → [layers, heads]
    tried: int
    total: int

    @property
    def done(self) -> bool:
        return self.tried == self.total

    def strongest(self) -> Head:
        """The head whose removal lowers the output's log-probability most."""
        block = max(self.drops, key=lambda b: np.nanmax(self.drops[b], initial=-np.inf))
        layer, head = np.unravel_index(np.nanargmax(self.drops[block]), self.drops[block].shape)
        return block, int(layer), int(head)


def sweep(all_heads, scores: dict, base: float) -> Sweep:
    """The drops from `scores` {head: log P with it removed} of the heads tried so far, `base` the unedited one."""
    layers, width = {}, {}
    for block, layer, head in all_heads:
        layers[block], width[block] = max(layers.get(block, 0), layer + 1), max(width.get(block, 0), head + 1)
    drops = {b: np.full((layers[b], width[b]), np.nan) for b in layers}
    for (block, layer, head), score in scores.items():
        drops[block][layer, head] = base - score
    return Sweep(drops, len(scores), len(all_heads))

