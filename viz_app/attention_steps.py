"""One attention head's computation, stage by stage, for the step-by-step and worked-example pages.

`head_steps` gathers a traced run's values and the model's weights for one block, layer and head;
`worked` runs a hand-set example through core_model's own attention(), the model's code path.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from core_model.attention import attention
from core_model.masks import causal_mask
from core_model.trace import Trace, recording

BLOCKS = {  # attention blocks each architecture has, as "stack.kind"
    "encoder-decoder": ("encoder.self_attn", "decoder.self_attn", "decoder.cross_attn"),
    "encoder": ("encoder.self_attn",),
    "decoder": ("decoder.self_attn",),
}


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


@dataclass(frozen=True)
class HeadSteps:
    sections: tuple[tuple[str, tuple[Step, ...]], ...]  # (section name, stages shown side by side)
    q_labels: tuple[str, ...]
    k_labels: tuple[str, ...]
    rows: tuple[np.ndarray, np.ndarray, np.ndarray]  # scores, scaled and masked, weights; each [q, k]


def block_inputs(trace: Trace, pre_norm: bool, stack: str, layer: int, kind: str):
    """What the block reads: (X for the queries, X for keys and values), each [pos, d_model], batch 0."""
    if kind == "cross_attn":  # queries: the decoder after its self-attention; keys: the encoder output
        x = trace.layer(stack, layer, "norm2" if pre_norm else "norm1")
        last = trace.n_layers("encoder") - 1
        memory = trace["encoder.final_norm"] if "encoder.final_norm" in trace else trace.layer_output("encoder", last)
        return x[0], memory[0]
    if pre_norm:
        x = trace.layer(stack, layer, "norm1")
    elif layer == 0:
        x = trace.embed("src" if stack == "encoder" else "tgt").out
    else:
        x = trace.layer_output(stack, layer - 1)
    return x[0], x[0]


def head_weights(block: torch.nn.Module, head: int) -> dict[str, np.ndarray]:
    """W_Q, W_K, W_V of one head as [d_model, d_head] (so Q = X W_Q + b_Q), their biases, and W_O, b_O.

    A model without biases gets zero biases, so the formulas hold as written.
    """
    d_head = block.d_head
    rows = slice(head * d_head, (head + 1) * d_head)  # nn.Linear keeps W as [out, in]: a head owns out rows
    out = {}
    for name, linear in (("q", block.q_proj), ("k", block.k_proj), ("v", block.v_proj)):
        out[f"w_{name}"] = linear.weight.detach()[rows].T.numpy().copy()  # [d_model, d_head]; never a view of the model
        bias = torch.zeros(block.n_heads * d_head) if linear.bias is None else linear.bias.detach()
        out[f"b_{name}"] = bias[rows].numpy().copy()
    out["w_o"] = block.out_proj.weight.detach().T.numpy().copy()  # [h·d_head, d_model]
    b_o = block.out_proj.bias
    out["b_o"] = np.zeros(out["w_o"].shape[1], np.float32) if b_o is None else b_o.detach().numpy().copy()
    return out


MASKED = (r"\tilde S_{ij} = \begin{cases} S'_{ij} & \mathrm{mask}_{ij} = 1 \\"
          r" -\infty & \mathrm{mask}_{ij} = 0 \end{cases}")


def latex(cfg, kind: str, scale: bool) -> dict[str, str]:
    """How each stage is computed, one line each."""
    src = "M" if kind == "cross_attn" else "X"
    rope = cfg.positional == "rope" and kind == "self_attn"

    def proj(name, x):
        inner = f"{x} W_{name} + b_{name}"
        return rf"{name} = \mathrm{{RoPE}}({inner})" if rope and name != "V" else f"{name} = {inner}"

    scaled = rf"S' = S / \sqrt{{d_k}} = S / \sqrt{{{cfg.d_head}}}" if scale else "S' = S"
    if cfg.positional == "alibi" and kind == "self_attn":
        scaled += r" + B_{\mathrm{ALiBi}}"
    return {
        "x": r"X \in \mathbb{R}^{n \times d_{\mathrm{model}}}",
        "memory": r"M \in \mathbb{R}^{m \times d_{\mathrm{model}}}",
        **{f"w_{n.lower()}": rf"W_{n} \in \mathbb{{R}}^{{d_{{\mathrm{{model}}}} \times d_k}},\ d_k = {cfg.d_head}"
           for n in "QKV"},
        "q": proj("Q", "X"), "k": proj("K", src), "v": proj("V", src),
        "scores": r"S = Q K^\top", "scaled": scaled,
        "mask": r"\mathrm{mask}_{ij} \in \{0, 1\}",
        "masked": MASKED,
        "pattern": r"A = \mathrm{softmax}(\tilde S)", "z": r"Z_h = A V",
        "concat": rf"\mathrm{{Concat}}(Z_0, \dots, Z_{{{cfg.n_heads - 1}}})",
        "w_o": r"W_O \in \mathbb{R}^{d_{\mathrm{model}} \times d_{\mathrm{model}}}",
        "out": r"\mathrm{Concat}(Z_0, \dots) \, W_O + b_O",
    }


def head_steps(trace: Trace, model: torch.nn.Module, cfg, block: str, layer: int, head: int,
               src_labels, tgt_labels, scale: bool = True) -> HeadSteps:
    """Every stage of `block` ('stack.kind') at one layer and head, as matrices of batch 0."""
    stack, kind = block.split(".")
    view = trace.attn(stack, layer, kind)
    x, memory = block_inputs(trace, cfg.norm_placement == "pre", stack, layer, kind)
    w = head_weights(model.get_submodule(f"{stack}.layers.{layer}.{kind}"), head)
    q_lab = tuple(tgt_labels if stack == "decoder" else src_labels)
    k_lab = tuple(src_labels if kind == "cross_attn" else q_lab)
    tex = latex(cfg, kind, scale)
    d = cfg.d_head

    def step(name, values, x_labels, y_labels, x_axis, y_axis, **extra):
        return Step(name, tex[name], np.asarray(values), x_labels, y_labels, x_axis, y_axis, **extra)

    inputs = [step("x", x, None, q_lab, "feature", "query", query_rows=True)]
    if kind == "cross_attn":
        inputs.append(step("memory", memory, None, k_lab, "feature", "key"))
    allowed = (~np.isneginf(view.scores_masked[0, head])).astype(np.float32)  # [q, k] 1 = may attend
    sections = (
        ("input", tuple(inputs)),
        ("weights", tuple(step(f"w_{n}", w[f"w_{n}"], None, None, "dim", "feature") for n in "qkv")),
        ("qkv", (step("q", view.q[0, head], None, q_lab, "dim", "query", query_rows=True),
                 step("k", view.k[0, head], None, k_lab, "dim", "key"),
                 step("v", view.v[0, head], None, k_lab, "dim", "key"))),
        ("scores", (step("scores", view.scores[0, head], k_lab, q_lab, "key", "query", query_rows=True),
                    step("scaled", view.scores_scaled[0, head], k_lab, q_lab, "key", "query", query_rows=True))),
        ("mask", (step("mask", allowed, k_lab, q_lab, "key", "query", query_rows=True, zrange=(0, 1)),
                  step("masked", view.scores_masked[0, head], k_lab, q_lab, "key", "query", query_rows=True))),
        ("softmax", (step("pattern", view.pattern[0, head], k_lab, q_lab, "key", "query", query_rows=True,
                          zrange=(0, 1)),)),
        ("heads", (step("z", view.z[0, head], None, q_lab, "dim", "query", query_rows=True),
                   step("concat", view.concat[0], None, q_lab, "feature", "query", query_rows=True,
                        columns=(head * d, (head + 1) * d)))),
        ("output", (step("w_o", w["w_o"], None, None, "feature", "feature"),
                    step("out", view.out[0], None, q_lab, "feature", "query", query_rows=True))),
    )
    rows = (view.scores[0, head], view.scores_masked[0, head], view.pattern[0, head])
    return HeadSteps(sections, q_lab, k_lab, rows)


def notes(cfg, kind: str) -> list[str]:
    """Which remarks (i18n keys after 'self_attention.') the block needs: where X comes from, RoPE, ALiBi."""
    found = ["x_note.cross" if kind == "cross_attn" else f"x_note.{cfg.norm_placement}"]
    if cfg.positional in ("rope", "alibi") and kind == "self_attn":  # they act inside self-attention only
        found.append(f"{cfg.positional}_note")
    return found


def entropy_bits(weights) -> float:
    """Shannon entropy of one row of attention weights, in bits (0 = all weight on one key)."""
    p = np.asarray(weights, dtype=np.float64)
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


# --- the worked example ----------------------------------------------------------------------------

LIMIT = 100.0  # hand-set numbers stay readable and far from float overflow in exp()

# Defaults chosen so that every token looks mostly at a different token (I → cats, love → I,
# cats → love) with weights well away from 0, 1 and 1/3: nothing uniform, nothing saturated.
WORKED = {
    "X": [[1, 0, 1, 0], [0, 2, 0, 1], [1, 1, 1, 1]],
    "W_Q": [[0.5, 0.5, 0, 0.5], [0, -1, -1, -1], [0, 1, 0.5, 1], [0, -1, 1, 0.5]],
    "W_K": [[1, 1, 1, 0], [1, 0, 0, 0.5], [-1, 0, 0, 0], [-1, 0.5, 0.5, 1]],
    "W_V": [[1, 0, 0, 0], [0, 0.5, 0, 0], [0, 0, 1, 0], [0, 0, 0, 2]],
}

WORKED_LATEX = {
    "q": "Q = X W_Q", "k": "K = X W_K", "v": "V = X W_V", "scores": r"S = Q K^\top",
    "scores_scaled": r"S' = S / \sqrt{d_k} = S / 2", "mask": r"\mathrm{mask}_{ij} \in \{0, 1\}",
    "scores_masked": MASKED,
    "pattern": r"A = \mathrm{softmax}(\tilde S)", "z": "Z = A V",
}


def worked_labels(words) -> tuple[str, ...]:
    """'0·I' labels from the typed words (an emptied cell gives just the position)."""
    clean = ["" if not isinstance(w, str) else " ".join(w.split())[:20] for w in words]
    return tuple(f"{i}·{w}" for i, w in enumerate(clean))


def read_grid(table: pd.DataFrame, columns) -> tuple[np.ndarray, int, int]:
    """A grid's numbers as float64 → (values, cells that were not numbers (set to 0), cells clamped to ±LIMIT)."""
    values = table[list(columns)].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)
    missing = np.isnan(values)
    outside = ~missing & (np.abs(values) > LIMIT)
    values = np.clip(np.where(missing, 0.0, values), -LIMIT, LIMIT)
    return values, int(missing.sum()), int(outside.sum())


def worked(x, w_q, w_k, w_v, causal: bool) -> dict[str, np.ndarray]:
    """Q, K, V, the mask and every attention stage of a hand-set example, through core_model's attention()."""
    def tensor(a):
        return torch.as_tensor(np.asarray(a, dtype=np.float64))

    x = tensor(x)
    q, k, v = x @ tensor(w_q), x @ tensor(w_k), x @ tensor(w_v)  # [n, d_k]
    n = x.shape[0]
    mask = causal_mask(n) if causal else None  # [1, 1, n, n]
    with torch.no_grad(), recording() as values:
        attention(q[None, None], k[None, None], v[None, None], mask=mask)  # as one head of a batch of one
    stages = {"q": q.numpy(), "k": k.numpy(), "v": v.numpy(),
              "mask": np.ones((n, n)) if mask is None else mask[0, 0].numpy().astype(np.float64)}
    stages.update({name: values[name][0, 0] for name in ("scores", "scores_scaled", "scores_masked", "pattern", "z")})
    return stages
