"""Import a pretrained Qwen2 (a Hugging Face folder) into core_model's decoder-only Transformer.

The folder holds `config.json` (model_type "qwen2"), `model.safetensors` and `tokenizer.json`, as `save_pretrained`
writes them. Qwen2 is Llama's network (checkpoints/hub_llama.py says how each part maps) with biases on Q, K and V
but none on W_O (ModelConfig.attn_out_bias false) and none in the FFN. With use_sliding_window, the layers that
`layer_types` marks "sliding_attention" (without layer_types, as transformers spells it out: layer max_window_layers
and every later one) see only the last sliding_window tokens (our ModelConfig.window and window_layers).
"""
from __future__ import annotations

from ..checkpoints import hub, hub_llama
from ..checkpoints.hub import SWITCH, Field
from ..checkpoints.safe_load import Loaded

# What the registry reads (checkpoints/registry.py).
MODEL_TYPES, FAMILY, FILES = ("qwen2",), "Qwen2", (hub_llama.TOKENIZER,)

CONFIG = hub.HubConfig(
    FAMILY,
    fields=hub_llama.FIELDS,
    architectures=("Qwen2ForCausalLM",),
    fixed={**hub_llama.FIXED, "bias": True, "attn_out_bias": False, "ffn_bias": False})
SLIDING = {"use": Field("use_sliding_window", SWITCH, False), "size": Field("sliding_window", default=None),
           "first": Field("max_window_layers", default=28)}
LAYER_TYPES = ("full_attention", "sliding_attention")


def window(hf: dict, n_layers: int) -> dict:
    """The sliding window (none unless use_sliding_window) in the layers layer_types (or max_window_layers) marks."""
    use, size, first = (field.read(hf, FAMILY) for field in SLIDING.values())
    if not use:
        return hub_llama.sliding(None, ())
    types = hf.get("layer_types")
    if types is None:
        return hub_llama.sliding(size, range(first, n_layers))
    if not (isinstance(types, list) and len(types) == n_layers and all(t in LAYER_TYPES for t in types)):
        raise hub.refuse(FAMILY, "layer_types", f"one of {', '.join(map(repr, LAYER_TYPES))} for each of the "
                                                f"{n_layers} layers", types)
    return hub_llama.sliding(size, (i for i, kind in enumerate(types) if kind == "sliding_attention"))


def load(path, name: str = "") -> Loaded:
    """Load a Qwen2 folder as a decoder-only core_model with its byte-level BPE tokenizer."""
    return hub_llama.load(path, CONFIG, name, window)
