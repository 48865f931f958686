"""Per-call recording of every intermediate value, under stable dotted names.

A trace is active only inside `recording()`, in the current thread or task (a ContextVar), so
one model shared by many sessions records each call into that call's own dict. Modules call
`record(self, "leaf", tensor)`; outside a trace that is a single ContextVar lookup.
"""
from __future__ import annotations

import contextlib
from contextvars import ContextVar
from dataclasses import dataclass

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


ATTN_LEAVES = ("q", "k", "v", "scores", "scores_scaled", "scores_masked", "pattern", "z", "out")


@dataclass(frozen=True)
class AttnView:
    """One attention block's recorded values; [b, h, q, k] for scores, [b, h, pos, d_head] per head."""
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    scores: np.ndarray
    scores_scaled: np.ndarray
    scores_masked: np.ndarray
    pattern: np.ndarray
    z: np.ndarray
    out: np.ndarray

    @property
    def concat(self) -> np.ndarray:
        """The heads' outputs side by side, before W_O."""
        b, h, q, d = self.z.shape  # [b, h, q, d_head]
        return self.z.transpose(0, 2, 1, 3).reshape(b, q, h * d)  # [b, q, d_model]


@dataclass(frozen=True)
class EmbedView:
    """The embedding stage of one side: token lookup, scaling, position, their sum."""
    tok: np.ndarray
    scaled: np.ndarray
    pos: np.ndarray | None  # None for RoPE, ALiBi and no positional encoding
    out: np.ndarray


class Trace:
    """Every value recorded in one call, by name; typed views spare callers from building names."""

    def __init__(self, values: dict[str, np.ndarray]):
        self._values = dict(values)

    @property
    def names(self) -> list[str]:
        return list(self._values)

    def __getitem__(self, name: str) -> np.ndarray:
        return self._values[name]

    def __contains__(self, name: str) -> bool:
        return name in self._values

    def __len__(self) -> int:
        return len(self._values)

    @property
    def nbytes(self) -> int:
        return sum(v.nbytes for v in self._values.values())

    def n_layers(self, stack: str) -> int:
        """How many layers of 'encoder' or 'decoder' the trace holds."""
        prefix = f"{stack}.layers."
        return len({n[len(prefix):].split(".")[0] for n in self._values if n.startswith(prefix)})

    def attn(self, stack: str, layer: int, kind: str = "self_attn") -> AttnView:
        """The attention block `kind` ('self_attn' or 'cross_attn') of a layer of a stack."""
        prefix = f"{stack}.layers.{layer}.{kind}."
        return AttnView(**{leaf: self._values[prefix + leaf] for leaf in ATTN_LEAVES})

    def embed(self, side: str) -> EmbedView:
        """The embedding stage of 'src' (encoder input) or 'tgt' (decoder input)."""
        prefix = f"{side}_embed."
        return EmbedView(**{leaf: self._values.get(prefix + leaf) for leaf in ("tok", "scaled", "pos", "out")})

    def layer(self, stack: str, layer: int, leaf: str) -> np.ndarray:
        """A per-layer value such as 'resid_mid', 'norm1' or 'ffn.hidden'."""
        return self._values[f"{stack}.layers.{layer}.{leaf}"]

    def layer_output(self, stack: str, layer: int) -> np.ndarray:
        """What a layer hands to the next layer.

        A layer's last recorded value is its output in both placements: the final norm in a
        post-norm layer, the residual sum after the FFN in a pre-norm one.
        """
        prefix = f"{stack}.layers.{layer}."
        return self._values[[n for n in self._values if n.startswith(prefix)][-1]]


def as_batch(ids) -> torch.Tensor | None:
    """A list of ids, a list of lists or a tensor → a LongTensor [b, n]."""
    if ids is None:
        return None
    t = torch.as_tensor(ids, dtype=torch.long)
    return t[None] if t.dim() == 1 else t


def run_with_trace(model: torch.nn.Module, src=None, tgt=None, *, scale: bool = True,
                   pad_mask: bool = True, token_types=None):
    """Run the model once without gradients and return (output, Trace of every value it computed).

    scale=False drops the 1/√d_k of every attention block; pad_mask=False lets queries attend to
    padding. Both are teaching switches; the model's weights are untouched.
    """
    with torch.no_grad(), recording(scale) as values:
        out = model(as_batch(src), as_batch(tgt), pad_mask=pad_mask, token_types=as_batch(token_types))
    return out, Trace(values)
