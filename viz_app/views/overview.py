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
    words: tuple[tuple[str, dict], ...]  # (words key, fields of its i18n string "diagram.<key>")
    embed: tuple[str, ...]  # the words keys of the embedding boxes, a line each: what is done to a token before layer 0
    attn_note: str | None  # the words key added to every attention box: position given there (ALiBi, RoPE), or None
    block_note: str | None = None  # the words key after the FFN line of a parallel layer (both read its input)


BOXES = ("src_tokens", "tgt_tokens", "encoder", "decoder", "self_attn", "masked_self_attn", "cross_attn", "ffn",
         "output")
# positions that enter in attention, not as a vector
ATTN_NOTES = {"alibi": "pos.alibi", "rope": "pos.rope", "relative": "pos.relative"}
BLOCK_NOTES = {"parallel": "block.parallel", "parallel_shared": "block.parallel_shared"}  # ModelConfig.block


@dataclass(frozen=True)
class FirstLook:
    """The first screen's chart: one block of the model's last layer, its heads averaged, rows the queries."""
    values: np.ndarray  # [q, k] the mean over heads of the block's attention weights
    q_labels: tuple[str, ...]
    k_labels: tuple[str, ...]
    block: str  # "decoder.cross_attn" for a translator (each output token over the source), else the self-attention
    layer: int
    heads: int


def first_look(cfg, run) -> FirstLook:
    """Where the model looks, in one chart: a translator's last cross-attention (it must follow the reordering
    between the languages), else the last self-attention of its one stack; the trace's weights, heads averaged."""
    block = blocks.blocks(cfg)[-1]
    stack, kind = blocks.split(block)
    layer = run.trace.n_layers(stack) - 1
    pattern = np.asarray(run.trace.attn(stack, layer, kind).pattern[0], dtype=np.float32)  # [heads, q, k]
    q_side, k_side = blocks.SIDES[block]
    return FirstLook(pattern.mean(axis=0), tuple(blocks.labels(run, q_side)), tuple(blocks.labels(run, k_side)),
                     block, layer, pattern.shape[0])


def masked_predictions(probs, labels, piece, k: int = 3) -> list[tuple[str, str]]:
    """A masked-LM head's guesses: each position's token and the `k` tokens the head finds likeliest there, with
    their probabilities. probs [n, vocab] (the trace's `probs`); piece(id) spells a token."""
    probs = np.asarray(probs)
    top = np.argsort(-probs, axis=-1, kind="stable")[:, :k]  # [n, k]
    return [(label, ", ".join(f"{piece(int(i))} ({probs[j, i]:.0%})" for i in row))
            for j, (label, row) in enumerate(zip(labels, top))]


def embed_words(cfg, run) -> tuple[str, ...]:
    """The embedding box's words keys: ×√d_model if the config scales, + position vector if the trace adds one, then
    a token-type vector and a norm if the config has them (BERT)."""
    side = "tgt" if cfg.architecture == "decoder" else "src"
    adds = run.trace.embed(side).pos is not None
    first = "embed" + (".scaled" if cfg.scale_embedding else "") + (".pos" if adds else "")
    return first, *(["embed.type"] if cfg.type_vocab_size else []), *(["embed.norm"] if cfg.embed_norm else [])


def diagram(cfg, run) -> Diagram:
    layers = {"encoder": cfg.n_encoder_layers, "decoder": cfg.n_decoder_layers}  # the {n} of "layer × {n}"
    fields = dict(h=cfg.n_heads, d=cfg.d_model, ff=cfg.d_ff, v=cfg.tgt_vocab_size)
    embed, note, block = embed_words(cfg, run), ATTN_NOTES.get(cfg.positional), BLOCK_NOTES.get(cfg.block)
    keys = (*BOXES, *embed, *(key for key in (note, block) if key))
    return Diagram(cfg.architecture, cfg.d_model, cfg.tgt_vocab_size, len(blocks.ids(run, "src")),
                   len(blocks.ids(run, "tgt")), tuple((key, {"n": layers.get(key, 0), **fields}) for key in keys),
                   embed, note, block)


@dataclass(frozen=True)
class Parameters:
    parts: tuple[tuple[str, int], ...]  # (part: src_embed, encoder, ..., its trainable parameters)
    total: int


def parameters(counts: dict) -> Parameters:
    """`counts`: trainable parameters per top-level part (loaders.parameter_counts)."""
    return Parameters(tuple((part, int(n)) for part, n in counts.items()), int(sum(counts.values())))
