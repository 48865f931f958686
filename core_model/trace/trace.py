"""A trace: every value one call computed, by stable dotted name, with typed views.

Recording itself is in hook_points (a ContextVar per call, never a torch hook). A name is
`<module path>.<leaf>`, the leaves each recording module declares (names.py): EMBED_LEAVES,
LAYER_LEAVES, ATTN_LEAVES, FFN_LEAVES, STACK_LEAVES, MODEL_LEAVES.

A trace keeps the arrays the forward pass made, except `scores`, `scores_scaled` and `scores_masked`,
which it derives bit for bit from q and k when read (hook_points explains why and how); run_with_trace's
`names` filter keeps only what it names. lm-en at 512 tokens: 61.9 MiB kept before issue 14, 37.1 MiB
with the scores kept, 25.1 MiB now, 12.0 MiB with names="*.pattern".
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from .hook_points import Recorder, Stopped, recording
from .on_demand import OnDemand
from .names import ATTN_LEAVES, EMBED_LEAVES


class AttnView:
    """One attention block's recorded values; [b, h, q, k] for scores, [b, h, pos, d_head] per head.

    Each leaf (q, k, v, scores, scores_scaled, scores_masked, pattern, z, out) is read from the
    trace when asked for, not before: a page that stacks every layer's `pattern` does not derive
    the scaled and masked scores, and a trace filtered to the patterns still gives them.
    """
    __slots__ = ("_trace", "_prefix")

    def __init__(self, trace: Trace, prefix: str):
        self._trace, self._prefix = trace, prefix

    def __repr__(self) -> str:
        return f"AttnView({self._prefix[:-1]!r})"

    @property
    def concat(self) -> np.ndarray:
        """The heads' outputs side by side, before W_O."""
        b, h, q, d = self.z.shape  # [b, h, q, d_head]
        return self.z.transpose(0, 2, 1, 3).reshape(b, q, h * d)  # [b, q, h·d_head]: d_model unless head_dim is set


def _leaf(leaf: str) -> property:
    return property(lambda view: view._trace[view._prefix + leaf], doc=f"The block's recorded {leaf!r}.")


for _leaf_name in ATTN_LEAVES:
    setattr(AttnView, _leaf_name, _leaf(_leaf_name))
del _leaf_name


@dataclass(frozen=True)
class EmbedView:
    """The embedding stage of one side: token lookup, scaling, position, their sum."""
    tok: np.ndarray
    scaled: np.ndarray
    pos: np.ndarray | None  # None for RoPE, ALiBi and no positional encoding
    out: np.ndarray
    type: np.ndarray | None = None  # token-type vectors; None unless the model has them (BERT)


class Trace:
    """Every value recorded in one call, by name; typed views spare callers from building names.

    Most values are arrays kept from the forward pass; `scores`, `scores_scaled` and `scores_masked`
    are derived from q and k on reading, bit for bit (see hook_points). A trace made with a names
    filter raises NotRecorded (a KeyError naming the value and the filter) for what it left out.
    """

    def __init__(self, values: Recorder | dict[str, np.ndarray]):
        if not isinstance(values, Recorder):  # a plain dict of arrays, all of them kept
            recorder = Recorder()
            recorder.values, recorder.order, recorder.reached = dict(values), list(values), set(values)
            values = recorder
        self._recorder = values

    @property
    def names(self) -> list[str]:
        return self._recorder.names()

    def __getitem__(self, name: str) -> np.ndarray:
        return self._recorder[name]

    def __contains__(self, name: str) -> bool:
        return name in self._recorder

    def __len__(self) -> int:
        return len(self._recorder)

    @property
    def nbytes(self) -> int:
        """Bytes the trace keeps: its distinct arrays, not the derived values it computes on reading."""
        return self._recorder.nbytes()

    @property
    def filter(self) -> str | None:
        """How the names filter the trace was made with reads ("names='*.pattern'"); None if it kept everything."""
        return self._recorder.filter

    def _reached(self, prefix: str) -> list[str]:
        """Every name under `prefix` the call reached, recorded or left out by the filter, in order."""
        return [n for n in self._recorder.order if n.startswith(prefix)]

    def n_layers(self, stack: str) -> int:
        """How many layers of 'encoder' or 'decoder' the trace holds."""
        prefix = f"{stack}.layers."
        return len({n[len(prefix):].split(".")[0] for n in self._reached(prefix)})

    def attn(self, stack: str, layer: int, kind: str = "self_attn") -> AttnView:
        """The attention block `kind` ('self_attn' or 'cross_attn') of a layer of a stack."""
        prefix = f"{stack}.layers.{layer}.{kind}."
        if not self._reached(prefix):
            raise KeyError(prefix + ATTN_LEAVES[0])
        return AttnView(self, prefix)

    def embed(self, side: str) -> EmbedView:
        """The embedding stage of 'src' (encoder input) or 'tgt' (decoder input)."""
        prefix, reached = f"{side}_embed.", self._recorder.reached
        return EmbedView(**{leaf: self[prefix + leaf] if prefix + leaf in reached else None for leaf in EMBED_LEAVES})

    def layer(self, stack: str, layer: int, leaf: str) -> np.ndarray:
        """A per-layer value: a leaf of LAYER_LEAVES ('resid_mid', 'norm1'), or 'ffn.hidden', 'self_attn.z'..."""
        return self[f"{stack}.layers.{layer}.{leaf}"]

    def layer_input(self, stack: str, layer: int) -> np.ndarray:
        """What enters a layer (its resid_pre): the embedding for layer 0, else the previous layer's output."""
        return self[f"{stack}.layers.{layer}.resid_pre"]

    def layer_output(self, stack: str, layer: int) -> np.ndarray:
        """What a layer hands to the next layer.

        A layer's last recorded value is its output in both placements: the final norm in a
        post-norm layer, the residual sum after the FFN in a pre-norm one.
        """
        if self.on_demand and layer + 1 < self.n_layers(stack):  # the next layer's input: the same tensor, kept
            return self.layer_input(stack, layer + 1)
        return self[self._reached(f"{stack}.layers.{layer}.")[-1]]

    @property
    def half(self) -> bool:
        """Whether the attention weights were kept in float16 (run_with_trace's half): a page says so."""
        return self._recorder.half

    @property
    def on_demand(self) -> bool:
        """Whether layer values are computed when read (run_with_trace's on_demand): pages draw pooled weights."""
        return self._recorder.on_demand is not None

    def pooled_pattern(self, stack: str, layer: int, kind: str = "self_attn") -> tuple[np.ndarray, int]:
        """(a block's weights max-pooled [b, h, ⌈q/block⌉, ⌈k/block⌉], block) of an on-demand trace; (the full weights,
        1) of any other."""
        name = f"{stack}.layers.{layer}.{kind}.pattern"
        if self.on_demand:
            return self._recorder.pooled[name]
        return self[name], 1

    def digest(self, stack: str, layer: int, kind: str = "self_attn"):
        """What the on-demand trace's digest made of a block's full weights (run_with_trace's OnDemand.digest)."""
        return self._recorder.digests[f"{stack}.layers.{layer}.{kind}.pattern"]


def as_batch(ids) -> torch.Tensor | None:
    """A list of ids, a list of lists or a tensor → a LongTensor [b, n]."""
    if ids is None:
        return None
    t = torch.as_tensor(ids, dtype=torch.long)
    return t[None] if t.dim() == 1 else t


def on_device(model: torch.nn.Module, t: torch.Tensor | None) -> torch.Tensor | None:
    """`t` where the model's parameters are (the server's --device); None stays None."""
    return None if t is None else t.to(next(model.parameters()).device)


def run_with_trace(model: torch.nn.Module, src=None, tgt=None, *, scale: bool = True,
                   pad_mask: bool = True, token_types=None, names=None, stop_after: str | None = None,
                   on_demand: OnDemand | bool | None = None, half: bool = False, edits=()):
    """Run the model once without gradients and return (output, Trace of the values it computed).

    scale=False drops the 1/√d_k of every attention block; pad_mask=False lets queries attend to padding. Both are
    teaching switches; the model's weights are untouched.

    names (like TransformerLens's names_filter) picks what the trace keeps: None keeps every value; a name, an fnmatch
    pattern ("*.pattern") or an iterable of them; or a callable name -> bool. What is left out is never converted or
    kept, so it is freed as the forward pass goes on; derived values come with what they derive from (the scores with
    q and k).

    stop_after (a name the filter keeps; like TransformerLens's stop_at_layer) ends the forward pass
    once that value is recorded: nothing after it is computed and the output is None. A name the
    model never reaches is a ValueError.

    on_demand (an OnDemand, or True for the defaults; no names filter with it) keeps what fits at real size: each
    block's weights pooled, each layer's input, and computes any other value of a layer when it is read
    (on_demand.py), bit for bit as a full trace holds it. Its output is then only the last position's logits
    [b, 1, vocab] (the next token's); the trace's `logits` gives every position's, made when read.

    half=True keeps every attention block's weights (`pattern`, and the pooled ones) in float16: half their memory,
    about three significant digits (a weight of 0.1234 reads 0.1234 ± 0.00005); they read as float32 arrays.

    edits (edits.zero, .mean, .patch: a head knocked out, a value from another run) change values as they are made;
    all that follows, the trace too, reads the edited value. A name the model never reaches is a ValueError.
    """
    _traceable(model)
    on_demand = OnDemand() if on_demand is True else on_demand or None
    try:
        with torch.no_grad(), recording(scale, names, stop_after, on_demand, half, edits=edits) as recorder:
            out = model(on_device(model, as_batch(src)), on_device(model, as_batch(tgt)), pad_mask=pad_mask,
                        token_types=on_device(model, as_batch(token_types)))
    except Stopped:
        return None, Trace(recorder)
    _all_reached(recorder, stop_after)
    return out, Trace(recorder)


def _traceable(model) -> None:
    """A TypeError for a model that records nothing (core_model's modules are given their paths: set_paths)."""
    if not hasattr(model, "trace_path"):
        raise TypeError(f"run_with_trace records a core_model Transformer; {type(model).__name__} records nothing "
                        "here: load its folder with core_model.load, or see attention_viz.attentions.")


def _all_reached(recorder: Recorder, stop_after: str | None) -> None:
    """A ValueError for a stop_after or an edit the finished forward pass never came to."""
    if stop_after is not None:
        raise ValueError(f"stop_after={stop_after!r}: the model computed no value of that name.")
    for name in recorder.unreached_edits():
        raise ValueError(f"edits: the model computed no value named {name!r}.")
