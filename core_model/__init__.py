"""A compact Transformer whose every intermediate value can be recorded by name.

    from core_model import load, run_with_trace
    loaded = load("assets/models/translate-en-fr")
    out, trace = run_with_trace(loaded.model, src_ids, tgt_ids)
"""
from .attention import ATTN_LEAVES
from .checkpoint import CheckpointError, Loaded, load
from .config import ModelConfig
from .layers import EMBED_LEAVES, FFN_LEAVES, LAYER_LEAVES, STACK_LEAVES
from .model import MODEL_LEAVES, KVCache, Transformer
from .trace import Trace, run_with_trace

__all__ = ["ModelConfig", "KVCache", "Transformer", "Trace", "run_with_trace", "load", "Loaded", "CheckpointError",
           "ATTN_LEAVES", "EMBED_LEAVES", "FFN_LEAVES", "LAYER_LEAVES", "MODEL_LEAVES", "STACK_LEAVES"]
