"""Interventions: a run that changes some of the values it computes, by name and head, as it computes them.

An Edit names a recorded value (`decoder.layers.1.cross_attn.z`) and says what it becomes: zero (zero-ablation), a
reference batch's mean (mean-ablation), or another run's value of the same shape (activation patching). It may
take one head of a per-head value ([b, h, pos, ...]) and one position. Like the recording, edits are per call
(run_with_trace(..., edits=...), through hook_points' ContextVar): never a hook stored on a shared model.

The edit is made where the value is recorded, in the tensor the forward pass goes on with, so everything after it
follows, and the trace of an edited run holds the edited value under its name like any other.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch


PER_HEAD = ("q", "k", "v", "pattern", "z")  # attention leaves laid out [b, heads, positions, ...]
DERIVED = ("scores", "scores_scaled", "scores_masked", "probs")  # made from other values: edit those instead


@dataclass(frozen=True)
class Edit:
    """`name`'s value, at `head` (of a per-head value; None: every head) and `position` (None: every position),
    replaced by `value`: a number, or an array that broadcasts to that part (another run's, a mean)."""
    name: str
    value: float | np.ndarray = 0.0
    head: int | None = None
    position: int | None = None

    def __post_init__(self):
        leaf = self.name.rsplit(".", 1)[-1]
        if leaf in DERIVED:
            raise ValueError(f"{self.name!r} is derived from other values, not computed on its own: edit those "
                             f"(the scores come from q and k, the probabilities from the logits).")
        if self.head is not None and not self.per_head:
            raise ValueError(f"{self.name!r} is not split by head (only an attention block's "
                             f"{', '.join(PER_HEAD)} are): give it no head.")

    @property
    def per_head(self) -> bool:
        parts = self.name.split(".")
        return parts[-1] in PER_HEAD and len(parts) > 2 and parts[-2] in ("self_attn", "cross_attn")

    def index(self, ndim: int) -> tuple:
        """The part of a value of `ndim` dimensions this edit replaces."""
        index = [slice(None)] * ndim
        if self.head is not None:
            index[1] = self.head
        if self.position is not None:
            index[2 if self.per_head else 1] = self.position
        return tuple(index)

    def apply(self, value: torch.Tensor) -> None:
        """Replace the edit's part of `value`, in place."""
        index = self.index(value.dim())
        try:
            part = value[index]
        except IndexError:
            raise ValueError(f"the edit of {self.name!r} asks for head {self.head} and position {self.position}; the "
                             f"run's value has the shape {tuple(value.shape)}.") from None
        new = torch.as_tensor(np.asarray(self.value), dtype=value.dtype, device=value.device)
        try:
            torch.broadcast_shapes(new.shape, part.shape)
        except RuntimeError:
            raise ValueError(f"the edit of {self.name!r} gives a value of shape {tuple(new.shape)}, where the run "
                             f"has {tuple(part.shape)}: patch from a run of the same shape.") from None
        if torch.broadcast_shapes(new.shape, part.shape) != part.shape:
            raise ValueError(f"the edit of {self.name!r} gives shape {tuple(new.shape)}, larger than the run's "
                             f"{tuple(part.shape)}.")
        value[index] = new


def zero(name: str, head: int | None = None, position: int | None = None) -> Edit:
    """Zero-ablation: the value (or one head's, or one position's) set to 0."""
    return Edit(name, 0.0, head, position)


def patch(name: str, source, head: int | None = None, position: int | None = None) -> Edit:
    """Activation patching: the value taken from `source`, a Trace of another run with the same shapes."""
    edit = Edit(name, 0.0, head, position)
    value = np.asarray(source[name], dtype=np.float32)
    return Edit(name, value[edit.index(value.ndim)].copy(), head, position)


def mean(name: str, reference, head: int | None = None, position: int | None = None) -> Edit:
    """Mean-ablation: the value replaced by its mean over a reference batch, over every sentence and position of it
    (`reference` a Trace or a list of them), one vector for every position; each head its own mean."""
    traces = reference if isinstance(reference, (list, tuple)) else [reference]
    edit = Edit(name, 0.0, head)
    rows = [_rows(trace[name], edit) for trace in traces]  # [groups, n, d] each
    if len({r.shape[::2] for r in rows}) != 1:  # e.g. weights over keys, from sentences of different lengths
        raise ValueError(f"the reference runs' {name!r} differ in shape ({sorted({r.shape[::2] for r in rows})}): "
                         f"a mean needs them alike but for their positions.")
    means = np.concatenate(rows, axis=1).mean(axis=1).astype(np.float32)  # [groups, d]
    return Edit(name, means[:, None] if edit.per_head and head is None else means[0], head, position)


def _rows(value, edit: Edit) -> np.ndarray:
    """A value as [groups, rows, last dimension]: a group per head for every head of a per-head value, else one."""
    v = np.asarray(value, dtype=np.float64)
    if edit.per_head and edit.head is None:
        v = np.moveaxis(v, 1, 0)  # [h, b, pos, d]
        return v.reshape(v.shape[0], -1, v.shape[-1])
    part = v[:, edit.head] if edit.head is not None else v
    return part.reshape(1, -1, part.shape[-1])


def by_name(edits) -> dict[str, list[Edit]]:
    """Edits grouped by the value they change, in the order given."""
    grouped: dict[str, list[Edit]] = {}
    for edit in edits or ():
        if not isinstance(edit, Edit):
            raise TypeError(f"edits must be Edit objects (trace.edits.zero, mean, patch); got {edit!r}.")
        grouped.setdefault(edit.name, []).append(edit)
    return grouped


__all__ = ["Edit", "by_name", "mean", "patch", "zero"]
