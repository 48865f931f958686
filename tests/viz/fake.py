"""The one stand-in for a traced run in the view tests: named arrays behind the Trace methods views read.

`run(values, arch=, layers=, heads=, src=, tgt=, attn=, embed=, seed=, **fields)` builds a run: it generates the
attention leaves `attn` of every block of `arch` and the embedding leaves `embed` of every side it reads, then adds
`values` (arrays a test sets by name; `named` spells the names) over them. `trace(...)` is that run's trace.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

ATTN = ("q", "k", "v", "scores", "scores_scaled", "scores_masked", "pattern", "z", "concat", "out")
EMBED = ("tok", "scaled", "pos", "out", "type")
# Every block in page order; a generated block's seed is `seed` + its place here, whatever the architecture.
BLOCKS = ("encoder.self_attn", "decoder.self_attn", "decoder.cross_attn")
SIDES = {"encoder.self_attn": ("src", "src"), "decoder.self_attn": ("tgt", "tgt"), "decoder.cross_attn": ("tgt", "src")}
ARCHS = {"encoder": BLOCKS[:1], "decoder": BLOCKS[1:2], "encoder-decoder": BLOCKS}
GENERATED = ("scores_scaled", "scores_masked", "pattern")


class FakeTrace:
    """What core_model's Trace gives views, over a plain dict of arrays (in the order given)."""

    on_demand = False  # every value given (core_model's on-demand trace is tested with the real one)

    def __init__(self, values: dict):
        self.values = {k: np.asarray(v) for k, v in values.items()}

    @property
    def names(self):
        return list(self.values)

    def __getitem__(self, name):
        return self.values[name]

    def __contains__(self, name):
        return name in self.values

    def _under(self, prefix):
        return [n for n in self.values if n.startswith(prefix)]

    def n_layers(self, stack):
        prefix = f"{stack}.layers."
        return len({n[len(prefix):].split(".")[0] for n in self._under(prefix)})

    def attn(self, stack, layer, kind="self_attn"):
        prefix = f"{stack}.layers.{layer}.{kind}."
        if not self._under(prefix):  # as the trace does for a block the call never reached
            raise KeyError(prefix + ATTN[0])
        return SimpleNamespace(**{leaf: self.values.get(prefix + leaf) for leaf in ATTN})

    def embed(self, side):
        return SimpleNamespace(**{leaf: self.values.get(f"{side}_embed.{leaf}") for leaf in EMBED})

    def layer(self, stack, layer, leaf):
        return self.values[f"{stack}.layers.{layer}.{leaf}"]

    def layer_output(self, stack, layer):
        return self.values[self._under(f"{stack}.layers.{layer}.")[-1]]


def named(prefix: str, **arrays) -> dict:
    """{"<prefix>.<leaf>": array} for each leaf given (None: left out), e.g. named("src_embed", tok=..., pos=...)."""
    return {f"{prefix}.{leaf}": value for leaf, value in arrays.items() if value is not None}


def block(shape, seed=0, causal=False):
    """One attention block's generated (scores_scaled, scores_masked, pattern) [..., q, k]: random scores, -inf above
    the diagonal when causal, and their softmax."""
    scores = np.random.default_rng(seed).normal(size=shape) * 3
    masked = np.where(np.tril(np.ones(shape[-2:], bool)), scores, -np.inf) if causal else scores
    e = np.exp(masked - masked.max(-1, keepdims=True))
    return scores.astype(np.float32), masked.astype(np.float32), (e / e.sum(-1, keepdims=True)).astype(np.float32)


def softmax_rows(shape, seed=0, causal=False):
    """Random attention weights [..., q, k]: rows that sum to 1 (a causal mask zeroes the future)."""
    return block(shape, seed, causal)[2]


def _side(sentence, ids, letter):
    """(labels, ids) of one side: `sentence` is a length or the labels; ids default to 0 … n-1."""
    if isinstance(sentence, int):
        n = sentence or (0 if ids is None else len(ids))
        labels = tuple(f"{i}·{letter}{i}" for i in range(n))
    else:
        labels = tuple(sentence)
    if ids is None:
        ids = tuple(range(len(labels)))
    return labels, ids if isinstance(ids, np.ndarray) else tuple(ids)


def run(values: dict | None = None, *, arch: str = "encoder-decoder", layers: int = 1, heads: int = 2, src=0, tgt=0,
        attn=(), embed=(), d_model: int = 4, seed: int = 0, **fields) -> SimpleNamespace:
    """A run of one sentence (a batch of one) as views read it.

    arch: "encoder", "decoder" or "encoder-decoder": the blocks (and the embedding sides) generated.
    src, tgt: each side's length, or its labels ("0·the", ...); src_ids/tgt_ids in `fields` set the ids (default
      0 … n-1; a length of 0 takes the ids' length).
    attn: the leaves of GENERATED to record for every layer of every block of `arch`: block i of BLOCKS holds
      block((layers, heads, q, k), seed + i, causal=decoder self-attention), layer l its [l][None].
    embed: the leaves of EMBED to record for each side `arch` reads, random [1, n, d_model].
    values: arrays by name, set over the generated ones. fields: anything else the run holds (lengths, masks for a
      batch; src_labels or tgt_labels to replace the labels).
    """
    if not set(attn) <= set(GENERATED) or not set(embed) <= set(EMBED):
        raise ValueError(f"generated leaves are {GENERATED} and {EMBED}; set others by name in `values`")
    src_labels, src_ids = _side(src, fields.pop("src_ids", None), "s")
    tgt_labels, tgt_ids = _side(tgt, fields.pop("tgt_ids", None), "t")
    lengths = {"src": len(src_labels), "tgt": len(tgt_labels)}
    made, generated = {}, {}
    for i, name in enumerate(BLOCKS):
        if name in ARCHS[arch] and attn:
            q, k = (lengths[side] for side in SIDES[name])
            generated[name] = dict(zip(GENERATED, block((layers, heads, q, k), seed + i, name == "decoder.self_attn")))
    rng = np.random.default_rng(seed)
    for side in dict.fromkeys(SIDES[name][0] for name in ARCHS[arch]) if embed else ():
        made.update(named(f"{side}_embed", **{leaf: rng.normal(size=(1, lengths[side], d_model)).astype(np.float32)
                                             for leaf in embed}))
    for stack in ("encoder", "decoder"):  # in the trace's order: embeddings, a stack's layers, each layer's blocks
        for layer in range(layers):
            for name, arrays in generated.items():
                if name.startswith(stack + "."):
                    made.update(named(f"{stack}.layers.{layer}.{name.split('.')[1]}",
                                      **{leaf: arrays[leaf][layer][None] for leaf in attn}))
    made.update(values or {})
    return SimpleNamespace(**{"model": "fake", "trace": FakeTrace(made), "src_ids": src_ids, "tgt_ids": tgt_ids,
                              "src_labels": src_labels, "tgt_labels": tgt_labels, **fields})


def trace(values: dict | None = None, **how) -> FakeTrace:
    """The trace of run(values, **how), for views that read a trace alone."""
    return run(values, **how).trace
