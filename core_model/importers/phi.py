"""Import a pretrained Phi (Phi-1, Phi-1.5, Phi-2; a Hugging Face folder) into core_model's decoder-only Transformer.

The folder holds `config.json` (model_type "phi"), `model.safetensors` and `tokenizer.json`, as `save_pretrained`
writes them. Phi is our pre-norm decoder in which one LayerNorm per layer feeds attention and the FFN side by side,
x + attn(ln(x)) + mlp(ln(x)) (ModelConfig.block "parallel_shared": our norm1 <- input_layernorm, no norm2), with
RoPE in the halves layout on the first partial_rotary_factor × d_head dimensions of each head only
(ModelConfig.rope_dims), biases in Q, K, V and W_O (dense) and in the plain FFN (fc1, fc2; gelu_new, GELU's tanh
approximation), a final LayerNorm and an output layer (lm_head) with a bias. Grouped-query attention where
num_key_value_heads says. qk_layernorm (a LayerNorm on each head's queries and keys) is refused: the core has none.
Special ids as checkpoints/hub_llama.py reads them (Phi's <|endoftext|> is bos and eos, pad unset).
"""
from __future__ import annotations

from pathlib import Path

import torch

from ..checkpoints import hub, hub_llama
from ..checkpoints.hub import NUMBER, SWITCH, TEXT, TOKEN_ID, Field
from ..checkpoints.safe_load import Loaded, check_size, read_hf_config
from ..config import ModelConfig

# What the registry reads (checkpoints/registry.py).
MODEL_TYPES, FAMILY, FILES = ("phi",), "Phi", (hub_llama.TOKENIZER,)

CONFIG = hub.HubConfig(
    FAMILY,
    fields={  # our field <- its key
        "tgt_vocab_size": Field("vocab_size"), "d_model": Field("hidden_size"),
        "n_heads": Field("num_attention_heads"), "n_kv_heads": Field("num_key_value_heads", default=None),
        "n_decoder_layers": Field("num_hidden_layers"), "d_ff": Field("intermediate_size"),
        "activation": Field("hidden_act", TEXT, "gelu_new", hub_llama.ACTIVATIONS),
        "norm_eps": Field("layer_norm_eps", NUMBER, 1e-5), "max_len": Field("max_position_embeddings"),
        "tie_embeddings": Field("tie_word_embeddings", SWITCH, False),
        "bos_id": Field("bos_token_id", TOKEN_ID, 1), "eos_id": Field("eos_token_id", TOKEN_ID, 2),
        "pad_id": Field("pad_token_id", TOKEN_ID, None)},
    needs={"qk_layernorm": False},  # the core has no norm on each head's queries and keys
    architectures=("PhiForCausalLM",),
    fixed={**hub_llama.FIXED, "norm": "layernorm", "ffn": "plain", "ffn_bias": True, "bias": True,
           "output_bias": True, "block": "parallel_shared"})
# Older files keep RoPE's inverse frequencies per layer beside the weights; the import has no use for them.
BUFFERS = ("self_attn.rotary_emb.inv_freq",)

# our name <- its name, in every layer, each with .weight and .bias
LAYER = {"self_attn.q_proj": "self_attn.q_proj", "self_attn.k_proj": "self_attn.k_proj",
         "self_attn.v_proj": "self_attn.v_proj", "self_attn.out_proj": "self_attn.dense",
         "ffn.linear1": "mlp.fc1", "ffn.linear2": "mlp.fc2", "norm1": "input_layernorm"}


def config(hf: dict) -> ModelConfig:
    """Our config for a Phi config.json: RoPE's fraction is rope_parameters' partial_rotary_factor (older files: the
    key of that name beside the others; 0.5 when absent)."""
    values = CONFIG.read(hf)
    d_head = values["d_model"] // max(values["n_heads"], 1)
    return hub_llama.config(hf, CONFIG, rope_dims=hub_llama.rope_dims(hf, FAMILY, d_head, "partial_rotary_factor", 0.5))


def shapes(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """Every tensor a checkpoint of this config holds, by its name there, with its shape (nn.Linear's [out, in])."""
    d, ff, kv = cfg.d_model, cfg.d_ff, cfg.kv_heads * cfg.d_head
    out = {"model.embed_tokens.weight": (cfg.tgt_vocab_size, d), "model.final_layernorm.weight": (d,),
           "model.final_layernorm.bias": (d,), "lm_head.bias": (cfg.tgt_vocab_size,)}
    if not cfg.tie_embeddings:
        out["lm_head.weight"] = (cfg.tgt_vocab_size, d)
    linears = {"self_attn.q_proj": (d, d), "self_attn.k_proj": (kv, d), "self_attn.v_proj": (kv, d),
               "self_attn.dense": (d, d), "mlp.fc1": (ff, d), "mlp.fc2": (d, ff), "input_layernorm": (d,)}
    for i in range(cfg.n_decoder_layers):
        for name, shape in linears.items():
            out[f"model.layers.{i}.{name}.weight"], out[f"model.layers.{i}.{name}.bias"] = shape, shape[:1]
    return out


def state_dict(theirs: dict[str, torch.Tensor], cfg: ModelConfig) -> dict[str, torch.Tensor]:
    """Our model's tensors from the file's (named as in `shapes`): the same layout, other names."""
    embed = theirs["model.embed_tokens.weight"]
    ours = {"tgt_embed.tok.weight": embed, "decoder.final_norm.weight": theirs["model.final_layernorm.weight"],
            "decoder.final_norm.bias": theirs["model.final_layernorm.bias"],
            "generator.weight": embed if cfg.tie_embeddings else theirs["lm_head.weight"],
            "generator.bias": theirs["lm_head.bias"]}
    for mine, its in hub.per_layer(LAYER, cfg.n_decoder_layers, "decoder.layers", "model.layers").items():
        ours[mine] = theirs[its]
    return ours


def load(path, name: str = "") -> Loaded:
    """Load a Phi folder as a decoder-only core_model with its byte-level BPE tokenizer."""
    path = Path(path)
    cfg = config(read_hf_config(path))
    check_size(cfg)  # a config asking for a huge model is refused before the model is built
    theirs = hub_llama.read_layers(path, cfg, shapes(cfg), "model.layers", "lm_head.weight")
    return hub_llama.loaded(path, cfg, state_dict(theirs, cfg), FAMILY, name)
