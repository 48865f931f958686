"""Direct logit attribution: what each head, each FFN and the embedding write toward one output token.

In a pre-norm decoder the stream that reaches the output is a sum: the embedding, then every block's output added
in turn. A head's output is its z times its own columns of W_O, so the stream splits into one vector per head, per
FFN, per bias and the embedding. The final norm is not linear (it divides by the stream's spread), so its scale is
taken as the run computed it and frozen: then each part goes through it and the output layer on its own, and the
parts add up to the logit. A post-norm model renormalises the stream in every layer: no part reaches the output
directly, and it is refused.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from .nn.layers import RMSNorm
from .trace import Trace


@dataclass(frozen=True)
class Attribution:
    """The logit of `token` at `position`, split: heads [blocks][layers, heads], the rest by (kind, block, layer)."""
    token: int
    position: int
    heads: dict  # block "decoder.self_attn" / "decoder.cross_attn" → [layers, heads], in logits
    # ("embedding", "", -1), then per layer i ("bias", block, i) for W_O's and ("ffn", "", i), last ("norm", "", -1)
    # for the final norm's and the output layer's biases → logits, in the order the stream gathers them
    rest: dict
    logit: float  # the model's own logit

    @property
    def total(self) -> float:
        """Every part added up (equal to `logit` within float rounding)."""
        return float(sum(h.sum() for h in self.heads.values()) + sum(self.rest.values()))


def applies(model) -> bool:
    """Pre-norm decoders: their stream reaches the output through the final norm only."""
    cfg = model.cfg
    return cfg.has_decoder and cfg.norm_placement == "pre" and model.decoder.final_norm is not None


def parts(model, trace: Trace, position: int) -> dict[tuple, np.ndarray]:
    """The decoder's stream at `position` (of the trace's first sentence) as the vectors that add up to it, keyed
    (kind, block, layer, head): ("embedding", "", -1, -1), ("head", block, i, h), ("bias", block, i, -1) and
    ("ffn", "", i, -1)."""
    cfg = model.cfg
    out = {("embedding", "", -1, -1): trace["decoder.layers.0.resid_pre"][0, position].astype(np.float64)}
    kinds = ("self_attn", "cross_attn") if cfg.has_encoder else ("self_attn",)
    for i, layer in enumerate(model.decoder.layers):
        for kind in kinds:
            block = getattr(layer, kind)
            z = trace[f"decoder.layers.{i}.{kind}.z"][0, :, position].astype(np.float64)  # [heads, d_head]
            w_o = block.out_proj.weight.detach().double().cpu().numpy()  # [d_model, heads · d_head]
            for h in range(block.n_heads):
                out[("head", f"decoder.{kind}", i, h)] = w_o[:, h * block.d_head:(h + 1) * block.d_head] @ z[h]
            if block.out_proj.bias is not None:
                out[("bias", f"decoder.{kind}", i, -1)] = block.out_proj.bias.detach().double().cpu().numpy()
        out[("ffn", "", i, -1)] = trace[f"decoder.layers.{i}.ffn.out"][0, position].astype(np.float64)
    return out


def attribute(model, trace: Trace, position: int, token: int) -> Attribution:
    """Each part of the stream at `position` through the final norm (its scale frozen as the run had it) and the
    output layer, toward `token`'s logit."""
    if not applies(model):
        raise ValueError("only a pre-norm decoder's stream reaches the output directly: a post-norm model "
                         "renormalises it in every layer.")
    cfg, norm = model.cfg, model.decoder.final_norm
    pieces = parts(model, trace, position)
    stream = sum(pieces.values())  # [d_model], as the last layer handed it to the final norm
    handed = trace[f"decoder.layers.{cfg.n_decoder_layers - 1}.resid_post"][0, position].astype(np.float64)
    if not np.allclose(stream, handed, rtol=1e-4, atol=1e-4 * np.abs(handed).max()):  # e.g. a norm after a block
        raise ValueError("this model's layers add more to the stream than their blocks' outputs: its parts do not "
                         "add up to what reaches the final norm.")
    centre = not isinstance(norm, RMSNorm)  # LayerNorm subtracts the mean, RMSNorm does not
    spread = np.sqrt((stream - stream.mean()).var() + norm.eps if centre else (stream ** 2).mean() + norm.eps)
    gain = norm.weight.detach().double().cpu().numpy()
    row = model.generator.weight.detach()[token].double().cpu().numpy() * (cfg.d_model ** -0.5 if cfg.scale_output else 1)

    def through(v: np.ndarray) -> float:
        return float(((v - v.mean()) if centre else v) / spread * gain @ row)

    heads, rest = {}, {}
    for (kind, block, layer, head), vector in pieces.items():
        if kind == "head":
            heads.setdefault(block, np.zeros((cfg.n_decoder_layers, model.decoder.layers[0].self_attn.n_heads)))
            heads[block][layer, head] = through(vector)
        else:
            rest[(kind, block, layer)] = through(vector)
    bias = getattr(norm, "bias", None)
    out_bias = model.generator.bias
    rest[("norm", "", -1)] = float((0 if bias is None else bias.detach().double().cpu().numpy() @ row)
                                         + (0 if out_bias is None else out_bias.detach()[token].item()))
    return Attribution(token, position, heads, rest, float(trace["logits"][0, position, token]))
