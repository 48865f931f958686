"""What the Llama-style importers share (core_model/importers/llama.py, qwen2.py and mistral.py): transformers' Qwen2
and Mistral code is Llama's, with biases on Q, K and V (Qwen2) and a sliding window (both: `sliding`, the family's own
reading of it), so they keep the same config keys and the same weight names. GPT-NeoX's and Phi's importers share the
reading of the config (`config`, `rope_dims`: partial rotary) and the build (`loaded`).

Both are decoders with pre-norm layers and a final norm, all RMSNorm (weight × x / √(mean(x²) + eps)), RoPE in the
"halves" layout (rotate_half) at base `rope_theta`, grouped-query attention (num_key_value_heads: our n_kv_heads),
a gated FFN down(act(gate(x)) × up(x)) (SwiGLU: our ffn "gated", linear1 = up_proj, gate = gate_proj, linear2 =
down_proj), no embedding scaling, and an output layer without a bias, tied to the token embedding or not.
A head_dim other than hidden_size / num_attention_heads is our head_dim (W_Q [n_heads·head_dim, hidden_size]).
RoPE's scaling, from rope_scaling (older files; set, it wins, as in transformers) or rope_parameters (transformers 5):
rope_type "default", "linear" (factor) or "llama3" (factor, low_freq_factor, high_freq_factor,
original_max_position_embeddings) are ours (ModelConfig.rope_scaling and its rope_* numbers); what the core cannot
reproduce is refused naming the field: another rope_type (dynamic, yarn, longrope), a partial_rotary_factor, an
activation it lacks.

RoPE needs no table per position, so max_len is max_position_embeddings up to the loader's MAX_POSITIONS (a Qwen2
declares 32,768): the model reads and decodes that far. The tokenizer is the folder's `tokenizer.json` when it is
byte-level BPE (SmolLM, Qwen2); a SentencePiece-style one (Llama 2's ▁ pieces with byte fallback) is refused naming
the file. Special tokens come from config.json: bos_token_id, eos_token_id (either, when null, takes the other's
value), pad_token_id (null: eos, as GPT-2's import does, and then the padding is not masked; the causal mask keeps
the right padding out of every real token's view). The decoder always reads bos first.
"""
from __future__ import annotations

from pathlib import Path

import torch

from ..config import ModelConfig
from ..tokenizers import ByteLevelBPETokenizer, MetaspaceTokenizer
from . import hub
from .hub import NUMBER, SWITCH, TEXT, TOKEN_ID, Field
from .safe_load import MAX_POSITIONS, Loaded, check_size, read_hf_config

TOKENIZER = "tokenizer.json"
# The kinds of tokenizer.json a family's folders hold, as the card names them (Llama's and Qwen2's: byte-level BPE)
TOKENIZER_KINDS = {ByteLevelBPETokenizer: "byte-level BPE", MetaspaceTokenizer: "sentencepiece-style BPE"}
# transformers' name of the activation -> ours
ACTIVATIONS = {"silu": "silu", "swish": "silu", "gelu": "gelu", "gelu_new": "gelu_tanh",
               "gelu_pytorch_tanh": "gelu_tanh", "relu": "relu"}
FIELDS = {  # our field <- its key, in both families; n_kv_heads, max_len and the special ids are settled in `config`
    "tgt_vocab_size": Field("vocab_size"), "d_model": Field("hidden_size"), "n_heads": Field("num_attention_heads"),
    "n_kv_heads": Field("num_key_value_heads", default=None), "n_decoder_layers": Field("num_hidden_layers"),
    "d_ff": Field("intermediate_size"), "activation": Field("hidden_act", TEXT, "silu", ACTIVATIONS),
    "norm_eps": Field("rms_norm_eps", NUMBER, 1e-6), "max_len": Field("max_position_embeddings"),
    "tie_embeddings": Field("tie_word_embeddings", SWITCH, False),
    "bos_id": Field("bos_token_id", TOKEN_ID, None), "eos_id": Field("eos_token_id", TOKEN_ID, None),
    "pad_id": Field("pad_token_id", TOKEN_ID, None), "head_dim": Field("head_dim", default=None)}
FIXED = dict(architecture="decoder", n_encoder_layers=0, dropout=0.0, norm="rmsnorm", norm_placement="pre",
             positional="rope", rope_layout="halves", ffn="gated", scale_embedding=False, embed_norm=False,
             output_bias=False)

# our name <- its name, in every layer (each with .weight and, where the config gives them, .bias)
LAYER = {"self_attn.q_proj": "self_attn.q_proj", "self_attn.k_proj": "self_attn.k_proj",
         "self_attn.v_proj": "self_attn.v_proj", "self_attn.out_proj": "self_attn.o_proj",
         "ffn.gate": "mlp.gate_proj", "ffn.linear1": "mlp.up_proj", "ffn.linear2": "mlp.down_proj",
         "norm1": "input_layernorm", "norm2": "post_attention_layernorm"}
# Older files keep RoPE's inverse frequencies per layer beside the weights; the import has no use for them.
BUFFERS = ("self_attn.rotary_emb.inv_freq",)


# transformers' rope_type -> ours (ModelConfig.rope_scaling), and the numbers each reads: our field <- its key
ROPE_TYPES = {"default": "none", "linear": "linear", "llama3": "llama3"}
ROPE_NUMBERS = {"linear": {"rope_factor": "factor"},
                "llama3": {"rope_factor": "factor", "rope_low_freq_factor": "low_freq_factor",
                           "rope_high_freq_factor": "high_freq_factor"}}


def rope_dims(hf: dict, family: str, d_head: int, key: str, default: float) -> int:
    """How many of each head's first dimensions RoPE turns (our rope_dims; 0: all of them), int(d_head × fraction)
    as transformers counts them; the fraction is rope_parameters' partial_rotary_factor, or the family's older
    key `key` (GPT-NeoX's rotary_pct), else `default`. A fraction that leaves no pair, or half a pair, is refused."""
    params = hf.get("rope_parameters") if isinstance(hf.get("rope_parameters"), dict) else {}
    named = "partial_rotary_factor" if "partial_rotary_factor" in params else key
    fraction = params.get("partial_rotary_factor", hf.get(key, default))
    if not NUMBER.accepts(fraction) or not 0 < fraction <= 1:
        raise hub.refuse(family, named, "a fraction above 0 and at most 1", fraction)
    dims = int(d_head * fraction)
    if dims < 2 or dims % 2:
        raise hub.refuse(family, named, f"a fraction of d_head ({d_head}) that is an even number of dimensions",
                         fraction)
    return 0 if dims == d_head else dims


def rope(hf: dict, family: str, partial: bool = False) -> dict:
    """RoPE's base and scaling from config.json as our fields (positional_base, rope_scaling, rope_*), read as
    transformers reads them: rope_scaling when set, else rope_parameters; rope_theta there, else beside them; llama3's
    original_max_position_embeddings there, else max_position_embeddings (one beside them is Phi-3's, unread).
    `partial`: the family reads partial_rotary_factor itself (rope_dims); else a factor other than 1 is refused."""
    field = "rope_scaling" if hf.get("rope_scaling") else "rope_parameters"
    params = hf.get(field) or {}
    if not isinstance(params, dict):
        raise hub.refuse(family, field, "an object of RoPE parameters", params)
    key = "rope_type" if "rope_type" in params else "type"
    kind = params.get(key, "default")
    if not isinstance(kind, str) or kind not in ROPE_TYPES:
        raise hub.refuse(family, f"{field}.{key}", ", ".join(repr(k) for k in ROPE_TYPES), kind)
    named = {**hf, **{f"{field}.{k}": v for k, v in params.items()}}  # a refusal names the key inside its field
    partial_key = _first(named, f"{field}.partial_rotary_factor", "partial_rotary_factor")
    if not partial and named.get(partial_key, 1.0) != 1.0:
        raise hub.refuse(family, partial_key, "1.0 (RoPE turns every dimension)", named[partial_key])
    out = {"positional_base": Field(_first(named, f"{field}.rope_theta", "rope_theta"), NUMBER, 10000.0).read(
        named, family), "rope_scaling": ROPE_TYPES[kind]}
    out.update({ours: Field(f"{field}.{its}", NUMBER).read(named, family)
                for ours, its in ROPE_NUMBERS.get(kind, {}).items()})
    if kind == "llama3":
        original = _first(named, f"{field}.original_max_position_embeddings", "max_position_embeddings")
        out["rope_original_max_len"] = Field(original).read(named, family)
    return out


def _first(named: dict, *keys: str) -> str:
    """The first of `keys` that config.json has (else the last, which its Field then names as lacking)."""
    return next((key for key in keys if key in named), keys[-1])


def config(hf: dict, declared: hub.HubConfig, window=None, **more) -> ModelConfig:
    """Our config for a Llama-style config.json read through `declared` (the family's table); `window(hf, layers)`,
    if given: the family's sliding window (Mistral's, Qwen2's) as our window and window_layers; `more`: the family's
    own fields (GPT-NeoX's and Phi's rope_dims)."""
    values = declared.read(hf)
    more.update(window(hf, values["n_decoder_layers"]) if window else {})
    family = declared.family
    positions = rope(hf, family, partial="rope_dims" in more)
    width = values["d_model"] // max(values["n_heads"], 1)
    if "head_dim" not in values and hf.get("head_dim") not in (None, width):  # a family that reads no head_dim
        raise hub.refuse(family, "head_dim", f"hidden_size / num_attention_heads ({width})", hf["head_dim"])
    if values.get("head_dim") is None or values["head_dim"] * values["n_heads"] == values["d_model"]:
        values["head_dim"] = 0  # hidden_size / num_attention_heads, as every config before head_dim was
    values["n_kv_heads"] = values.get("n_kv_heads") or 0  # a family without grouped-query attention has no key
    values["max_len"] = min(values["max_len"], MAX_POSITIONS)  # RoPE has no table: see the module's docstring
    if values["bos_id"] is None and values["eos_id"] is None:
        raise hub.lacks(family, "eos_token_id")
    values["bos_id"] = values["eos_id"] if values["bos_id"] is None else values["bos_id"]
    values["eos_id"] = values["bos_id"] if values["eos_id"] is None else values["eos_id"]
    if values["pad_id"] is None:
        values["pad_id"] = values["eos_id"]
    return declared.model_config(values, **positions, unk_id=values["eos_id"],
                                 mask_padding=values["pad_id"] not in (values["bos_id"], values["eos_id"]), **more)


def shapes(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """Every tensor a checkpoint of this config holds, by its name there, with its shape (nn.Linear's [out, in])."""
    d, ff, kv, heads = cfg.d_model, cfg.d_ff, cfg.kv_heads * cfg.d_head, cfg.n_heads * cfg.d_head
    out = {"model.embed_tokens.weight": (cfg.tgt_vocab_size, d), "model.norm.weight": (d,)}
    if not cfg.tie_embeddings:
        out["lm_head.weight"] = (cfg.tgt_vocab_size, d)
    attn, out_bias = cfg.bias, cfg.bias and cfg.attn_out_bias
    linears = {"self_attn.q_proj": (heads, d, attn), "self_attn.k_proj": (kv, d, attn),
               "self_attn.v_proj": (kv, d, attn), "self_attn.o_proj": (d, heads, out_bias),
               "mlp.gate_proj": (ff, d, cfg.ffn_bias), "mlp.up_proj": (ff, d, cfg.ffn_bias),
               "mlp.down_proj": (d, ff, cfg.ffn_bias)}
    for i in range(cfg.n_decoder_layers):
        here = f"model.layers.{i}."
        for name, (n_out, n_in, bias) in linears.items():
            out[f"{here}{name}.weight"] = (n_out, n_in)
            if bias:
                out[f"{here}{name}.bias"] = (n_out,)
        out[f"{here}input_layernorm.weight"] = out[f"{here}post_attention_layernorm.weight"] = (d,)
    return out


def state_dict(theirs: dict[str, torch.Tensor], cfg: ModelConfig, norm_offset: float = 0.0) -> dict[str, torch.Tensor]:
    """Our model's tensors from the file's (named as in `shapes`): the same layout, other names; every norm's weight
    plus `norm_offset` (Gemma's RMSNorm multiplies by 1 + weight: ours = 1 + its, the same float32 sum)."""
    ours = {"tgt_embed.tok.weight": theirs["model.embed_tokens.weight"],
            "decoder.final_norm.weight": theirs["model.norm.weight"] + norm_offset,
            "generator.weight": theirs["model.embed_tokens.weight" if cfg.tie_embeddings else "lm_head.weight"]}
    for mine, its in hub.per_layer(LAYER, cfg.n_decoder_layers, "decoder.layers", "model.layers").items():
        if its in theirs:  # a bias only where the config gives one (shapes)
            ours[mine] = theirs[its] + norm_offset if ".norm" in mine else theirs[its]
    return ours


def load(path, declared: hub.HubConfig, name: str = "", window=None, norm_offset: float = 0.0,
         tokenizer: type = ByteLevelBPETokenizer) -> Loaded:
    """Load a Llama-style folder as a decoder-only core_model with its tokenizer.json, read as `tokenizer` (one of
    TOKENIZER_KINDS; a file of another kind is refused naming it); `window`: as in `config`; norm_offset:
    state_dict's."""
    path = Path(path)
    cfg = config(read_hf_config(path), declared, window)
    check_size(cfg)  # a config asking for a huge model is refused before the model is built
    theirs = read_layers(path, cfg, shapes(cfg), "model.layers", "lm_head.weight")
    return loaded(path, cfg, state_dict(theirs, cfg, norm_offset), declared.family, name, tokenizer)


def read_layers(path: Path, cfg: ModelConfig, expected: dict[str, tuple[int, ...]], layers: str,
                output: str) -> dict[str, torch.Tensor]:
    """The tensors `expected` names, shapes checked, leaving out what older files keep beside them: each layer's RoPE
    frequencies (under `layers`) and, where the output is tied to the embedding (transformers reads that), the
    output layer's copy `output`. What the Llama-style, GPT-NeoX and Phi loads share."""
    ignore = tuple(f"{layers}.{i}.{b}" for i in range(cfg.n_decoder_layers) for b in BUFFERS)
    ignore += (output,) if cfg.tie_embeddings else ()
    return hub.read_shaped(path, expected, {n: n for n in expected}, ignore)


def loaded(path: Path, cfg: ModelConfig, ours: dict[str, torch.Tensor], family: str, name: str,
           tokenizer: type = ByteLevelBPETokenizer) -> Loaded:
    """The decoder of `cfg` holding our tensors `ours`, with the folder's tokenizer.json (read as `tokenizer`) and
    its card."""
    about = card(path, name or path.name, cfg, family, TOKENIZER_KINDS[tokenizer])
    return hub.decoder(path, cfg, ours, about, tokenizer, TOKENIZER)


def sliding(size, layers) -> dict:
    """Our window and window_layers for a sliding window of `size` tokens (None or 0: none) in `layers`."""
    layers = tuple(layers) if size else ()
    return {"window": size if layers else 0, "window_layers": layers}


def card(path: Path, name: str, cfg: ModelConfig, family: str, kind: str = "byte-level BPE") -> str:
    heads = f"{cfg.n_heads} heads" + (f" of width {cfg.head_dim}" if cfg.head_dim else "") + \
        (f" sharing {cfg.kv_heads} key/value heads" if cfg.kv_heads != cfg.n_heads else "")
    if cfg.window:
        heads += f", a sliding window of {cfg.window} tokens in layers {', '.join(map(str, cfg.window_layers))}"
    scaling = f", {cfg.rope_scaling} scaling ×{cfg.rope_factor:g}" if cfg.rope_scaling != "none" else ""
    part = f" on {cfg.rotary_dims} of each head's {cfg.d_head} dimensions" if cfg.rope_dims else ""
    blocks = "" if cfg.block == "sequential" else ", attention and FFN side by side in each layer"
    return hub.card(path, name, f"{family}-style language model: {cfg.n_decoder_layers} layers, {heads}, "
                                f"{cfg.d_model} wide, RoPE (base {cfg.positional_base:g}{scaling}){part}{blocks}, "
                                f"{kind} vocabulary of {cfg.tgt_vocab_size}", "decoder")
