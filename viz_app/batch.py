"""The masks page's batch: sentences padded together, the masks each attention block used.

What needs torch, for loaders.padded_batch (which caches the traced batch) and for loaders only; the
batch's views are in viz_app.views.masks.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from core_model.nn import masks
from core_model.trace import Trace

from .views.masks import padding


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
    "combined" (both at once), and for a model with local layers "window" (the causal mask cut to the last
    `window` keys) and "combined_window"; the padding mask is all True when the run switched it off.
    """
    sentences: tuple[str, ...]
    src_ids: np.ndarray  # [b, s] encoder input, pad_id on the right ([b, 0] for a decoder-only model)
    tgt_ids: np.ndarray  # [b, t] decoder input ([b, 0] for an encoder-only model)
    # {"src": [b], "tgt": [b]}: each sentence's own tokens on each side; what lies past them is padding. Told by
    # length, not by pad_id: GPT-2 pads with <|endoftext|>, which is also the <s> every sentence starts with.
    lengths: dict
    src_labels: tuple[tuple[str, ...], ...]  # per sentence, "5·<pad>" included
    tgt_labels: tuple[tuple[str, ...], ...]
    trace: Trace
    masks: dict
    invariance: tuple[float, ...]  # per sentence: max |batched − alone| of the model's output on real tokens
    notices: tuple[tuple[str, dict], ...]
    window: int = 0  # the local layers' window (ModelConfig.window); 0: every layer sees every earlier token
    window_layers: tuple[int, ...] = ()  # the decoder layers that use it (their masks: "window", "combined_window")


def final_output(trace: Trace, cfg) -> np.ndarray:
    """What the model hands out: logits with a decoder, else the encoder's last hidden states."""
    if cfg.has_decoder:
        return trace["logits"]
    last = cfg.n_encoder_layers - 1
    return trace["encoder.final_norm"] if "encoder.final_norm" in trace else trace.layer_output("encoder", last)


def invariance(batched: Trace, alone: list[Trace], cfg) -> tuple[float, ...]:
    """Per sentence: max |batched − alone| of the model's output on its own tokens, between the batch's trace and
    the sentence's own (its run's). Padding that leaks into real tokens shows here as more than rounding."""
    out = final_output(batched, cfg)
    return tuple(float(np.abs(out[i, :one.shape[1]] - one[0]).max())
                 for i, one in enumerate(final_output(trace, cfg) for trace in alone))


def batch_masks(cfg, src, tgt, pad_mask: bool, lengths: dict) -> dict:
    """The masks of each attention block for ids src [b, s] and tgt [b, t] (each sentence's own tokens counted in
    `lengths`), as [b, q, k] numpy booleans (Batch.masks). The padding mask is all True when the run switched it
    off, and for a model that masks no padding (cfg.mask_padding false: GPT-2's, whose padding is its <s> token)."""
    out, b = {}, (src if cfg.has_encoder else tgt).shape[0]
    masked = pad_mask and cfg.mask_padding

    def keys_ok(side, ids, q_len):  # [b, k] → [b, q, k]
        ok = ~padding(ids, lengths[side]) if masked else np.ones(ids.shape, dtype=bool)
        return np.broadcast_to(ok[:, None, :], (ids.shape[0], q_len, ids.shape[1])).copy()

    if cfg.has_encoder:
        out["encoder.self_attn"] = {"padding": keys_ok("src", src, src.shape[1])}
    if cfg.has_decoder:
        keys = keys_ok("tgt", tgt, tgt.shape[1])
        causal = masks.causal_mask(tgt.shape[1])[0].expand(b, -1, -1).numpy()  # [b, t, t]
        out["decoder.self_attn"] = {"padding": keys, "causal": causal, "combined": keys & causal}
        if cfg.window:  # the local layers' (ModelConfig.window_layers)
            window = masks.causal_mask(tgt.shape[1], window=cfg.window)[0].expand(b, -1, -1).numpy()  # [b, t, t]
            out["decoder.self_attn"].update(window=window, combined_window=keys & window)
    if cfg.architecture == "encoder-decoder":
        out["decoder.cross_attn"] = {"padding": keys_ok("src", src, tgt.shape[1])}
    return out
