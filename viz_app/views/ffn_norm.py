"""FFN, residual & normalization: the residual stream's size, the FFN's hidden units, what a norm does to
one token's vector, and the logit lens laid out as a table."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import blocks


def stream_stages(names, stack: str, side: str, pre_norm: bool) -> list[tuple[int | None, str, str]]:
    """The residual stream's states in order, as (layer or None, leaf, trace name).

    Post-norm layers carry the normalized sum on to the next sublayer, so their norms are
    stages of the stream; pre-norm layers only feed a normalized copy to the sublayer, so the
    stream is the sums alone, read out through the stack's final norm. A layer's resid_pre is the
    stage before it, so it is not a stage of its own.
    """
    stages = [(None, "embed", f"{side}_embed.out")]
    prefix = f"{stack}.layers."
    for name in names:
        if name.startswith(prefix):
            layer, leaf = name[len(prefix):].split(".", 1)
            if leaf in ("resid_mid", "resid_cross", "resid_post") or (leaf.startswith("norm") and not pre_norm):
                stages.append((int(layer), leaf, name))
    if f"{stack}.final_norm" in names:
        stages.append((None, "final_norm", f"{stack}.final_norm"))
    return stages


def norm_input_name(stack: str, layer: int, pre_norm: bool) -> str:
    """The trace name of the value that norm1 of a layer normalizes: the layer's input (pre-norm), or
    x + attention(x) (post-norm, normalized after the sum)."""
    return f"{stack}.layers.{layer}.{'resid_pre' if pre_norm else 'resid_mid'}"


@dataclass(frozen=True)
class Stream:
    """The size of every token's vector at every stage of a stack's residual stream."""
    norms: np.ndarray  # [stages, pos]
    stages: tuple[tuple[int | None, str], ...]  # (layer or None, leaf)
    labels: tuple[str, ...]  # the tokens


def stream(run, stack: str, pre_norm: bool) -> Stream:
    side = blocks.side_of(stack)
    found = stream_stages(run.trace.names, stack, side, pre_norm)
    norms = np.stack([np.linalg.norm(run.trace[name][0], axis=-1) for _, _, name in found])
    return Stream(norms, tuple((layer, leaf) for layer, leaf, _ in found), blocks.labels(run, side))


def inactive_fraction(hidden, activation: str) -> np.ndarray:
    """Per token, the share of FFN units a ReLU set to exactly 0 or a GELU made negative: [pos, d_ff] → [pos]."""
    hidden = np.asarray(hidden)
    return ((hidden == 0) if activation == "relu" else (hidden < 0)).mean(-1).astype(np.float32)


@dataclass(frozen=True)
class Hidden:
    values: np.ndarray  # [pos, d_ff] the FFN's hidden units after the activation
    inactive: np.ndarray  # [pos] the share of units switched off


def hidden(run, stack: str, layer: int, activation: str) -> Hidden:
    values = run.trace.layer(stack, layer, "ffn.hidden")[0]
    return Hidden(values, inactive_fraction(values, activation))


def moments(x) -> dict[str, float]:
    """Mean, standard deviation and root mean square of one vector."""
    x = np.asarray(x, dtype=np.float64)
    return {"mean": float(x.mean()), "std": float(x.std()), "rms": float(np.sqrt((x ** 2).mean()))}


def standardized(x, norm: str, eps: float) -> np.ndarray:
    """What a norm makes of one vector before its learned gain and bias: (x − μ)/σ, or x / rms(x) for RMSNorm."""
    x = np.asarray(x, dtype=np.float64)
    if norm == "rmsnorm":
        return x / np.sqrt((x ** 2).mean() + eps)
    return (x - x.mean()) / np.sqrt(x.var() + eps)


@dataclass(frozen=True)
class Norm:
    """One token's vector before and after norm1, and the moments of it before, after, and standardized."""
    source: str  # the trace name of the value norm1 reads
    before: np.ndarray  # [d_model]
    after: np.ndarray  # [d_model]
    moments: dict  # {"before" | "after" | "standardized": {"mean", "std", "rms"}}


def norm(run, stack: str, layer: int, token: int, cfg) -> Norm:
    source = norm_input_name(stack, layer, cfg.norm_placement == "pre")
    before, after = run.trace[source][0, token], run.trace.layer(stack, layer, "norm1")[0, token]
    z = standardized(before, cfg.norm, cfg.norm_eps)
    return Norm(source, before, after, {"before": moments(before), "after": moments(after), "standardized": moments(z)})


def lens_cells(lens) -> list[list[str]]:
    """The logit lens's top tokens as table cells 'piece prob · …': [pos][layers]."""
    return [[" · ".join(f"{p} {q:.2f}" for p, q in zip(lens.top_pieces[layer][pos], lens.top_probs[layer, pos]))
             for layer in range(len(lens.top_pieces))] for pos in range(len(lens.top_pieces[0]))]


NORM_LATEX = {
    "layernorm": r"\mathrm{LayerNorm}(x) = \gamma \odot \frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}} + \beta",
    "rmsnorm": r"\mathrm{RMSNorm}(x) = \gamma \odot \frac{x}{\sqrt{\frac{1}{d}\sum_i x_i^2 + \epsilon}}",
}


ACTIVATION_LATEX = {"relu": r"\mathrm{ReLU}", "gelu": r"\mathrm{GELU}", "gelu_tanh": r"\mathrm{GELU}_{\tanh}",
                    "silu": r"\mathrm{SiLU}"}


# A parallel layer (ModelConfig.block): attention and FFN both read the layer's input, one sum
PARALLEL_LATEX = {
    "parallel": r"x \leftarrow x + \mathrm{Attn}(\mathrm{Norm}_1(x)) + \mathrm{FFN}(\mathrm{Norm}_2(x))",
    "parallel_shared": r"x \leftarrow x + \mathrm{Attn}(\mathrm{Norm}(x)) + \mathrm{FFN}(\mathrm{Norm}(x))",
}


def formulas(cfg) -> tuple[str, str]:
    """The FFN's formula with the model's activation, and where its norm sits with the norm's formula."""
    ffn = r"\mathrm{FFN}(x) = %s(x W_1 + b_1)\, W_2 + b_2" % ACTIVATION_LATEX[cfg.activation]
    where = PARALLEL_LATEX.get(cfg.block) or (r"x \leftarrow x + \mathrm{Sublayer}(\mathrm{Norm}(x))"
                                              if cfg.norm_placement == "pre" else
                                              r"x \leftarrow \mathrm{Norm}(x + \mathrm{Sublayer}(x))")
    return ffn, where + r"\qquad" + NORM_LATEX[cfg.norm]
