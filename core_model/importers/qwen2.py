"""Import a pretrained Qwen2 (a Hugging Face folder) into core_model's decoder-only Transformer.

The folder holds `config.json` (model_type "qwen2"), `model.safetensors` and `tokenizer.json`, as `save_pretrained`
writes them. Qwen2 is Llama's network (checkpoints/hub_llama.py says how each part maps) with biases on Q, K and V
but none on W_O (ModelConfig.attn_out_bias false) and none in the FFN. Sliding-window attention
(use_sliding_window) is refused: the core's causal mask sees every earlier token.
"""
from __future__ import annotations

from ..checkpoints import hub, hub_llama
from ..checkpoints.safe_load import Loaded

# What the registry reads (checkpoints/registry.py).
MODEL_TYPES, FAMILY, FILES = ("qwen2",), "Qwen2", (hub_llama.TOKENIZER,)

CONFIG = hub.HubConfig(
    FAMILY,
    fields=hub_llama.FIELDS,
    needs={"use_sliding_window": False},  # every layer attends to every earlier token
    architectures=("Qwen2ForCausalLM",),
    fixed={**hub_llama.FIXED, "bias": True, "attn_out_bias": False, "ffn_bias": False})


def load(path, name: str = "") -> Loaded:
    """Load a Qwen2 folder as a decoder-only core_model with its byte-level BPE tokenizer."""
    return hub_llama.load(path, CONFIG, name)
