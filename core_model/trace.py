"""A trace: every value one call computed, by stable dotted name, with typed views.

Recording itself is in hook_points (a ContextVar per call, never a torch hook); its names are
re-exported here. A name is `<module path>.<leaf>`, the leaves each recording module declares
beside it: EMBED_LEAVES, LAYER_LEAVES, ATTN_LEAVES, FFN_LEAVES, STACK_LEAVES, MODEL_LEAVES.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from .attention import ATTN_LEAVES
from .hook_points import record, recording, scale_scores, set_paths  # noqa: F401  (callers import them from here)
from .layers import EMBED_LEAVES, FFN_LEAVES, LAYER_LEAVES, STACK_LEAVES
from .model import MODEL_LEAVES

__all__ = ["ATTN_LEAVES", "EMBED_LEAVES", "FFN_LEAVES", "LAYER_LEAVES", "MODEL_LEAVES", "STACK_LEAVES",
           "AttnView", "EmbedView", "Trace", "as_batch", "record", "recording", "run_with_trace",
           "scale_scores", "set_paths"]


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
    type: np.ndarray | None = None  # token-type vectors; None unless the model has them (BERT)


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
        return EmbedView(**{leaf: self._values.get(prefix + leaf) for leaf in EMBED_LEAVES})

    def layer(self, stack: str, layer: int, leaf: str) -> np.ndarray:
        """A per-layer value: a leaf of LAYER_LEAVES ('resid_mid', 'norm1'), or 'ffn.hidden', 'self_attn.z'..."""
        return self._values[f"{stack}.layers.{layer}.{leaf}"]

    def layer_input(self, stack: str, layer: int) -> np.ndarray:
        """What enters a layer (its resid_pre): the embedding for layer 0, else the previous layer's output."""
        return self._values[f"{stack}.layers.{layer}.resid_pre"]

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
