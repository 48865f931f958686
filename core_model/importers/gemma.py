"""Import a pretrained Gemma (Gemma 1; a Hugging Face folder) into core_model's decoder-only Transformer.

The folder holds `config.json` (model_type "gemma"), `model.safetensors` and `tokenizer.json`, as `save_pretrained`
writes them. Gemma is Llama's network (checkpoints/hub_llama.py says how each part maps: RoPE in halves, the gated
FFN, grouped- or multi-query attention, biases in attention only where attention_bias says) with:
  - heads of their own width, head_dim (Gemma-7B: 16 heads of 256 in a 3072-wide model): our head_dim;
  - token embeddings × √hidden_size (our scale_embedding; transformers casts √hidden_size to the weights' dtype, in
    float32 the same float32 number our multiplication uses);
  - RMSNorm × (1 + weight): the file's weight plus 1 is ours (hub_llama.state_dict's norm_offset). Exact: transformers
    adds the same 1 in float32 before it multiplies, so both multiply by one float32 number, which the norm's weight
    then shows;
  - GeGLU: the gate through GELU's tanh approximation (hidden_act; GemmaConfig reads its older "gelu" so too, and
    transformers 5 no longer reads hidden_activation, nor does the import);
  - an output tied to the embedding (Gemma's default), no biases in the FFN;
  - a sentencepiece-style tokenizer.json (BPE with byte fallback, ▁ for a space; tokenizers/metaspace.py).
use_bidirectional_attention (an encoder made of Gemma's layers) is refused: the core's decoder is causal.
"""
from __future__ import annotations

from pathlib import Path

from ..checkpoints import hub, hub_llama
from ..checkpoints.hub import SWITCH, TEXT, Field
from ..checkpoints.safe_load import Loaded, read_hf_config
from ..tokenizers import MetaspaceTokenizer

# What the registry reads (checkpoints/registry.py).
MODEL_TYPES, FAMILY, FILES = ("gemma",), "Gemma", (hub_llama.TOKENIZER,)

# transformers' name of the activation -> ours: GemmaConfig turns its older "gelu" into "gelu_pytorch_tanh"
ACTIVATIONS = {**hub_llama.ACTIVATIONS, "gelu": "gelu_tanh"}

CONFIG = hub.HubConfig(
    FAMILY,
    fields={**hub_llama.FIELDS,  # GemmaConfig's defaults where Llama's differ
            "head_dim": Field("head_dim", default=256),
            "activation": Field("hidden_act", TEXT, "gelu_pytorch_tanh", ACTIVATIONS),
            "tie_embeddings": Field("tie_word_embeddings", SWITCH, True),
            "bias": Field("attention_bias", SWITCH, False)},
    architectures=("GemmaForCausalLM",),
    fixed={**hub_llama.FIXED, "scale_embedding": True, "ffn_bias": False})


def load(path, name: str = "") -> Loaded:
    """Load a Gemma folder as a decoder-only core_model with its sentencepiece-style tokenizer."""
    bidirectional = read_hf_config(Path(path)).get("use_bidirectional_attention")
    if bidirectional not in (None, False):
        raise hub.refuse(FAMILY, "use_bidirectional_attention", "null or false (causal attention)", bidirectional)
    return hub_llama.load(path, CONFIG, name, norm_offset=1.0, tokenizer=MetaspaceTokenizer)
