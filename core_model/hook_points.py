"""Hook points: per-call recording of intermediate values, under stable dotted names.

A trace is active only inside `recording()`, in the current thread or task (a ContextVar), so
one model shared by many sessions records each call into that call's own dict. Modules call
`record(self, "leaf", tensor)`; outside a trace that is a single ContextVar lookup. No torch
hook is registered and nothing is stored on the model.

This module sits below every module that records (attention, layers, model), so trace.py can
build its typed views on their declared leaf names without an import cycle.
"""
from __future__ import annotations

import contextlib
from contextvars import ContextVar

import numpy as np
import torch

_ACTIVE: ContextVar[dict | None] = ContextVar("core_model_trace", default=None)
_SCALE_SCORES: ContextVar[bool] = ContextVar("core_model_scale_scores", default=True)


def record(module: torch.nn.Module, leaf: str, value: torch.Tensor) -> None:
    """Store `value` as '<module path>.<leaf>' if a trace is active in this context."""
    values = _ACTIVE.get()
    if values is None:
        return
    path = getattr(module, "trace_path", "")
    name = f"{path}.{leaf}" if path else leaf
    if name in values:  # a cached decoding step records one new query row per call
        raise RuntimeError(f"{name} was recorded twice in one trace.")
    # No copy: nothing in the model changes a tensor in place once computed. The array shares the
    # tensor's memory, so it is made read-only: no reader can alter what the model computed.
    array = value.detach().to(torch.float32).cpu().numpy()
    array.flags.writeable = False
    values[name] = array


def set_paths(model: torch.nn.Module) -> None:
    """Give every submodule its dotted path, the prefix of the names it records."""
    for path, module in model.named_modules():
        module.trace_path = path


def scale_scores() -> bool:
    """Whether attention divides scores by sqrt(d_k) in this call (a teaching switch)."""
    return _SCALE_SCORES.get()


@contextlib.contextmanager
def recording(scale: bool = True):
    """Record into a fresh dict for the duration of the block; yields that dict."""
    values: dict[str, np.ndarray] = {}
    token = _ACTIVE.set(values)
    scale_token = _SCALE_SCORES.set(scale)
    try:
        yield values
    finally:
        _SCALE_SCORES.reset(scale_token)
        _ACTIVE.reset(token)
