"""A compact Transformer whose every intermediate value can be recorded by name.

    from core_model import load, run_with_trace
    loaded = load("assets/models/translate-en-fr")
    out, trace = run_with_trace(loaded.model, src_ids, tgt_ids)

The rooms: nn/ (the network), trace/ (recording and the Trace), tokenizers/ (one module per kind),
checkpoints/ (reading a folder within limits, the probe, the registry of importers), importers/ (one module
per Hugging Face family), training/ (train, logs, snapshots, live training, tasks, evaluate, data); beside
them config, messages, decoding, generation, attribution and cli.
"""
__version__ = "0.2.0"  # the distribution attention-viz's version (pyproject.toml reads it here)

from . import importers  # noqa: F401  (each family registers itself with checkpoints' registry)
from .checkpoints import CheckpointError, Loaded, load
from .config import ModelConfig
from .nn.model import KVCache, Transformer
from .trace import Trace, run_with_trace
from .trace.names import ATTN_LEAVES, EMBED_LEAVES, FFN_LEAVES, LAYER_LEAVES, MODEL_LEAVES, STACK_LEAVES

__all__ = ["__version__", "ModelConfig", "KVCache", "Transformer", "Trace", "run_with_trace", "load", "Loaded", "CheckpointError",
           "ATTN_LEAVES", "EMBED_LEAVES", "FFN_LEAVES", "LAYER_LEAVES", "MODEL_LEAVES", "STACK_LEAVES"]
