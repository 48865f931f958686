"""What the encoder-decoder importers share (core_model/importers/marian.py, bart.py and mbart.py): transformers'
Marian and mBART code is copied from BART's, so the three keep the same config keys and the same weight names, and
differ in positions, the norms around the layers, and their tokenizers (each importer's own arithmetic).

BART and Marian are the paper's post-norm encoder-decoder: each layer is self-attention (and in the decoder
cross-attention), then the FFN, each followed by residual + LayerNorm, with no final norm (mBART: the same layers
pre-norm, and a final norm on each stack); the output layer is tied to the token embedding (or not, as the config
says) and adds `final_logits_bias`, a bias on the logits that becomes our generator's bias (ModelConfig.output_bias).
Only the tensor names change; every shape is checked. BART and mBART share learned positions with an offset of 2 and
a LayerNorm after the embedding sum (`embedding_shapes`, `embedding_state_dict`).

The decoder's first token: core_model's decoder always starts from bos_id, transformers' from the config's
`decoder_start_token_id` (<pad> for Marian, </s> for BART). So the import reads that start token as bos_id, the
decoder's <s> whatever its text. What the core cannot reproduce is refused naming the field: a pre-norm or
final-norm variant of BART or Marian (normalize_before, add_final_layer_norm), add_bias_logits, other attention
heads or FFN widths in the decoder than in the encoder, an activation the core lacks. Generation settings
(num_beams, ... in config.json or generation_config.json) are not read here.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch

from ..config import ModelConfig
from . import hub
from .hub import SWITCH, TEXT, TOKEN_ID, Field
from .safe_load import tensor_names

# transformers' name of the activation -> ours
ACTIVATIONS = {"swish": "silu", "silu": "silu", "gelu": "gelu", "relu": "relu", "gelu_new": "gelu_tanh",
               "gelu_pytorch_tanh": "gelu_tanh"}
FIELDS = {  # our field <- its key, in both families
    "src_vocab_size": Field("vocab_size"), "tgt_vocab_size": Field("vocab_size"), "d_model": Field("d_model"),
    "n_heads": Field("encoder_attention_heads"), "n_encoder_layers": Field("encoder_layers"),
    "n_decoder_layers": Field("decoder_layers"), "d_ff": Field("encoder_ffn_dim"),
    "activation": Field("activation_function", TEXT, "gelu", ACTIVATIONS), "max_len": Field("max_position_embeddings"),
    "scale_embedding": Field("scale_embedding", SWITCH, False),
    "tie_embeddings": Field("tie_word_embeddings", SWITCH, True),
    "pad_id": Field("pad_token_id", TOKEN_ID), "eos_id": Field("eos_token_id", TOKEN_ID),
    "bos_id": Field("decoder_start_token_id", TOKEN_ID),  # the decoder's first token (above)
}
# Settings our layers cannot reproduce, some from configs older transformers wrote: a model must have each at this
# value (what transformers' own code does) to be imported. Each family adds its own.
NEEDS = {"normalize_before": False, "add_final_layer_norm": False, "add_bias_logits": False, "is_encoder_decoder": True}
# One number our config holds once, which a config.json gives per stack: (encoder's key, decoder's key).
SAME = (("encoder_attention_heads", "decoder_attention_heads"), ("encoder_ffn_dim", "decoder_ffn_dim"))
FIXED = dict(architecture="encoder-decoder", dropout=0.0, norm="layernorm", norm_placement="post",
             norm_eps=1e-5, bias=True, output_bias=True, mask_padding=True)  # norm_eps: nn.LayerNorm's default

# our name <- its name, in every layer, each with .weight and .bias
ATTENTION = ("q_proj", "k_proj", "v_proj", "out_proj")
ENCODER_LAYER = {**{f"self_attn.{p}": f"self_attn.{p}" for p in ATTENTION}, "norm1": "self_attn_layer_norm",
                 "ffn.linear1": "fc1", "ffn.linear2": "fc2", "norm2": "final_layer_norm"}
DECODER_LAYER = {**{f"self_attn.{p}": f"self_attn.{p}" for p in ATTENTION}, "norm1": "self_attn_layer_norm",
                 **{f"cross_attn.{p}": f"encoder_attn.{p}" for p in ATTENTION}, "norm2": "encoder_attn_layer_norm",
                 "ffn.linear1": "fc1", "ffn.linear2": "fc2", "norm3": "final_layer_norm"}
STACKS = {"encoder": ENCODER_LAYER, "decoder": DECODER_LAYER}
# Where the token embedding may be stored: tied, transformers keeps one of these copies, older files all three.
EMBEDDING = ("shared.weight", "encoder.embed_tokens.weight", "decoder.embed_tokens.weight")
HEAD = ("lm_head.weight", "final_logits_bias")  # saved without the body's prefix
OFFSET = 2  # BART's and mBART's learned positions: position p reads row p + 2 of the stored table


@dataclass(frozen=True)
class Layout:
    """How a file names what the import reads. A ...ForConditionalGeneration / MarianMTModel saves its body under
    "model.", a BartModel / MarianModel without (`prefix`); `stored` is every name in the file without it, and
    `sources` the stored copy each side's token embedding is read from ("src", "tgt")."""
    prefix: str
    stored: frozenset[str]
    sources: dict[str, str]

    def in_file(self, name: str) -> str:
        """The name a tensor has in the file, from its name without the prefix."""
        return name if name in HEAD else self.prefix + name


def layout(path: Path, cfg: ModelConfig) -> Layout:
    names = tensor_names(path)
    prefix = "model." if any(n.startswith("model.") for n in names) else ""
    stored = frozenset(n.removeprefix(prefix) for n in names)
    return Layout(prefix, stored, embedding_sources(stored, cfg.tie_embeddings))


def embedding_sources(stored: frozenset[str], tied: bool) -> dict[str, str]:
    """The stored tensor each side's token embedding is read from, by its name without the prefix. Tied (the output
    layer shares it), transformers ties every copy to one; untied, each stack keeps its own (encoder.embed_tokens,
    decoder.embed_tokens), and shared.weight stands in for a copy the file lacks."""
    if tied:
        first = next((e for e in EMBEDDING if e in stored), EMBEDDING[0])  # none: read_tensors names it
        return {"src": first, "tgt": first}
    return {side: next((e for e in (f"{stack}.embed_tokens.weight", EMBEDDING[0]) if e in stored), EMBEDDING[0])
            for side, stack in (("src", "encoder"), ("tgt", "decoder"))}


def shapes(cfg: ModelConfig, at: Layout) -> dict[str, tuple[int, ...]]:
    """Every tensor both families read, by its name in the file without the prefix, with its shape; a
    final_logits_bias only if the file has one (a body saved without its head has none)."""
    d, ff, vocab = cfg.d_model, cfg.d_ff, cfg.tgt_vocab_size
    out = {name: (vocab, d) for name in at.sources.values()}
    for stack, layer in STACKS.items():
        for i in range(getattr(cfg, f"n_{stack}_layers")):
            for theirs in layer.values():
                wide = {"fc1": (ff, d), "fc2": (d, ff)}.get(theirs, (d, d))
                out[f"{stack}.layers.{i}.{theirs}.weight"] = (d,) if "layer_norm" in theirs else wide
                out[f"{stack}.layers.{i}.{theirs}.bias"] = (ff,) if theirs == "fc1" else (d,)
    if "final_logits_bias" in at.stored:
        out["final_logits_bias"] = (1, vocab)
    if not cfg.tie_embeddings:
        out["lm_head.weight"] = (vocab, d)
    return out


def read(path: Path, cfg: ModelConfig, at: Layout, own: dict[str, tuple[int, ...]]) -> dict[str, torch.Tensor]:
    """The tensors of `shapes` and the family's `own` (name -> shape), named without the prefix, each checked. A copy
    of the token embedding that is not read is left out, as is a tied lm_head (transformers reads the embedding)."""
    expected = {**shapes(cfg, at), **own}
    ignore = tuple(at.prefix + e for e in EMBEDDING if e not in at.sources.values())
    ignore += ("lm_head.weight",) if cfg.tie_embeddings else ()
    return hub.read_shaped(path, expected, {at.in_file(n): n for n in expected}, ignore)


def state_dict(theirs: dict[str, torch.Tensor], cfg: ModelConfig, at: Layout) -> dict[str, torch.Tensor]:
    """Our model's tensors from the file's (named as in `shapes`), but for the family's own (positions, norms)."""
    src, tgt = theirs[at.sources["src"]], theirs[at.sources["tgt"]]
    bias = theirs.get("final_logits_bias", torch.zeros(1, cfg.tgt_vocab_size))  # transformers' zeros if absent
    ours = {"src_embed.tok.weight": src, "tgt_embed.tok.weight": tgt, "generator.bias": bias[0],
            "generator.weight": tgt if cfg.tie_embeddings else theirs["lm_head.weight"]}
    for stack, layer in STACKS.items():
        names = hub.per_layer(layer, getattr(cfg, f"n_{stack}_layers"), f"{stack}.layers", f"{stack}.layers")
        ours.update({mine: theirs[its] for mine, its in names.items()})
    return ours


def embedding_shapes(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """BART's and mBART's embedding tensors, by their names without the prefix: each stack's positions (OFFSET rows
    more than it reads) and its norm after the embedding sum."""
    out = {}
    for stack in STACKS:
        out[f"{stack}.embed_positions.weight"] = (cfg.max_len + OFFSET, cfg.d_model)
        out[f"{stack}.layernorm_embedding.weight"] = out[f"{stack}.layernorm_embedding.bias"] = (cfg.d_model,)
    return out


def embedding_state_dict(theirs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Our positions and embedding norms from BART's or mBART's: position p is the stored table's row p + OFFSET
    (rows 0 and 1 are never read, so the import keeps rows 2 … as our rows 0 …)."""
    ours = {}
    for side, stack in (("src", "encoder"), ("tgt", "decoder")):
        ours[f"{side}_embed.pos.weight"] = theirs[f"{stack}.embed_positions.weight"][OFFSET:]
        for leaf in ("weight", "bias"):
            ours[f"{side}_embed.norm.{leaf}"] = theirs[f"{stack}.layernorm_embedding.{leaf}"]
    return ours


def card(path: Path, name: str, cfg: ModelConfig, family: str, what: str, start: str) -> str:
    """The card of an imported encoder-decoder: `what` it is, and the token its decoder starts from (`start`)."""
    summary = (f"{family} encoder-decoder, {what} of {cfg.src_vocab_size}: {cfg.n_encoder_layers} + "
               f"{cfg.n_decoder_layers} layers, {cfg.n_heads} heads, {cfg.d_model} wide, {cfg.max_len} positions")
    after = (f" Its decoder starts from {start} (decoder_start_token_id {cfg.bos_id}), which core_model calls bos.")
    return hub.card(path, name, summary, "encoder-decoder", after)
