"""Import a pretrained GPT-2 (a Hugging Face folder) into core_model's decoder-only Transformer.

The folder holds `config.json` (model_type "gpt2"), `model.safetensors` and `tokenizer.json`, as
`save_pretrained` writes them; a folder with only `pytorch_model.bin` is refused before this module is
reached (checkpoints.check_files: a pickle can run code). GPT-2 is our decoder with learned positions,
pre-norm layers and a final LayerNorm, GELU's tanh approximation, no embedding scaling and an output
layer tied to the token embedding without a bias. Its weights differ from ours in layout only: each
layer's attention keeps W_Q, W_K and W_V side by side in one `Conv1D` (c_attn), and every `Conv1D` stores
its weight as [in, out], the transpose of nn.Linear's. Each tensor is split and transposed into our
names after its shape is checked; nothing is unpickled.

GPT-2 has one special token, <|endoftext|>, and no token for padding or unknown text: the import gives
<|endoftext|> every role (pad, unk, bos, eos, as transformers' GPT2Tokenizer does) and switches the
padding mask off (ModelConfig.mask_padding), so a batch is padded on the right with <|endoftext|> and the
causal mask keeps the padding out of every real token's view. A decoder reads bos first: the traced
text and every decoding start with <|endoftext|>, as GPT-2 saw it between documents in training.
"""
from __future__ import annotations

from pathlib import Path

import torch

from ..checkpoints import hub
from ..checkpoints.hub import NUMBER, SWITCH, TEXT, TOKEN_ID, Field
from ..checkpoints.safe_load import Loaded, check_size, read_hf_config, tensor_names
from ..config import ModelConfig

# What the registry reads (checkpoints/registry.py).
MODEL_TYPES, FAMILY, FILES = ("gpt2",), "GPT-2", ("tokenizer.json",)

# transformers' name of the activation -> ours. "gelu_new" and "gelu_pytorch_tanh" are the same tanh formula.
ACTIVATIONS = {"gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh", "gelu": "gelu", "relu": "relu"}
CONFIG = hub.HubConfig(
    FAMILY,
    fields={  # our field <- its key; d_ff and pad_id, when null, are worked out in `config`
        "tgt_vocab_size": Field("vocab_size"), "d_model": Field("n_embd"), "n_heads": Field("n_head"),
        "n_decoder_layers": Field("n_layer"), "d_ff": Field("n_inner", default=None),
        "activation": Field("activation_function", TEXT, "gelu_new", ACTIVATIONS),
        "norm_eps": Field("layer_norm_epsilon", NUMBER, 1e-5), "max_len": Field("n_positions"),
        "tie_embeddings": Field("tie_word_embeddings", SWITCH, True), "bos_id": Field("bos_token_id", TOKEN_ID),
        "eos_id": Field("eos_token_id", TOKEN_ID), "pad_id": Field("pad_token_id", TOKEN_ID, None)},
    # Settings our layers cannot reproduce: a model must have each at this value (its default) to be imported.
    needs={"scale_attn_weights": True, "scale_attn_by_inverse_layer_idx": False, "reorder_and_upcast_attn": False,
           "add_cross_attention": False},
    architectures=("GPT2LMHeadModel", "GPT2Model"),  # with and without the "transformer." prefix (file_names)
    fixed=dict(architecture="decoder", n_encoder_layers=0, dropout=0.0, norm="layernorm", norm_placement="pre",
               positional="learned", scale_embedding=False, embed_norm=False, bias=True, output_bias=False))
# Older GPT-2 files keep a causal-mask buffer per layer beside the weights; the import has no use for it.
BUFFERS = ("attn.bias", "attn.masked_bias")

# our name <- its name, in every layer, each with .weight and .bias; "c_attn" (W_Q | W_K | W_V) is split in three
LAYER = {
    "norm1": "ln_1",
    "self_attn.out_proj": "attn.c_proj",
    "norm2": "ln_2",
    "ffn.linear1": "mlp.c_fc",
    "ffn.linear2": "mlp.c_proj",
}


def config(hf: dict) -> ModelConfig:
    """Our config for a GPT-2 config.json: the FFN is 4 × wide unless n_inner says, pad is eos unless the config
    names a pad token of its own, and <|endoftext|> is unk too; a pad token that is no other special token is masked."""
    values = CONFIG.read(hf)
    if values["d_ff"] is None:
        values["d_ff"] = 4 * values["d_model"]
    if values["pad_id"] is None:
        values["pad_id"] = values["eos_id"]
    return CONFIG.model_config(values, unk_id=values["eos_id"],
                               mask_padding=values["pad_id"] not in (values["bos_id"], values["eos_id"]))


def shapes(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """Every tensor a GPT-2 checkpoint of this config holds, by its name there, with its shape ([in, out])."""
    d, ff = cfg.d_model, cfg.d_ff
    out = {"wte.weight": (cfg.tgt_vocab_size, d), "wpe.weight": (cfg.max_len, d), "ln_f.weight": (d,),
           "ln_f.bias": (d,)}
    for i in range(cfg.n_decoder_layers):
        for name, (n_in, n_out) in {"attn.c_attn": (d, 3 * d), "attn.c_proj": (d, d), "mlp.c_fc": (d, ff),
                                    "mlp.c_proj": (ff, d)}.items():
            out[f"h.{i}.{name}.weight"], out[f"h.{i}.{name}.bias"] = (n_in, n_out), (n_out,)
        for norm in ("ln_1", "ln_2"):
            out[f"h.{i}.{norm}.weight"] = out[f"h.{i}.{norm}.bias"] = (d,)
    if not cfg.tie_embeddings:
        out["lm_head.weight"] = (cfg.tgt_vocab_size, d)
    return out


def file_names(path: Path, cfg: ModelConfig) -> tuple[dict[str, str], tuple[str, ...]]:
    """(file name -> the name in `shapes`, names to leave out). A GPT2LMHeadModel saves its body under
    "transformer.", a GPT2Model (as the first GPT-2 files on the hub) without; lm_head never has the prefix."""
    prefix = "transformer." if any(n.startswith("transformer.") for n in tensor_names(path)) else ""
    rename = {(n if n.startswith("lm_head.") else prefix + n): n for n in shapes(cfg)}
    ignore = tuple(f"{prefix}h.{i}.{b}" for i in range(cfg.n_decoder_layers) for b in BUFFERS)
    return rename, ignore + (("lm_head.weight",) if cfg.tie_embeddings else ())  # tied: transformers reads wte


def state_dict(theirs: dict[str, torch.Tensor], cfg: ModelConfig) -> dict[str, torch.Tensor]:
    """Our model's tensors from GPT-2's (named as in `shapes`): c_attn split into W_Q, W_K, W_V, every Conv1D
    weight transposed into nn.Linear's [out, in]."""
    ours = {"tgt_embed.tok.weight": theirs["wte.weight"], "tgt_embed.pos.weight": theirs["wpe.weight"],
            "decoder.final_norm.weight": theirs["ln_f.weight"], "decoder.final_norm.bias": theirs["ln_f.bias"],
            "generator.weight": theirs["wte.weight" if cfg.tie_embeddings else "lm_head.weight"]}
    for i in range(cfg.n_decoder_layers):
        weights = theirs[f"h.{i}.attn.c_attn.weight"].split(cfg.d_model, dim=1)  # 3 × [d_in, d_out]
        biases = theirs[f"h.{i}.attn.c_attn.bias"].split(cfg.d_model)  # 3 × [d_out]
        for proj, weight, bias in zip(("q_proj", "k_proj", "v_proj"), weights, biases):
            here = f"decoder.layers.{i}.self_attn.{proj}"
            ours[f"{here}.weight"], ours[f"{here}.bias"] = weight.t(), bias
    for mine, its in hub.per_layer(LAYER, cfg.n_decoder_layers, "decoder.layers", "h").items():
        tensor = theirs[its]  # a Conv1D weight is [in, out]: transposed; a norm's weight and every bias are vectors
        ours[mine] = tensor.t() if tensor.dim() == 2 else tensor
    return ours


def load(path, name: str = "") -> Loaded:
    """Load a GPT-2 folder as a decoder-only core_model with its byte-level BPE tokenizer."""
    path = Path(path)
    cfg = config(read_hf_config(path))
    check_size(cfg)  # a config asking for a huge model is refused before the model is built
    theirs = hub.read_shaped(path, shapes(cfg), *file_names(path, cfg))
    return hub.decoder(path, cfg, state_dict(theirs, cfg), card(path, name or path.name, cfg))


def card(path: Path, name: str, cfg: ModelConfig) -> str:
    return hub.card(path, name, f"GPT-2-style language model: {cfg.n_decoder_layers} layers, {cfg.n_heads} heads, "
                                f"{cfg.d_model} wide, {cfg.max_len} positions, byte-level BPE vocabulary of "
                                f"{cfg.tgt_vocab_size}", "decoder")
