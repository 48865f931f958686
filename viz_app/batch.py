"""The masks page's batch: sentences padded together, the masks each attention block used.

Plain helpers; loaders.padded_batch caches the traced batch itself.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from core_model import masks
from core_model.trace import Trace


BATCH_SIZES = (2, 4)  # fewest and most sentences in the masks page's batch
BLOCK_SIDES = {"encoder.self_attn": ("src", "src"), "decoder.self_attn": ("tgt", "tgt"),
               "decoder.cross_attn": ("tgt", "src")}  # attention block → (query side, key side)


def attention_blocks(cfg) -> list[str]:
    """The attention blocks a model has, as 'stack.kind'."""
    has = {"encoder": cfg.has_encoder, "decoder": cfg.has_decoder, "src": cfg.has_encoder, "tgt": cfg.has_decoder}
    return [b for b, (_, keys) in BLOCK_SIDES.items() if has[b.split(".")[0]] and has[keys]]


def batch_lines(text: str) -> tuple[tuple[str, ...], str | None]:
    """The sentences of a batch, one per line, and the i18n key of what is wrong with them (or None)."""
    # Only a newline ends a line: splitlines() would also break at control characters (\x0b, \x1c…), which
    # are removed from each sentence instead, with a notice.
    lines = tuple(line.strip() for line in text.strip().split("\n")) if text.strip() else ()
    if not lines or any(not line for line in lines):
        return lines, "masks.bad.empty_line" if lines else "masks.bad.count"
    if not BATCH_SIZES[0] <= len(lines) <= BATCH_SIZES[1]:
        return lines, "masks.bad.count"
    return lines, None


class SentenceError(ValueError):
    """A sentence of a batch that gives the model nothing to read; `line` counts from 1."""

    def __init__(self, line: int):
        super().__init__(f"sentence {line} has nothing the model can read.")
        self.line = line


def pad_rows(rows, pad_id: int) -> np.ndarray:
    """Id sequences of different lengths → [b, longest] int64, filled on the right with pad_id."""
    out = np.full((len(rows), max(len(r) for r in rows)), pad_id, dtype=np.int64)
    for i, row in enumerate(rows):
        out[i, :len(row)] = row
    return out


@dataclass(frozen=True)
class Batch:
    """Sentences padded together and run in ONE traced forward pass, with the masks that pass used.

    Each sentence's own ids are those of `run(name, sentence)`: the same tokenization and, for a
    translator, its own greedy translation as decoder input. `masks[block][kind]` are [b, q, k]
    booleans (True = may attend) for kind "padding" and, in decoder self-attention, "causal" and
    "combined" (both at once); the padding mask is all True when the run switched it off.
    """
    sentences: tuple[str, ...]
    src_ids: np.ndarray  # [b, s] encoder input, pad_id on the right ([b, 0] for a decoder-only model)
    tgt_ids: np.ndarray  # [b, t] decoder input ([b, 0] for an encoder-only model)
    src_labels: tuple[tuple[str, ...], ...]  # per sentence, "5·<pad>" included
    tgt_labels: tuple[tuple[str, ...], ...]
    trace: Trace
    masks: dict
    invariance: tuple[float, ...]  # per sentence: max |batched − alone| of the model's output on real tokens
    notices: tuple[tuple[str, dict], ...]


def final_output(trace: Trace, cfg) -> np.ndarray:
    """What the model hands out: logits with a decoder, else the encoder's last hidden states."""
    if cfg.has_decoder:
        return trace["logits"]
    last = cfg.n_encoder_layers - 1
    return trace["encoder.final_norm"] if "encoder.final_norm" in trace else trace.layer_output("encoder", last)


def batch_masks(cfg, src, tgt, pad_mask: bool) -> dict:
    """The masks of each attention block for ids src [b, s] and tgt [b, t], as [b, q, k] numpy booleans."""
    out, b = {}, (src if cfg.has_encoder else tgt).shape[0]

    def keys_ok(ids, q_len):  # [b, 1, 1, k] padding mask → [b, q, k]; all True when switched off
        mask = masks.padding_mask(torch.as_tensor(ids), cfg.pad_id)[:, 0] if pad_mask else \
            torch.ones(ids.shape[0], 1, ids.shape[1], dtype=torch.bool)
        return mask.expand(-1, q_len, -1).numpy()

    if cfg.has_encoder:
        padding = keys_ok(src, src.shape[1])
        out["encoder.self_attn"] = {"padding": padding}
    if cfg.has_decoder:
        padding = keys_ok(tgt, tgt.shape[1])
        causal = masks.causal_mask(tgt.shape[1])[0].expand(b, -1, -1).numpy()  # [b, t, t]
        out["decoder.self_attn"] = {"padding": padding, "causal": causal, "combined": padding & causal}
    if cfg.architecture == "encoder-decoder":
        padding = keys_ok(src, tgt.shape[1])
        out["decoder.cross_attn"] = {"padding": padding}
    return out
