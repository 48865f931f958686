"""A hand-made stand-in for a traced run: a dict of small arrays behind the Trace methods views use."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

ATTN = ("q", "k", "v", "scores", "scores_scaled", "scores_masked", "pattern", "z", "concat", "out")


class FakeTrace:
    def __init__(self, values: dict):
        self.values = {k: np.asarray(v) for k, v in values.items()}

    @property
    def names(self):
        return list(self.values)

    def __getitem__(self, name):
        return self.values[name]

    def __contains__(self, name):
        return name in self.values

    def n_layers(self, stack):
        prefix = f"{stack}.layers."
        return len({n[len(prefix):].split(".")[0] for n in self.values if n.startswith(prefix)})

    def attn(self, stack, layer, kind="self_attn"):
        prefix = f"{stack}.layers.{layer}.{kind}."
        return SimpleNamespace(**{leaf: self.values.get(prefix + leaf) for leaf in ATTN})

    def layer(self, stack, layer, leaf):
        return self.values[f"{stack}.layers.{layer}.{leaf}"]

    def layer_output(self, stack, layer):
        prefix = f"{stack}.layers.{layer}."
        return self.values[[n for n in self.values if n.startswith(prefix)][-1]]


def run(values: dict, src_labels=(), tgt_labels=(), src_ids=(), tgt_ids=()):
    return SimpleNamespace(trace=FakeTrace(values), src_labels=tuple(src_labels), tgt_labels=tuple(tgt_labels),
                           src_ids=tuple(src_ids), tgt_ids=tuple(tgt_ids), model="fake")


def softmax_rows(shape, seed=0, causal=False):
    """Random attention weights [..., q, k]: rows that sum to 1 (a causal mask zeroes the future)."""
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=shape) * 3
    if causal:
        scores = np.where(np.tril(np.ones(shape[-2:], bool)), scores, -np.inf)
    e = np.exp(scores - scores.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)).astype(np.float32)
