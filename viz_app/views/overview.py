"""The Overview page's numbers: the sentence embedding as a row, the diagram's sizes and words, the parameters."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import blocks


def embedding_row(vector) -> np.ndarray:
    """A sentence embedding [d_model] as the one row of a heatmap: [1, d_model]."""
    return np.asarray(vector, dtype=np.float32).reshape(1, -1)


@dataclass(frozen=True)
class Diagram:
    """The model's sizes with the sentence's lengths (what figures.diagram.model_diagram draws), and its box words."""
    arch: str
    d_model: int
    vocab: int  # the output layer's width
    n_src: int  # tokens the encoder reads
    n_tgt: int  # tokens the decoder reads
    words: tuple[tuple[str, dict], ...]  # (box key, fields of its i18n string "diagram.<key>")


BOXES = ("src_tokens", "tgt_tokens", "embed", "encoder", "decoder", "self_attn", "masked_self_attn", "cross_attn",
         "ffn", "output")


def diagram(cfg, run) -> Diagram:
    layers = {"encoder": cfg.n_encoder_layers, "decoder": cfg.n_decoder_layers}  # the {n} of "layer × {n}"
    fields = dict(h=cfg.n_heads, d=cfg.d_model, ff=cfg.d_ff, v=cfg.tgt_vocab_size)
    return Diagram(cfg.architecture, cfg.d_model, cfg.tgt_vocab_size, len(blocks.ids(run, "src")), len(blocks.ids(run, "tgt")),
                   tuple((box, {"n": layers.get(box, 0), **fields}) for box in BOXES))


@dataclass(frozen=True)
class Parameters:
    parts: tuple[tuple[str, int], ...]  # (part: src_embed, encoder, ..., its trainable parameters)
    total: int


def parameters(counts: dict) -> Parameters:
    """`counts`: trainable parameters per top-level part (loaders.parameter_counts)."""
    return Parameters(tuple((part, int(n)) for part, n in counts.items()), int(sum(counts.values())))
