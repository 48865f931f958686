"""The contribution graph, in the manner of Meta's LLM Transparency Tool (Ferrando and Voita, 2024): how much of
each residual state of a pre-norm decoder comes from which earlier state, through which head or FFN.

Each sublayer adds to the stream: after attention, token i's state is its state before plus, for every head h and
every earlier token j, A[h, i, j] · v_j W_O,h (and W_O's bias); after the FFN it is that plus the FFN's output. A
part's share of a sum is how much closer the sum is to zero without it, in L1: max(0, |sum|₁ − |sum − part|₁),
the shares of one sum scaled to add up to 1. Parts that point against the sum get none.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .trace import Trace

MAX_TOKENS = 128  # the graph's tokens at most: its attention parts are heads × tokens² vectors of d_model


def l1_shares(parts: np.ndarray, total: np.ndarray) -> np.ndarray:
    """parts [n, d] that add up to total [d] → each part's share of the total, [n], adding up to 1."""
    gain = np.maximum(np.abs(total).sum() - np.abs(total[None] - parts).sum(-1), 0.0)
    return gain / gain.sum() if gain.sum() > 0 else np.full(len(parts), 1 / len(parts))


@dataclass(frozen=True)
class Layer:
    """One decoder layer's shares. attention[h, i, j]: token i's state after attention, from token j's state before
    it through head h; kept[i]: from token i's own state before attention (the residual); bias[i]: W_O's bias.
    ffn[i] and carried[i]: token i's state after the layer, from the FFN and from its state after attention."""
    attention: np.ndarray  # [heads, n, n]
    kept: np.ndarray  # [n]
    bias: np.ndarray  # [n]
    ffn: np.ndarray  # [n]
    carried: np.ndarray  # [n]


def applies(model) -> bool:
    """A decoder-only, pre-norm, sequential model: each sublayer's output is added to the stream as it is."""
    cfg = model.cfg
    return (cfg.has_decoder and not cfg.has_encoder and cfg.norm_placement == "pre" and cfg.block == "sequential"
            and model.decoder.final_norm is not None)


def layer_shares(model, trace: Trace, layer: int) -> Layer:
    """The shares of one layer of the trace's first sentence."""
    block = model.decoder.layers[layer].self_attn
    before = trace.layer_input("decoder", layer)[0].astype(np.float64)  # [n, d]
    mid = trace.layer("decoder", layer, "resid_mid")[0].astype(np.float64)
    after = trace.layer("decoder", layer, "resid_post")[0].astype(np.float64)
    pattern = trace.attn("decoder", layer).pattern[0].astype(np.float64)  # [h, n, n]
    v = trace.attn("decoder", layer).v[0].astype(np.float64)  # [kv, n, d_head]
    w_o = block.out_proj.weight.detach().double().cpu().numpy()  # [d, h · d_head]
    b_o = np.zeros(w_o.shape[0]) if block.out_proj.bias is None else block.out_proj.bias.detach().double().cpu().numpy()
    heads, n, group, d_head = pattern.shape[0], pattern.shape[1], block.n_heads // block.n_kv_heads, block.d_head
    written = np.stack([v[h // group] @ w_o[:, h * d_head:(h + 1) * d_head].T for h in range(heads)])  # [h, n, d]
    attention, kept, bias = np.zeros((heads, n, n)), np.zeros(n), np.zeros(n)
    for i in range(n):
        parts = pattern[:, i, :i + 1, None] * written[:, :i + 1]  # [h, i + 1, d]: what each earlier token brings
        shares = l1_shares(np.concatenate([before[i][None], parts.reshape(-1, parts.shape[-1]), b_o[None]]), mid[i])
        kept[i], bias[i] = shares[0], shares[-1]
        attention[:, i, :i + 1] = shares[1:-1].reshape(heads, i + 1)
    ffn_parts = [l1_shares(np.stack([mid[i], after[i] - mid[i]]), after[i]) for i in range(n)]
    return Layer(attention, kept, bias, np.array([s[1] for s in ffn_parts]), np.array([s[0] for s in ffn_parts]))


def shares(model, trace: Trace) -> list[Layer]:
    """Every decoder layer's shares (a pre-norm decoder-only model's, at most MAX_TOKENS tokens)."""
    if not applies(model):
        raise ValueError("the contribution graph reads a pre-norm decoder-only model, whose sublayers add to the "
                         "stream as they are; this one normalises or joins them otherwise.")
    n = trace.layer_input("decoder", 0).shape[1]
    if n > MAX_TOKENS:
        raise ValueError(f"the contribution graph reads at most {MAX_TOKENS} tokens; this text has {n}.")
    return [layer_shares(model, trace, i) for i in range(model.cfg.n_decoder_layers)]
