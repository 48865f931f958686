"""Which heads matter to an output: the model's own output scored again with heads knocked out, and how far copying
one head or layer from another run moves the model's prediction toward that run's (trace.edits).

Attention weights say where a head looks, not whether what it finds matters. Here a head is removed (its output z
set to zero, so W_O reads nothing from it) and the model's output is scored again, teacher-forced: how much less
likely the whole output becomes is how much the model needed that head for it.
"""
from __future__ import annotations

import time
from typing import Callable

import numpy as np
import torch

from .nn.model import Transformer
from .trace import run_with_trace
from .trace.edits import patch, zero


def blocks(model: Transformer) -> list[tuple[str, int, int]]:
    """The model's attention blocks as (block "stack.kind", layers, heads), encoder first."""
    cfg = model.cfg
    out = []
    if cfg.has_encoder:
        out.append(("encoder.self_attn", cfg.n_encoder_layers, cfg.n_heads))
    if cfg.has_decoder:
        out.append(("decoder.self_attn", cfg.n_decoder_layers, cfg.n_heads))
    if cfg.has_encoder and cfg.has_decoder:
        out.append(("decoder.cross_attn", cfg.n_decoder_layers, cfg.n_heads))
    return out


def knockout(block: str, layer: int, head: int):
    """The edit that removes one head: its output z zeroed."""
    stack, kind = block.split(".")
    return zero(f"{stack}.layers.{layer}.{kind}.z", head=head)


def output_log_prob(model: Transformer, src_ids, out_ids, ended: bool, edits=()) -> float:
    """log P(out_ids, and eos if `ended`) under the model, teacher-forced, with `edits` made: decoding's log_prob
    for the output it chose (the same arithmetic in one pass instead of one per step).

    `src_ids` is the source of an encoder-decoder model, the prompt of a decoder-only one (as for decoding)."""
    cfg = model.cfg
    start = tuple(cfg.decoder_start) if cfg.has_encoder else (cfg.bos_id, *src_ids)
    wanted = [*out_ids, cfg.eos_id] if ended else list(out_ids)
    if not wanted:
        return 0.0
    tgt = [*start, *wanted][:-1]  # each position predicts the next
    logits, _ = run_with_trace(model, list(src_ids) if cfg.has_encoder else None, tgt, pad_mask=False, names=(),
                               edits=edits)
    read = torch.log_softmax(logits[0, len(start) - 1:].double(), -1)  # the positions that predict `wanted`
    return float(read[torch.arange(len(wanted)), torch.tensor(wanted)].sum())


def sweep(model: Transformer, src_ids, out_ids, ended: bool, progress: Callable[[float], None] | None = None,
          seconds: float | None = None) -> tuple[dict[str, np.ndarray], bool]:
    """Each head knocked out alone: ({block: drop [layers, heads]}, done). A drop is how much the output's
    log-probability falls without that head (negative: the output became more likely). With `seconds`, no head
    is tried once that much time has passed: the heads not tried are NaN and done is False."""
    base = output_log_prob(model, src_ids, out_ids, ended)
    found = {block: np.full((layers, heads), np.nan) for block, layers, heads in blocks(model)}
    cells = [(b, layer, h) for b, layers, heads in blocks(model) for layer in range(layers) for h in range(heads)]
    deadline = float("inf") if seconds is None else time.monotonic() + seconds
    for i, (block, layer, head) in enumerate(cells):
        if time.monotonic() > deadline:
            return found, False
        found[block][layer, head] = base - output_log_prob(model, src_ids, out_ids, ended,
                                                           [knockout(block, layer, head)])
        if progress is not None:
            progress((i + 1) / len(cells))
    return found, True


def logit_difference(logits: torch.Tensor, position: int, token_a: int, token_b: int) -> float:
    """How much more the model prefers A's token to B's at `position`: logit(a) − logit(b)."""
    return float(logits[0, position, token_a] - logits[0, position, token_b])


def patching(model: Transformer, run_a: tuple, run_b: tuple, position: int, token_a: int, token_b: int,
             seconds: float | None = None) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], bool]:
    """Activation patching from run A into run B ((src, tgt) ids each, of the same shapes): each head's output z, then
    each whole block's output (an attention block's, after W_O; an FFN's), copied from A into B alone. How far each
    moves B's preference between A's next token and B's toward A's: (LD_patched − LD_B) / (LD_A − LD_B), 0 = as B,
    1 = as A, LD the logit difference at `position`. Returns ({block: [layers, heads]}, {block or "<stack>.ffn":
    [layers]}, done); with `seconds`, what is not tried in time is NaN and done is False."""
    logits_a, trace_a = run_with_trace(model, *run_a)
    logits_b, _ = run_with_trace(model, *run_b, names=())
    ld_a, ld_b = (logit_difference(x, position, token_a, token_b) for x in (logits_a, logits_b))
    if ld_a == ld_b:
        raise ValueError("the two runs prefer A's token over B's by the same margin: nothing to move toward.")
    heads = {block: np.full((layers, n), np.nan) for block, layers, n in blocks(model)}
    whole = {name: np.full(layers, np.nan) for name, layers in _block_outputs(model)}
    cells = [(heads[b], (layer, h), f"{b.split('.')[0]}.layers.{layer}.{b.split('.')[1]}.z", h)
             for b, layers, n in blocks(model) for layer in range(layers) for h in range(n)]
    cells += [(whole[name], (layer,), f"{name.split('.')[0]}.layers.{layer}.{name.split('.')[1]}.out", None)
              for name, layers in _block_outputs(model) for layer in range(layers)]
    deadline = float("inf") if seconds is None else time.monotonic() + seconds
    for grid, where, value, head in cells:
        if time.monotonic() > deadline:
            return heads, whole, False
        logits, _ = run_with_trace(model, *run_b, names=(), edits=[patch(value, trace_a, head)])
        grid[where] = (logit_difference(logits, position, token_a, token_b) - ld_b) / (ld_a - ld_b)
    return heads, whole, True


def _block_outputs(model: Transformer) -> list[tuple[str, int]]:
    """The blocks whose whole output patching copies, with their layers: each attention block, each stack's FFN."""
    found = [(block, layers) for block, layers, _ in blocks(model)]
    return found + [(f"{stack}.ffn", layers) for stack, layers in
                    (("encoder", model.cfg.n_encoder_layers if model.cfg.has_encoder else 0),
                     ("decoder", model.cfg.n_decoder_layers if model.cfg.has_decoder else 0)) if layers]
