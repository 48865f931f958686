"""Import a pretrained GPT-Neo (a Hugging Face folder) into core_model's decoder-only Transformer.

The folder holds `config.json` (model_type "gpt_neo"), `model.safetensors` and `tokenizer.json`, as `save_pretrained`
writes them. GPT-Neo is GPT-2's decoder (learned positions, pre-norm LayerNorms and a final one, GELU's tanh
approximation, no embedding scaling, an output tied to the token embedding without a bias) with three differences:
  - its layers alternate global and local attention: `attention_layers` gives one type per layer, as
    `attention_types` ([[["global", "local"], 12]]: the pair repeated 12 times) spells it out; a local layer's query
    sees only itself and the window_size - 1 tokens before it (our ModelConfig.window; window_layers: the local ones);
  - its scores are not divided by √d_k (ModelConfig.scale_scores false);
  - W_Q, W_K and W_V have no bias, W_O has one (ModelConfig.qkv_bias false), each an nn.Linear of its own, as the
    FFN's c_fc and c_proj: no split, no transpose.
Its tokenizer and special tokens are GPT-2's: <|endoftext|> is bos, eos, unk and (unless pad_token_id names another
token) pad, and then the padding is not masked (ModelConfig.mask_padding; the causal mask keeps the right padding out
of every real token's view).
"""
from __future__ import annotations

from pathlib import Path

import torch

from ..checkpoints import hub
from ..checkpoints.hub import INTEGER, NUMBER, SWITCH, TEXT, TOKEN_ID, Field
from ..checkpoints.safe_load import Loaded, check_size, read_hf_config, tensor_names
from ..config import ModelConfig

# What the registry reads (checkpoints/registry.py).
MODEL_TYPES, FAMILY, FILES = ("gpt_neo",), "GPT-Neo", ("tokenizer.json",)

ACTIVATIONS = {"gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh", "gelu": "gelu", "relu": "relu"}
CONFIG = hub.HubConfig(
    FAMILY,
    fields={  # our field <- its key; d_ff, pad_id and the window are worked out in `config`
        "tgt_vocab_size": Field("vocab_size"), "d_model": Field("hidden_size"), "n_heads": Field("num_heads"),
        "n_decoder_layers": Field("num_layers"), "d_ff": Field("intermediate_size", default=None),
        "activation": Field("activation_function", TEXT, "gelu_new", ACTIVATIONS),
        "norm_eps": Field("layer_norm_epsilon", NUMBER, 1e-5), "max_len": Field("max_position_embeddings"),
        "tie_embeddings": Field("tie_word_embeddings", SWITCH, True), "window": Field("window_size", default=256),
        "bos_id": Field("bos_token_id", TOKEN_ID, 50256), "eos_id": Field("eos_token_id", TOKEN_ID, 50256),
        "pad_id": Field("pad_token_id", TOKEN_ID, None)},
    architectures=("GPTNeoForCausalLM", "GPTNeoModel"),  # with and without the "transformer." prefix (file_names)
    fixed=dict(architecture="decoder", n_encoder_layers=0, dropout=0.0, norm="layernorm", norm_placement="pre",
               positional="learned", scale_embedding=False, embed_norm=False, bias=True, qkv_bias=False,
               scale_scores=False, output_bias=False))
ATTENTION_TYPES = ("global", "local")
# Older files keep each layer's causal-mask buffers beside the weights; the import has no use for them.
BUFFERS = ("attn.attention.bias", "attn.attention.masked_bias")

# our name <- its name, in every layer (.weight and .bias; Q, K and V have no bias)
LAYER = {"norm1": "ln_1", "self_attn.q_proj": "attn.attention.q_proj", "self_attn.k_proj": "attn.attention.k_proj",
         "self_attn.v_proj": "attn.attention.v_proj", "self_attn.out_proj": "attn.attention.out_proj",
         "norm2": "ln_2", "ffn.linear1": "mlp.c_fc", "ffn.linear2": "mlp.c_proj"}


def local_layers(hf: dict, n_layers: int) -> tuple[int, ...]:
    """The local layers: those `attention_layers` (one type per layer, what transformers reads when the file has it)
    names "local"; without it, as `attention_types` ([[types, times], …]: each list repeated in order) spells it out.
    Either must give one type, "global" or "local", per layer (attention_types counted before it is spelled out)."""
    want = f"'global' or 'local' for each of the {n_layers} layers"
    if "attention_layers" in hf:
        types = hf["attention_layers"]
        if not (isinstance(types, list) and len(types) == n_layers and all(t in ATTENTION_TYPES for t in types)):
            raise hub.refuse(FAMILY, "attention_layers", want, types)
    else:
        given = hf.get("attention_types", [[list(ATTENTION_TYPES), 12]])
        if not (isinstance(given, list) and all(map(_repeated, given))
                and sum(len(kinds) * times for kinds, times in given) == n_layers):
            raise hub.refuse(FAMILY, "attention_types", f"[[types, times], …] giving {want}", given)
        types = [kind for kinds, times in given for _ in range(times) for kind in kinds]
    return tuple(i for i, kind in enumerate(types) if kind == "local")


def _repeated(item) -> bool:
    """One entry of attention_types: [a list of "global" and "local", how many times it repeats]."""
    return (isinstance(item, list) and len(item) == 2 and isinstance(item[0], list)
            and all(kind in ATTENTION_TYPES for kind in item[0]) and INTEGER.accepts(item[1]) and item[1] >= 0)


def config(hf: dict) -> ModelConfig:
    """Our config for a GPT-Neo config.json: the FFN is 4 × wide unless intermediate_size says, pad is eos unless the
    config names a pad token of its own, <|endoftext|> is unk too, and the window applies in the local layers."""
    values = CONFIG.read(hf)
    if values["d_ff"] is None:
        values["d_ff"] = 4 * values["d_model"]
    if values["pad_id"] is None:
        values["pad_id"] = values["eos_id"]
    local = local_layers(hf, values["n_decoder_layers"])
    values["window"] = values["window"] if local else 0
    return CONFIG.model_config(values, window_layers=local, unk_id=values["eos_id"],
                               mask_padding=values["pad_id"] not in (values["bos_id"], values["eos_id"]))


def shapes(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """Every tensor a GPT-Neo checkpoint of this config holds, by its name there, with its shape (nn.Linear's)."""
    d, ff = cfg.d_model, cfg.d_ff
    out = {"wte.weight": (cfg.tgt_vocab_size, d), "wpe.weight": (cfg.max_len, d), "ln_f.weight": (d,),
           "ln_f.bias": (d,)}
    linears = {"q_proj": (d, d), "k_proj": (d, d), "v_proj": (d, d), "out_proj": (d, d)}
    for i in range(cfg.n_decoder_layers):
        for name, shape in linears.items():
            out[f"h.{i}.attn.attention.{name}.weight"] = shape
        out[f"h.{i}.attn.attention.out_proj.bias"] = (d,)
        out[f"h.{i}.mlp.c_fc.weight"], out[f"h.{i}.mlp.c_fc.bias"] = (ff, d), (ff,)
        out[f"h.{i}.mlp.c_proj.weight"], out[f"h.{i}.mlp.c_proj.bias"] = (d, ff), (d,)
        for norm in ("ln_1", "ln_2"):
            out[f"h.{i}.{norm}.weight"] = out[f"h.{i}.{norm}.bias"] = (d,)
    if not cfg.tie_embeddings:
        out["lm_head.weight"] = (cfg.tgt_vocab_size, d)
    return out


def file_names(path: Path, cfg: ModelConfig) -> tuple[dict[str, str], tuple[str, ...]]:
    """(file name -> the name in `shapes`, names to leave out): a GPTNeoForCausalLM keeps its body under
    "transformer.", a GPTNeoModel without; lm_head never has the prefix."""
    prefix = "transformer." if any(n.startswith("transformer.") for n in tensor_names(path)) else ""
    rename = {(n if n.startswith("lm_head.") else prefix + n): n for n in shapes(cfg)}
    ignore = tuple(f"{prefix}h.{i}.{b}" for i in range(cfg.n_decoder_layers) for b in BUFFERS)
    return rename, ignore + (("lm_head.weight",) if cfg.tie_embeddings else ())  # tied: transformers reads wte


def state_dict(theirs: dict[str, torch.Tensor], cfg: ModelConfig) -> dict[str, torch.Tensor]:
    """Our model's tensors from GPT-Neo's (named as in `shapes`): the same layout, other names."""
    ours = {"tgt_embed.tok.weight": theirs["wte.weight"], "tgt_embed.pos.weight": theirs["wpe.weight"],
            "decoder.final_norm.weight": theirs["ln_f.weight"], "decoder.final_norm.bias": theirs["ln_f.bias"],
            "generator.weight": theirs["wte.weight" if cfg.tie_embeddings else "lm_head.weight"]}
    for mine, its in hub.per_layer(LAYER, cfg.n_decoder_layers, "decoder.layers", "h").items():
        if its in theirs:  # Q, K and V have no bias (shapes)
            ours[mine] = theirs[its]
    return ours


def load(path, name: str = "") -> Loaded:
    """Load a GPT-Neo folder as a decoder-only core_model with its byte-level BPE tokenizer."""
    path = Path(path)
    cfg = config(read_hf_config(path))
    check_size(cfg)  # a config asking for a huge model is refused before the model is built
    theirs = hub.read_shaped(path, shapes(cfg), *file_names(path, cfg))
    return hub.decoder(path, cfg, state_dict(theirs, cfg), card(path, name or path.name, cfg))


def card(path: Path, name: str, cfg: ModelConfig) -> str:
    local = ", ".join(map(str, cfg.window_layers)) or "none"
    return hub.card(path, name, f"GPT-Neo-style language model: {cfg.n_decoder_layers} layers (local, window "
                                f"{cfg.window}: {local}), {cfg.n_heads} heads, {cfg.d_model} wide, {cfg.max_len} "
                                f"positions, byte-level BPE vocabulary of {cfg.tgt_vocab_size}", "decoder")
