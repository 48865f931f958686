"""What the Llama-style importers share (core_model/importers/llama.py and qwen2.py): transformers' Qwen2 code is
Llama's with biases on Q, K and V, so the two keep the same config keys and the same weight names. GPT-NeoX's and
Phi's importers share the reading of the config (`config`, `rope_dims`: partial rotary) and the build (`loaded`).

Both are decoders with pre-norm layers and a final norm, all RMSNorm (weight × x / √(mean(x²) + eps)), RoPE in the
"halves" layout (rotate_half) at base `rope_theta`, grouped-query attention (num_key_value_heads: our n_kv_heads),
a gated FFN down(act(gate(x)) × up(x)) (SwiGLU: our ffn "gated", linear1 = up_proj, gate = gate_proj, linear2 =
down_proj), no embedding scaling, and an output layer without a bias, tied to the token embedding or not.
What the core cannot reproduce is refused naming the field: a RoPE scaling (rope_scaling, or rope_parameters'
rope_type other than "default"), a head_dim other than hidden_size / num_attention_heads, an activation it lacks.

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
from ..nn.model import Transformer
from ..tokenizers import ByteLevelBPETokenizer
from . import hub
from .hub import NUMBER, SWITCH, TEXT, TOKEN_ID, Field
from .safe_load import MAX_POSITIONS, Loaded, check_size, read_hf_config

TOKENIZER = "tokenizer.json"
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
    "pad_id": Field("pad_token_id", TOKEN_ID, None)}
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


def rope_base(hf: dict, family: str) -> float:
    """RoPE's base from config.json: rope_parameters' rope_theta (transformers 5) or rope_theta (older files), with
    no scaling: a rope_scaling or a rope_type other than "default" is refused naming its field."""
    scaling = hf.get("rope_scaling")
    if scaling is not None and not (isinstance(scaling, dict) and _rope_type(scaling) == "default"):
        raise hub.refuse(family, "rope_scaling", "null (no RoPE scaling)", scaling)
    params = hf.get("rope_parameters")
    if params is None:
        params = {}
    if not isinstance(params, dict) or _rope_type(params) != "default":
        raise hub.refuse(family, "rope_parameters", "rope_type 'default' (no RoPE scaling)", params)
    theta = params.get("rope_theta", hf.get("rope_theta", 10000.0))
    if not NUMBER.accepts(theta):
        raise hub.refuse(family, "rope_theta", NUMBER.says, theta)
    return theta


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


def _rope_type(params: dict):
    return params.get("rope_type", params.get("type", "default"))


def config(hf: dict, declared: hub.HubConfig, **more) -> ModelConfig:
    """Our config for a Llama-style config.json read through `declared` (the family's table); `more`: its own."""
    values = declared.read(hf)
    family = declared.family
    base = rope_base(hf, family)
    d_head = hf.get("head_dim")
    if d_head is not None and d_head != values["d_model"] // max(values["n_heads"], 1):
        raise hub.refuse(family, "head_dim", f"hidden_size / num_attention_heads ({values['d_model']} / "
                                             f"{values['n_heads']})", d_head)
    values["n_kv_heads"] = values.get("n_kv_heads") or 0  # a family without grouped-query attention has no key
    values["max_len"] = min(values["max_len"], MAX_POSITIONS)  # RoPE has no table: see the module's docstring
    if values["bos_id"] is None and values["eos_id"] is None:
        raise hub.lacks(family, "eos_token_id")
    values["bos_id"] = values["eos_id"] if values["bos_id"] is None else values["bos_id"]
    values["eos_id"] = values["bos_id"] if values["eos_id"] is None else values["eos_id"]
    if values["pad_id"] is None:
        values["pad_id"] = values["eos_id"]
    return declared.model_config(values, positional_base=base, unk_id=values["eos_id"],
                                 mask_padding=values["pad_id"] not in (values["bos_id"], values["eos_id"]), **more)


def shapes(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """Every tensor a checkpoint of this config holds, by its name there, with its shape (nn.Linear's [out, in])."""
    d, ff, kv = cfg.d_model, cfg.d_ff, cfg.kv_heads * cfg.d_head
    out = {"model.embed_tokens.weight": (cfg.tgt_vocab_size, d), "model.norm.weight": (d,)}
    if not cfg.tie_embeddings:
        out["lm_head.weight"] = (cfg.tgt_vocab_size, d)
    attn, out_bias = cfg.bias, cfg.bias and cfg.attn_out_bias
    linears = {"self_attn.q_proj": (d, d, attn), "self_attn.k_proj": (kv, d, attn), "self_attn.v_proj": (kv, d, attn),
               "self_attn.o_proj": (d, d, out_bias), "mlp.gate_proj": (ff, d, cfg.ffn_bias),
               "mlp.up_proj": (ff, d, cfg.ffn_bias), "mlp.down_proj": (d, ff, cfg.ffn_bias)}
    for i in range(cfg.n_decoder_layers):
        here = f"model.layers.{i}."
        for name, (n_out, n_in, bias) in linears.items():
            out[f"{here}{name}.weight"] = (n_out, n_in)
            if bias:
                out[f"{here}{name}.bias"] = (n_out,)
        out[f"{here}input_layernorm.weight"] = out[f"{here}post_attention_layernorm.weight"] = (d,)
    return out


def state_dict(theirs: dict[str, torch.Tensor], cfg: ModelConfig) -> dict[str, torch.Tensor]:
    """Our model's tensors from the file's (named as in `shapes`): the same layout, other names."""
    ours = {"tgt_embed.tok.weight": theirs["model.embed_tokens.weight"],
            "decoder.final_norm.weight": theirs["model.norm.weight"],
            "generator.weight": theirs["model.embed_tokens.weight" if cfg.tie_embeddings else "lm_head.weight"]}
    for mine, its in hub.per_layer(LAYER, cfg.n_decoder_layers, "decoder.layers", "model.layers").items():
        if its in theirs:  # a bias only where the config gives one (shapes)
            ours[mine] = theirs[its]
    return ours


def load(path, declared: hub.HubConfig, name: str = "", **more) -> Loaded:
    """Load a Llama-style folder as a decoder-only core_model with its byte-level BPE tokenizer."""
    path = Path(path)
    cfg = config(read_hf_config(path), declared, **more)
    check_size(cfg)  # a config asking for a huge model is refused before the model is built
    expected = shapes(cfg)
    ignore = tuple(f"model.layers.{i}.{b}" for i in range(cfg.n_decoder_layers) for b in BUFFERS)
    ignore += ("lm_head.weight",) if cfg.tie_embeddings else ()  # tied: transformers reads embed_tokens
    theirs = hub.read_shaped(path, expected, {n: n for n in expected}, ignore)
    return loaded(path, cfg, state_dict(theirs, cfg), declared.family, name)


def loaded(path: Path, cfg: ModelConfig, ours: dict[str, torch.Tensor], family: str, name: str) -> Loaded:
    """The decoder of `cfg` holding our tensors `ours`, with the folder's byte-level BPE tokenizer and its card."""
    model = Transformer(cfg)
    model.load_state_dict(ours)
    roles = {"pad": cfg.pad_id, "unk": cfg.unk_id, "bos": cfg.bos_id, "eos": cfg.eos_id}
    tokenizer = hub.read_tokenizer(TOKENIZER, ByteLevelBPETokenizer.load, path / TOKENIZER, roles)
    hub.check_vocab(tokenizer, cfg.tgt_vocab_size, TOKENIZER)
    return Loaded(model.eval(), cfg, {"tgt": tokenizer}, card(path, name or path.name, cfg, family), path)


def card(path: Path, name: str, cfg: ModelConfig, family: str) -> str:
    heads = f"{cfg.n_heads} heads" + (f" sharing {cfg.kv_heads} key/value heads" if cfg.kv_heads != cfg.n_heads else "")
    part = f" on {cfg.rotary_dims} of each head's {cfg.d_head} dimensions" if cfg.rope_dims else ""
    blocks = "" if cfg.block == "sequential" else ", attention and FFN side by side in each layer"
    return hub.card(path, name, f"{family}-style language model: {cfg.n_decoder_layers} layers, {heads}, "
                                f"{cfg.d_model} wide, RoPE (base {cfg.positional_base:g}){part}{blocks}, byte-level "
                                f"BPE vocabulary of {cfg.tgt_vocab_size}", "decoder")
