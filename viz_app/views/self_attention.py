"""Self-attention step by step: one head of one block, every stage from the block's input X to its output.

`head_steps` gathers a traced run's values and the head's weights (numpy, from core_model.heads.head_weights)
for one block, layer and head.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import blocks


@dataclass(frozen=True)
class Step:
    """One stage as a matrix, with what its rows and columns are (axis keys: query, key, dim, feature)."""
    name: str
    latex: str
    values: np.ndarray  # 2-D
    x_labels: tuple | None
    y_labels: tuple | None
    x_axis: str
    y_axis: str
    query_rows: bool = False  # rows are the queries, so the chosen one is outlined
    zrange: tuple | None = None
    columns: tuple[int, int] | None = None  # the head's block of columns in the concatenation


SHOWN = 64  # queries and keys a stage shows at most: a longer text shows a window of them


@dataclass(frozen=True)
class HeadSteps:
    sections: tuple[tuple[str, tuple[Step, ...]], ...]  # (section name, stages shown side by side)
    q_labels: tuple[str, ...]  # the shown queries' labels
    k_labels: tuple[str, ...]  # the shown keys' labels
    rows: tuple[np.ndarray, np.ndarray, np.ndarray]  # scores, scaled and masked, weights; each [q, k] shown
    queries: slice  # which of the text's queries are shown
    keys: slice  # which of its keys
    query: int  # the chosen query, counted within the shown ones
    outside: float  # the chosen query's weight on keys not shown (0 when all are)
    # (key/value head, first and last query head sharing it) when the block shares each K/V head among several
    # query heads (grouped-query attention); None when every query head has its own
    shared: tuple[int, int, int] | None = None


def query_labels(block: str, src_labels, tgt_labels) -> tuple[str, ...]:
    """The labels of `block`'s queries: the decoder's tokens in a decoder block, else the encoder's."""
    return tuple(tgt_labels if blocks.split(block)[0] == "decoder" else src_labels)


def _around(centre: int, n: int, size: int) -> slice:
    start = min(max(centre - size // 2, 0), max(n - size, 0))
    return slice(start, min(start + size, n))


def span(n_q: int, n_k: int, query: int, causal: bool, size: int = SHOWN) -> tuple[slice, slice]:
    """The queries and keys shown: all of a short text; else `size` queries around `query`, and the `size` keys
    that matter to them: under a causal mask those up to the last shown query (no later key is read), else
    those around the query's place in the key sentence."""
    queries = _around(query, n_q, size)
    if causal:
        end = min(queries.stop, n_k)
        return queries, slice(max(end - size, 0), end)
    return queries, _around(round(query * n_k / max(n_q, 1)), n_k, size)


@dataclass(frozen=True)
class Block:
    """The block a page shows, and the one asked for if this model lacks it (None if it has it or it is no block)."""
    block: str
    missing: str | None = None

    @property
    def stack(self) -> str:
        return blocks.split(self.block)[0]

    @property
    def kind(self) -> str:
        return blocks.split(self.block)[1]


def pick_block(cfg, asked: str) -> Block:
    """`asked` if the model has it, else its first block (noting `asked` if another model would have it)."""
    have = blocks.blocks(cfg)
    return Block(asked) if asked in have else Block(have[0], asked if asked in blocks.SIDES else None)


def block_inputs(trace, pre_norm: bool, stack: str, layer: int, kind: str):
    """What the block reads: (X for the queries, X for keys and values), each [pos, d_model], batch 0."""
    if kind == "cross_attn":  # queries: the decoder after its self-attention; keys: the encoder output
        x = trace.layer(stack, layer, "norm2" if pre_norm else "norm1")
        last = trace.n_layers("encoder") - 1
        memory = trace["encoder.final_norm"] if "encoder.final_norm" in trace else trace.layer_output("encoder", last)
        return x[0], memory[0]
    x = trace.layer(stack, layer, "norm1" if pre_norm else "resid_pre")  # a post-norm layer reads its input as is
    return x[0], x[0]


MASKED = (r"\tilde S_{ij} = \begin{cases} S'_{ij} & M_{ij} = 1 \\"
          r" -\infty & M_{ij} = 0 \end{cases}")


BIASES = {"alibi": r" + B_{\mathrm{ALiBi}}", "relative": r" + B_{\mathrm{rel}}"}  # on self-attention's scores


def latex(cfg, kind: str, scale: bool) -> dict[str, str]:
    """How each stage is computed, one line each."""
    src = "M" if kind == "cross_attn" else "X"
    rope = cfg.positional == "rope" and kind == "self_attn"

    def proj(name, x):
        inner = f"{x} W_{name} + b_{name}"
        return rf"{name} = \mathrm{{RoPE}}({inner})" if rope and name != "V" else f"{name} = {inner}"

    scaled = rf"S' = S / \sqrt{{d_k}} = S / \sqrt{{{cfg.d_head}}}" if scale else "S' = S"
    if cfg.positional in BIASES and kind == "self_attn":
        scaled += BIASES[cfg.positional]
    return {
        "x": r"X \in \mathbb{R}^{n \times d_{\mathrm{model}}}",
        "memory": r"M \in \mathbb{R}^{m \times d_{\mathrm{model}}}",
        **{f"w_{n.lower()}": rf"W_{n} \in \mathbb{{R}}^{{d_{{\mathrm{{model}}}} \times d_k}},\ d_k = {cfg.d_head}"
           for n in "QKV"},
        "q": proj("Q", "X"), "k": proj("K", src), "v": proj("V", src),
        "scores": r"S = Q K^\top", "scaled": scaled,
        "mask": r"M_{ij} \in \{0, 1\}",
        "masked": MASKED,
        "pattern": r"A = \mathrm{softmax}(\tilde S)", "z": r"Z_h = A V",
        "concat": rf"\mathrm{{Concat}}(Z_0, \dots, Z_{{{cfg.n_heads - 1}}})",
        "w_o": rf"W_O \in \mathbb{{R}}^{{h d_k \times d_{{\mathrm{{model}}}}}},\ h d_k = {cfg.n_heads * cfg.d_head}",
        "out": r"\mathrm{Concat}(Z_0, \dots) \, W_O + b_O",
    }


def head_steps(trace, weights: dict, cfg, block: str, layer: int, head: int, src_labels, tgt_labels,
               scale: bool = True, query: int = 0) -> HeadSteps:
    """Every stage of `block` ('stack.kind') at one layer and head, batch 0, over the queries and keys `span` shows
    for `query`; `weights`: the head's W_Q, W_K, W_V (with biases), W_O and b_O (core_model.heads.head_weights)."""
    stack, kind = blocks.split(block)
    view = trace.attn(stack, layer, kind)
    qs, ks = span(view.q.shape[2], view.k.shape[2], query, block == "decoder.self_attn")
    x, memory = (a[s] for a, s in zip(block_inputs(trace, cfg.norm_placement == "pre", stack, layer, kind), (qs, ks)))
    q_lab = query_labels(block, src_labels, tgt_labels)
    k_lab = tuple(src_labels if kind == "cross_attn" else q_lab)[ks]
    q_lab = q_lab[qs]
    tex = latex(cfg, kind, scale)

    def step(name, values, x_labels, y_labels, x_axis, y_axis, **extra):
        return Step(name, tex[name], np.asarray(values), x_labels, y_labels, x_axis, y_axis, **extra)

    def by_query(name, values, x_labels=None, x_axis="dim", **extra):  # rows are the queries
        return step(name, values, x_labels, q_lab, x_axis, "query", query_rows=True, **extra)

    def by_key(name, values):  # a [q, k] stage of the head: queries down, keys across
        return by_query(name, values[0, head, qs, ks], k_lab, "key", **({"zrange": (0, 1)} if name == "pattern" else {}))

    inputs = (by_query("x", x, x_axis="feature"),) + (
        (step("memory", memory, None, k_lab, "feature", "key"),) if kind == "cross_attn" else ())
    allowed = (~np.isneginf(view.scores_masked[0, head, qs, ks])).astype(np.float32)  # [q, k] 1 = may attend
    kv, shared = key_value_head(view, head)
    sections = (
        ("input", inputs),
        ("weights", tuple(step(f"w_{n}", weights[f"w_{n}"], None, None, "dim", "feature") for n in "qkv")),
        ("qkv", (by_query("q", view.q[0, head, qs]), step("k", view.k[0, kv, ks], None, k_lab, "dim", "key"),
                 step("v", view.v[0, kv, ks], None, k_lab, "dim", "key"))),
        ("scores", (by_key("scores", view.scores), by_key("scaled", view.scores_scaled))),
        ("mask", (by_query("mask", allowed, k_lab, "key", zrange=(0, 1)), by_key("masked", view.scores_masked))),
        ("softmax", (by_key("pattern", view.pattern),)),
        ("heads", (by_query("z", view.z[0, head, qs]), by_query("concat", view.concat[0, qs], x_axis="feature",
                                                                columns=(head * cfg.d_head, (head + 1) * cfg.d_head)))),
        ("output", (step("w_o", weights["w_o"], None, None, "feature", "feature"),
                    by_query("out", view.out[0, qs], x_axis="feature"))),
    )
    return HeadSteps(sections, q_lab, k_lab, *_rows(view, head, qs, ks, query), shared)


def key_value_head(view, head: int) -> tuple[int, tuple[int, int, int] | None]:
    """The key/value head query head `head` reads, and HeadSteps.shared: (that head, the first and the last query
    head sharing it) when the block shares each key/value head among several (grouped-query attention), else None.
    Read from the trace's own shapes: q has the model's query heads, k its key/value heads."""
    group = view.q.shape[1] // view.k.shape[1]
    kv = head // group
    return kv, ((kv, kv * group, (kv + 1) * group - 1) if group > 1 else None)


def _rows(view, head: int, qs: slice, ks: slice, query: int) -> tuple:
    """HeadSteps' rows, queries, keys, query and outside: the query's weight on keys not shown."""
    rows = tuple(a[0, head, qs, ks] for a in (view.scores, view.scores_masked, view.pattern))
    outside = float(view.pattern[0, head, query].sum(dtype=np.float64) - rows[2][query - qs.start].sum(dtype=np.float64))
    return rows, qs, ks, query - qs.start, max(outside, 0.0)


def notes(cfg, kind: str) -> list[str]:
    """Which remarks (i18n keys after 'self_attention.') the block needs: where X comes from, RoPE, ALiBi, T5's
    relative bias."""
    found = ["x_note.cross" if kind == "cross_attn" else f"x_note.{cfg.norm_placement}"]
    if cfg.positional in ("rope", "alibi", "relative") and kind == "self_attn":  # inside self-attention only
        found.append(f"{cfg.positional}_note")
        found += ["rope_partial_note"] if cfg.positional == "rope" and cfg.rope_dims else []  # GPT-NeoX, Phi
    return found


def entropy_bits(weights) -> float:
    """Shannon entropy of one row of attention weights, in bits (0 = all weight on one key)."""
    p = np.asarray(weights, dtype=np.float64)
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())




@dataclass(frozen=True)
class Neuron:
    """Inside q·k for the chosen query (BertViz's neuron view): its vector against each shown key's."""
    q: np.ndarray  # [d_head] the query's vector (rotated, for RoPE)
    k: np.ndarray  # [keys, d_head]
    products: np.ndarray  # [keys, d_head]: q ⊙ k_j, dimension by dimension
    scores: np.ndarray  # [keys]: each row's sum, q·k_j, the raw score


def neuron(hs: HeadSteps) -> Neuron:
    """The chosen query's q and the shown keys' k (the head's Q and K stages), their product per dimension
    and its sum per key."""
    stages = {s.name: s for _, group in hs.sections for s in group}
    q = np.asarray(stages["q"].values[hs.query], dtype=np.float64)
    k = np.asarray(stages["k"].values, dtype=np.float64)
    products = q[None, :] * k
    return Neuron(q, k, products, products.sum(-1))


def query_rows(hs: HeadSteps) -> np.ndarray:
    """The chosen query's row at three stages over the shown keys: scores, scaled and masked, weights → [3, k]."""
    return np.stack([r[hs.query] for r in hs.rows])


@dataclass(frozen=True)
class Saturation:
    """One query's weights with and without ÷√d_k, and how peaked each is."""
    weights: np.ndarray  # [2, k]: as trained (with the division), and without it
    entropy: tuple[float, float]  # bits
    peak: tuple[float, float]  # the largest weight


def saturation(trained_trace, hs: HeadSteps, block: str, layer: int, head: int) -> Saturation:
    """`trained_trace`: the same text run with the division; `hs`: the steps of the run without it (the chosen
    query's weights over the shown keys)."""
    stack, kind = blocks.split(block)
    trained = trained_trace.attn(stack, layer, kind).pattern[0, head, hs.queries.start + hs.query, hs.keys]
    weights = np.stack([trained, hs.rows[2][hs.query]])
    return Saturation(weights, tuple(entropy_bits(w) for w in weights), tuple(float(w.max()) for w in weights))
