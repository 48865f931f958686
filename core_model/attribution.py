"""Which input tokens one output depends on, four ways.

The output explained is one number: for a model with a decoder, the log-probability an output position gives one
token; for an encoder (MiniLM), the final [CLS] vector's length, i.e. the vector projected on its own direction.

- Gradient × input and integrated gradients come from Captum (PyTorch's attribution library), taken at the token
  vectors (the token embedding's output, before scaling and positions) of the model's own forward pass. A token's
  attribution is the sum over its vector's dimensions.
- Attention rollout and attention flow (Abnar & Zuidema 2020) read the attention weights a trace recorded: each
  layer's weights averaged over heads, with the residual connection added as the identity (½A + ½I, rows
  renormalised); rollout multiplies them, flow is the maximum flow through them (networkx).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch

from .trace import on_device

# Integrated gradients is an integral along a path from the baseline to the input, taken at Gauss-Legendre points.
# Attention's softmax makes the path bumpy: the shipped translator needs from 64 to over 512 points before the
# attributions sum to f(input) − f(baseline) within 1 %. So the points double from IG_STEPS until they do, up to
# IG_MAX_STEPS or IG_SECONDS, and the gap reached is reported, never hidden.
IG_STEPS = 64
IG_MAX_STEPS = 1024
IG_SECONDS = 15.0
COMPLETE = 0.01  # |Σ attributions − (f(input) − f(baseline))| ≤ 1 % of |f(input) − f(baseline)|
BATCH = 64  # path points per forward pass


@dataclass(frozen=True)
class Gradients:
    """Per input token: gradient × input and integrated gradients, and the path's two ends."""
    times_input: np.ndarray  # [n]
    integrated: np.ndarray  # [n], sums to f(input) − f(baseline) up to `delta`
    f_input: float
    f_baseline: float
    delta: float  # Captum's convergence delta: Σ integrated − (f_input − f_baseline)
    steps: int  # the path points used
    baseline_ids: tuple[int, ...]  # the input with every token but the special ones replaced by padding


def _objective(model, src_ids, tgt_ids, position: int, token: int):
    """(the ids attributed, their embedding layer, ids → the output explained for each row of the batch)."""
    cfg = model.cfg
    src = on_device(model, torch.tensor([list(src_ids)])) if src_ids else None
    tgt = on_device(model, torch.tensor([list(tgt_ids)])) if tgt_ids else None
    if cfg.architecture == "encoder":
        with torch.no_grad():
            cls = model.encode(src)[0][0, 0]  # the last hidden state, with or without a masked-LM head after it
        direction = cls / cls.norm()

        def explained(ids):
            return model.encode(ids, pad_mask=False)[0][:, 0] @ direction
        return src, model.src_embed.tok, explained

    def explained(ids):  # padding in the baseline is read as tokens (pad_mask=False), as the path needs
        if cfg.architecture == "decoder":
            logits = model(None, ids, pad_mask=False)
        else:
            logits = model(ids, tgt.expand(ids.shape[0], -1), pad_mask=False)
        return torch.log_softmax(logits[:, position], dim=-1)[:, token]
    if cfg.architecture == "decoder":
        return tgt, model.tgt_embed.tok, explained
    return src, model.src_embed.tok, explained


def gradients(model, src_ids, tgt_ids, position: int = 0, token: int = 0) -> Gradients:
    """Gradient × input and integrated gradients of the output explained, per input token.

    The baseline keeps <s>, </s> ([CLS], [SEP]) and puts the padding token everywhere else (Captum's BERT
    tutorial does the same); `position` and `token` are ignored for an encoder.
    """
    # Imported here, not with the module: Captum brings matplotlib, 0.4 s a server's first visit waited for on 2 cores
    from captum.attr import LayerGradientXActivation, LayerIntegratedGradients

    ids, layer, explained = _objective(model, src_ids, tgt_ids, position, token)
    cfg = model.cfg
    special = torch.isin(ids, torch.tensor([cfg.bos_id, cfg.eos_id], device=ids.device))
    baseline = torch.where(special, ids, torch.full_like(ids, cfg.pad_id))
    with torch.no_grad():
        f_input, f_baseline = float(explained(ids)[0]), float(explained(baseline)[0])
    method, steps, start = LayerIntegratedGradients(explained, layer), IG_STEPS, time.monotonic()
    while True:
        integrated, delta = method.attribute(ids, baselines=baseline, n_steps=steps, return_convergence_delta=True,
                                             internal_batch_size=BATCH)
        gap = abs(float(delta[0])) / max(abs(f_input - f_baseline), 1e-12)
        if gap <= COMPLETE or steps * 2 > IG_MAX_STEPS or time.monotonic() - start > IG_SECONDS:
            break
        steps *= 2
    times_input = LayerGradientXActivation(explained, layer).attribute(ids)
    return Gradients(times_input[0].sum(-1).detach().cpu().numpy(), integrated[0].sum(-1).detach().cpu().numpy(),
                     f_input, f_baseline, float(delta[0]), steps, tuple(int(i) for i in baseline[0]))


def with_residual(pattern: np.ndarray) -> np.ndarray:
    """One layer's weights [h, n, n] → averaged over heads, with the residual as ½A + ½I, rows summing to 1."""
    mixed = 0.5 * np.asarray(pattern, dtype=np.float64).mean(0) + 0.5 * np.eye(pattern.shape[-1])
    return mixed / mixed.sum(-1, keepdims=True)


def rollout(patterns, start: np.ndarray | None = None) -> np.ndarray:
    """Attention rollout: `start` [r, n] (rows of the identity by default, i.e. every output position) carried
    down through the layers, last first: start · Ã_L · … · Ã_1. `patterns` are the layers' [h, n, n] weights,
    first layer first. Rows of the result sum to what the rows of `start` sum to."""
    n = patterns[0].shape[-1]
    rows = np.eye(n) if start is None else np.atleast_2d(np.asarray(start, dtype=np.float64))
    for pattern in reversed(patterns):
        rows = rows @ with_residual(pattern)
    return rows


def flow(patterns, sink: np.ndarray) -> np.ndarray:
    """Attention flow: the maximum flow from each input token to an output node fed by the top layer's positions
    with capacities `sink` [n] (one-hot: one position's output; cross-attention weights: a decoder's reading of
    the encoder), through edges (layer l, key j) → (layer l+1, query i) of capacity Ã_{l+1}[i, j]."""
    import networkx as nx  # here, as Captum is: only the attribution page needs it

    n, top = patterns[0].shape[-1], len(patterns)
    graph = nx.DiGraph()
    graph.add_nodes_from((layer, i) for layer in range(top + 1) for i in range(n))
    for layer, pattern in enumerate(patterns):
        mixed = with_residual(pattern)
        graph.add_edges_from(((layer, j), (layer + 1, i), {"capacity": mixed[i, j]})
                             for i, j in zip(*np.nonzero(mixed)))
    graph.add_edges_from(((top, j), "out", {"capacity": float(w)}) for j, w in enumerate(sink) if w > 0)
    return np.array([nx.maximum_flow_value(graph, (0, i), "out") for i in range(n)])


@dataclass(frozen=True)
class Attribution:
    """One output's four attributions over the n input tokens it can depend on."""
    methods: dict  # "rollout", "flow" (only up to `flow_tokens` inputs), "times_input", "integrated" → [n]
    token: int  # the token explained (0 for an encoder's [CLS])
    gradients: Gradients


def explained_token(trace, tgt_ids, position: int) -> int:
    """What output `position` is explained for: the next input token, or after the last one, the model's pick."""
    return tgt_ids[position + 1] if position + 1 < len(tgt_ids) else int(np.argmax(trace["logits"][0, position]))


def attribute(model, trace, src_ids, tgt_ids, position: int = 0, flow_tokens: int = 48) -> Attribution:
    """The four attributions of output `position` (a model with a decoder) or of the final [CLS] vector (an encoder),
    from `trace` (the model's traced run on src_ids, tgt_ids) and the model's gradients.

    A decoder-only model's output reads the tokens up to `position`; a translator's, the source, where rollout and
    flow start from the decoder's cross-attention row at `position` (averaged over its layers and heads) and go down
    the encoder, leaving out what reaches the output through earlier target tokens; an encoder's [CLS] reads all.
    """
    token = explained_token(trace, tgt_ids, position) if model.cfg.has_decoder else 0  # before tgt_ids is cut
    if model.cfg.architecture == "decoder":
        n, stack, start = position + 1, "decoder", np.eye(position + 1)[position]
        src_ids, tgt_ids = (), tuple(tgt_ids)[:n]  # what output `position` reads
    else:
        n, stack, start = len(src_ids), "encoder", np.eye(len(src_ids))[0]
        if model.cfg.has_decoder:
            start = np.mean([trace.attn("decoder", layer, "cross_attn").pattern[0, :, position]
                             for layer in range(trace.n_layers("decoder"))], axis=(0, 1))
    patterns = [trace.attn(stack, layer, "self_attn").pattern[0][:, :n, :n] for layer in range(trace.n_layers(stack))]
    found = gradients(model, src_ids, tgt_ids, position, token)
    methods = {"rollout": rollout(patterns, start)[0]}
    if n <= flow_tokens:
        methods["flow"] = flow(patterns, start)
    methods.update(times_input=found.times_input, integrated=found.integrated)
    return Attribution(methods, token, found)
