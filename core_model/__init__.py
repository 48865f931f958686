"""A compact Transformer whose every intermediate value can be recorded by name."""
from .config import ModelConfig
from .model import KVCache, Transformer
from .trace import Trace, run_with_trace

__all__ = ["ModelConfig", "KVCache", "Transformer", "Trace", "run_with_trace"]
