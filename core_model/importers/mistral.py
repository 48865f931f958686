"""Import a pretrained Mistral (a Hugging Face folder) into core_model's decoder-only Transformer.

The folder holds `config.json` (model_type "mistral"), `model.safetensors` and `tokenizer.json`, as `save_pretrained`
writes them. Mistral is Llama's network without biases (checkpoints/hub_llama.py says how each part maps) with a
sliding window in every layer: a query sees only itself and the sliding_window - 1 tokens before it (our
ModelConfig.window, every layer in window_layers); sliding_window null is no window.
"""
from __future__ import annotations

from ..checkpoints import hub, hub_llama
from ..checkpoints.hub import Field
from ..checkpoints.safe_load import Loaded

# What the registry reads (checkpoints/registry.py).
MODEL_TYPES, FAMILY, FILES = ("mistral",), "Mistral", (hub_llama.TOKENIZER,)

CONFIG = hub.HubConfig(
    FAMILY,
    fields=hub_llama.FIELDS,
    architectures=("MistralForCausalLM",),
    fixed={**hub_llama.FIXED, "bias": False, "ffn_bias": False})
SLIDING_WINDOW = Field("sliding_window", default=None)  # null: every layer sees every earlier token


def window(hf: dict, n_layers: int) -> dict:
    """The sliding window, in every layer."""
    return hub_llama.sliding(SLIDING_WINDOW.read(hf, FAMILY), range(n_layers))


def load(path, name: str = "") -> Loaded:
    """Load a Mistral folder as a decoder-only core_model with its byte-level BPE tokenizer."""
    return hub_llama.load(path, CONFIG, name, window)
