"""Import a pretrained Llama (Llama, SmolLM; a Hugging Face folder) into core_model's decoder-only Transformer.

The folder holds `config.json` (model_type "llama"), `model.safetensors` and `tokenizer.json`, as `save_pretrained`
writes them. Llama is our decoder with RMSNorm before each block and at the end, RoPE in the halves layout, grouped-
query attention and a gated SiLU FFN: checkpoints/hub_llama.py holds what it shares with Qwen2 and says how each part
maps. Its own: biases in the attention projections (W_O's too) only where attention_bias says, in the FFN only where
mlp_bias says; pretraining_tp (a sliced matrix product during pretraining) computes the same numbers.
"""
from __future__ import annotations

from ..checkpoints import hub, hub_llama
from ..checkpoints.hub import SWITCH, Field
from ..checkpoints.safe_load import Loaded

# What the registry reads (checkpoints/registry.py).
MODEL_TYPES, FAMILY, FILES = ("llama",), "Llama", (hub_llama.TOKENIZER,)

CONFIG = hub.HubConfig(
    FAMILY,
    fields={**hub_llama.FIELDS, "bias": Field("attention_bias", SWITCH, False),
            "ffn_bias": Field("mlp_bias", SWITCH, False)},
    architectures=("LlamaForCausalLM",),
    fixed=hub_llama.FIXED)


def load(path, name: str = "") -> Loaded:
    """Load a Llama folder as a decoder-only core_model with its byte-level BPE tokenizer."""
    return hub_llama.load(path, CONFIG, name)
