"""What position alone gives a model: its own position numbers, and what layer 0's heads would do from them.

Each kind of positional (positional.py) puts position in at a different place: sinusoidal and learned vectors are
added to the tokens, RoPE turns the queries and keys, ALiBi biases the scores. These functions read a model's own
modules (and, where the sentence matters, a trace of layer 0) to show that signal on its own.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from ..trace import Trace, on_device
from ..trace.hook_points import heads_product
from .masks import apply_mask, causal_mask, masked_softmax
from .positional import RopeScaling, alibi_bias, alibi_slopes, rope_angles, rope_rotate


@torch.no_grad()
def own_positions(model, cfg, n: int) -> dict:
    """The model's own position information over its first n positions (at most max_len), by kind.

    sinusoidal / learned: {side: [n, d_model]} for each side; rope: {"angles": [n, rotary_dims/2] (d_head/2 unless
    RoPE turns only part of each head), "offset": [n, n] (q·k of one fixed q and k placed at every pair of positions)};
    alibi: {"bias": [h, n, n], "slopes": [h]}; relative (T5): {side: {"buckets": [h, buckets] the side's stack's
    learned table, "bias": [h, n, n] what it adds to the scores of queries and keys at 0 … n-1}}; none: {}.
    """
    positions = torch.arange(min(n, cfg.max_len))
    if cfg.positional in ("sinusoidal", "learned"):
        return {side: getattr(model, f"{side}_embed").pos(on_device(model, positions)).cpu().numpy()
                for side in cfg.sides}
    if cfg.positional == "rope":
        q, k = torch.randn(2, 1, 1, 1, cfg.d_head, generator=torch.Generator().manual_seed(0))
        rq, rk = (rope_rotate(x.expand(1, 1, len(positions), -1), positions, cfg.positional_base,
                              cfg.rope_layout, RopeScaling.of(cfg), cfg.rope_dims)[0, 0] for x in (q, k))  # [n, d_head]
        return {"angles": rope_angles(positions, cfg.rotary_dims, cfg.positional_base, RopeScaling.of(cfg)).numpy(),
                "offset": (rq @ rk.T).numpy()}  # [n, n]
    if cfg.positional == "alibi":
        return {"bias": alibi_bias(cfg.n_heads, positions, positions)[0].numpy(),  # [h, n, n]
                "slopes": alibi_slopes(cfg.n_heads).numpy()}  # [h]
    if cfg.positional == "relative":
        tables = {side: getattr(model, "encoder" if side == "src" else "decoder").relative_bias for side in cfg.sides}
        return {side: {"buckets": table.weight.detach().T.cpu().numpy(),
                       "bias": table(0, len(positions), len(positions))[0].cpu().numpy()}
                for side, table in tables.items()}
    return {}


def position_input(model, cfg, n: int) -> torch.Tensor:
    """What layer 0's self-attention reads at positions 0 … n-1 when every token vector is zero: the position
    vectors (+ token type 0's vector, which BERT adds to every token), through the embedding's norm (BERT's)
    and, in a pre-norm layer, through norm1: [n, d_model]."""
    embed = model.src_embed if cfg.has_encoder else model.tgt_embed
    x = embed.pos(on_device(model, torch.arange(n)))  # [n, d_model]
    if embed.token_type is not None:
        x = x + embed.token_type.weight[0]
    if embed.norm is not None:
        x = embed.norm(x)
    layer = (model.encoder if cfg.has_encoder else model.decoder).layers[0]
    return layer.norm1(x) if layer.pre_norm else x


def layer0_input(cfg) -> str:
    """The leaf of layer 0 its self-attention reads: norm1 in a pre-norm layer, else what enters the layer."""
    return "norm1" if cfg.norm_placement == "pre" else "resid_pre"


def position_scores(model, cfg, trace: Trace, side: str, stack: str) -> tuple[torch.Tensor, dict]:
    """Layer 0's scores [h, n, n] from position alone, before the mask, and the fields of what they are made of.

    sinusoidal, learned: (P W_Q + b_Q)(P W_K + b_K)ᵀ / √d_head of the position vectors alone (position_input);
    rope: the sentence's mean query and mean key (before rope_rotate), each turned for every position, / √d_head;
    alibi: the bias itself (no query or key carries position). The trace needs `{side}_embed.pos` (sinusoidal,
    learned) or layer 0's layer0_input leaf (rope), and layer 0's self-attention pattern (for n).
    """
    attn, n = getattr(model, stack).layers[0].self_attn, trace.attn(stack, 0).pattern.shape[-1]
    positions = on_device(model, torch.arange(n))
    if cfg.positional == "alibi":
        return alibi_bias(cfg.n_heads, positions, positions)[0], dict(slopes=alibi_slopes(cfg.n_heads).numpy())
    if cfg.positional in ("sinusoidal", "learned"):
        x = position_input(model, cfg, n)[None]  # [1, n, d_model]
        q, k = attn.split(attn.q_proj(x)), attn.split(attn.k_proj(x), attn.n_kv_heads)  # [1, h or kv, n, d_head]
        fields = dict(pos=trace[f"{side}_embed.pos"][0])
    elif cfg.positional == "rope":
        x = torch.tensor(trace.layer(stack, 0, layer0_input(cfg)))  # [1, n, d_model], a copy (the trace's is read-only)
        x = on_device(model, x)
        mean_q, mean_k = (attn.split(proj(x), heads).mean(2, keepdim=True)
                          for proj, heads in ((attn.q_proj, attn.n_heads), (attn.k_proj, attn.n_kv_heads)))
        scaling = RopeScaling.of(cfg)
        q, k = (rope_rotate(m.expand(-1, -1, n, -1), positions, cfg.positional_base, cfg.rope_layout, scaling,
                            cfg.rope_dims) for m in (mean_q, mean_k))
        angles = rope_angles(positions, cfg.rotary_dims, cfg.positional_base, scaling)  # [n, rotary/2]
        fields = dict(angles=angles.cpu().numpy())
    else:
        raise ValueError(f"no position signal to show for the kind {cfg.positional!r}.")
    return heads_product(q, k.transpose(-2, -1))[0] / math.sqrt(cfg.d_head), fields  # [h, n, n]


@torch.no_grad()
def position_attention(model, cfg, trace: Trace, side: str, stack: str,
                       causal: bool) -> tuple[np.ndarray, np.ndarray, dict]:
    """What layer 0's heads would do from position alone: (scores [h, n, n] before the mask (position_scores),
    their softmax under the causal mask if `causal`, the fields of what the scores are made of)."""
    scores, fields = position_scores(model, cfg, trace, side, stack)
    mask = causal_mask(scores.shape[-1], device=scores.device) if causal else None  # [1, 1, n, n]
    alone = masked_softmax(apply_mask(scores[None], mask), mask)[0]  # [h, n, n]
    return scores.cpu().numpy(), alone.cpu().numpy(), fields
