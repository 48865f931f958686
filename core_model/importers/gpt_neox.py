"""Import a pretrained GPT-NeoX (Pythia, GPT-NeoX-20B; a Hugging Face folder) into core_model's decoder-only
Transformer.

The folder holds `config.json` (model_type "gpt_neox"), `model.safetensors` and `tokenizer.json`, as
`save_pretrained` writes them. GPT-NeoX is our pre-norm decoder with LayerNorm, a plain FFN (GELU by default), a
final LayerNorm and an output layer `embed_out` without a bias, untied (unless tie_word_embeddings says). Its own:
  use_parallel_residual  true (every Pythia): attention and FFN both read the layer's input, each through its own
                         norm, x + attn(ln1(x)) + mlp(ln2(x)) (ModelConfig.block "parallel"); false: "sequential";
  partial rotary         RoPE in the halves layout on the first rotary_pct × d_head dimensions of each head only
                         (ModelConfig.rope_dims), at base rotary_emb_base (transformers 5 writes both into
                         rope_parameters: partial_rotary_factor, rope_theta);
  query_key_value        W_Q, W_K and W_V fused in one Linear whose rows are laid out per head, [h, 3, d_head]:
                         split here into our three projections.
Special ids as checkpoints/hub_llama.py reads them (Pythia: <|endoftext|> is bos and eos, pad unset).
"""
from __future__ import annotations

from pathlib import Path

import torch

from ..checkpoints import hub, hub_llama
from ..checkpoints.hub import NUMBER, SWITCH, TEXT, TOKEN_ID, Field
from ..checkpoints.safe_load import Loaded, check_size, read_hf_config
from ..config import ModelConfig

# What the registry reads (checkpoints/registry.py).
MODEL_TYPES, FAMILY, FILES = ("gpt_neox",), "GPT-NeoX", (hub_llama.TOKENIZER,)

CONFIG = hub.HubConfig(
    FAMILY,
    fields={  # our field <- its key
        "tgt_vocab_size": Field("vocab_size"), "d_model": Field("hidden_size"),
        "n_heads": Field("num_attention_heads"), "n_decoder_layers": Field("num_hidden_layers"),
        "d_ff": Field("intermediate_size"), "activation": Field("hidden_act", TEXT, "gelu", hub_llama.ACTIVATIONS),
        "norm_eps": Field("layer_norm_eps", NUMBER, 1e-5), "max_len": Field("max_position_embeddings"),
        "block": Field("use_parallel_residual", SWITCH, True, {True: "parallel", False: "sequential"}),
        "bias": Field("attention_bias", SWITCH, True), "tie_embeddings": Field("tie_word_embeddings", SWITCH, False),
        "bos_id": Field("bos_token_id", TOKEN_ID, 0), "eos_id": Field("eos_token_id", TOKEN_ID, 2),
        "pad_id": Field("pad_token_id", TOKEN_ID, None)},
    architectures=("GPTNeoXForCausalLM",),
    fixed={**hub_llama.FIXED, "norm": "layernorm", "ffn": "plain", "ffn_bias": True})
# Older files keep buffers per layer beside the weights (a causal mask, RoPE's frequencies); the import needs none.
BUFFERS = ("attention.bias", "attention.masked_bias", "attention.rotary_emb.inv_freq")

# our name <- its name, in every layer, each with .weight and .bias; query_key_value is split in three (state_dict)
LAYER = {"self_attn.out_proj": "attention.dense", "ffn.linear1": "mlp.dense_h_to_4h",
         "ffn.linear2": "mlp.dense_4h_to_h", "norm1": "input_layernorm", "norm2": "post_attention_layernorm"}


def config(hf: dict) -> ModelConfig:
    """Our config for a GPT-NeoX config.json: older files name RoPE's base rotary_emb_base and its fraction
    rotary_pct (0.25 when absent); rope_parameters, where present, says both."""
    values = CONFIG.read(hf)
    d_head = values["d_model"] // max(values["n_heads"], 1)
    dims = hub_llama.rope_dims(hf, FAMILY, d_head, "rotary_pct", 0.25)
    return hub_llama.config({**hf, "rope_theta": hf.get("rotary_emb_base", 10000.0)}, CONFIG, rope_dims=dims)


def shapes(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """Every tensor a checkpoint of this config holds, by its name there, with its shape (nn.Linear's [out, in])."""
    d, ff = cfg.d_model, cfg.d_ff
    out = {"gpt_neox.embed_in.weight": (cfg.tgt_vocab_size, d), "gpt_neox.final_layer_norm.weight": (d,),
           "gpt_neox.final_layer_norm.bias": (d,)}
    if not cfg.tie_embeddings:
        out["embed_out.weight"] = (cfg.tgt_vocab_size, d)
    linears = {"attention.query_key_value": (3 * d, d, cfg.bias), "attention.dense": (d, d, cfg.bias),
               "mlp.dense_h_to_4h": (ff, d, True), "mlp.dense_4h_to_h": (d, ff, True)}
    for i in range(cfg.n_decoder_layers):
        here = f"gpt_neox.layers.{i}."
        for name, (n_out, n_in, bias) in linears.items():
            out[f"{here}{name}.weight"] = (n_out, n_in)
            if bias:
                out[f"{here}{name}.bias"] = (n_out,)
        for norm in ("input_layernorm", "post_attention_layernorm"):
            out[f"{here}{norm}.weight"] = out[f"{here}{norm}.bias"] = (d,)
    return out


def state_dict(theirs: dict[str, torch.Tensor], cfg: ModelConfig) -> dict[str, torch.Tensor]:
    """Our model's tensors from the file's (named as in `shapes`): query_key_value's rows, per head [h, 3, d_head],
    split into W_Q, W_K and W_V; the rest renamed."""
    embed = theirs["gpt_neox.embed_in.weight"]
    ours = {"tgt_embed.tok.weight": embed, "decoder.final_norm.weight": theirs["gpt_neox.final_layer_norm.weight"],
            "decoder.final_norm.bias": theirs["gpt_neox.final_layer_norm.bias"],
            "generator.weight": embed if cfg.tie_embeddings else theirs["embed_out.weight"]}
    h, d_head = cfg.n_heads, cfg.d_head
    for i in range(cfg.n_decoder_layers):
        fused = f"gpt_neox.layers.{i}.attention.query_key_value"
        for leaf in ("weight", "bias") if cfg.bias else ("weight",):
            per_head = theirs[f"{fused}.{leaf}"].reshape(h, 3, d_head, -1)  # a bias: [h, 3, d_head, 1]
            for j, proj in enumerate(("q_proj", "k_proj", "v_proj")):
                part = per_head[:, j].reshape(h * d_head, -1)  # [d, d_model] rows head by head, as our split reads
                ours[f"decoder.layers.{i}.self_attn.{proj}.{leaf}"] = part if leaf == "weight" else part[:, 0]
    for mine, its in hub.per_layer(LAYER, cfg.n_decoder_layers, "decoder.layers", "gpt_neox.layers").items():
        if its in theirs:  # W_O's bias only where attention_bias says (shapes)
            ours[mine] = theirs[its]
    return ours


def load(path, name: str = "") -> Loaded:
    """Load a GPT-NeoX folder as a decoder-only core_model with its byte-level BPE tokenizer."""
    path = Path(path)
    cfg = config(read_hf_config(path))
    check_size(cfg)  # a config asking for a huge model is refused before the model is built
    theirs = hub_llama.read_layers(path, cfg, shapes(cfg), "gpt_neox.layers", "embed_out.weight")
    return hub_llama.loaded(path, cfg, state_dict(theirs, cfg), FAMILY, name)
