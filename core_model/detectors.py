"""Head detectors, as TransformerLens's detect_head: how much of each head's attention lands where a known kind of
head would put it, on a sequence of random tokens repeated once.

On [<s>, r_1 … r_n, r_1 … r_n] the target of each kind is one key per query:
- previous-token: the token just before (query i reads i − 1);
- duplicate-token: the same token's earlier occurrence (a second-half query i reads i − n);
- induction: the token that followed that earlier occurrence (i reads i − n + 1), what lets a model copy a
  sequence it has seen once: a previous-token head in an earlier layer tells this head where to look.
A head's score is its mean weight on the targets, over the queries that have one (1: it does nothing else). Random
tokens leave no meaning to follow: only the position and the repetition can guide a head, so the scores say what
the head does by its mechanism, not by this text.
"""
from __future__ import annotations

import numpy as np
import torch

from .trace import run_with_trace

KINDS = ("previous", "duplicate", "induction")


def repeated_tokens(model, n: int = 20, batch: int = 4, seed: int = 0) -> torch.Tensor:
    """[batch, 2n + 1]: <s>, then n tokens drawn from the model's vocabulary but its special ids, repeated once."""
    cfg = model.cfg
    special = {cfg.pad_id, cfg.unk_id, cfg.bos_id, cfg.eos_id}
    pool = torch.tensor([i for i in range(cfg.tgt_vocab_size) if i not in special])
    generator = torch.Generator().manual_seed(seed)
    rows = []
    for _ in range(batch):  # n distinct tokens per row, so each has one earlier occurrence in the second half
        half = pool[torch.randperm(len(pool), generator=generator)[:n]]
        rows.append(torch.cat([torch.tensor([cfg.bos_id]), half, half]))
    return torch.stack(rows)


def targets(n: int) -> dict[str, np.ndarray]:
    """Each kind's target key for each query of [<s>, r_1 … r_n, r_1 … r_n] ([2n + 1]; -1: no target)."""
    length, query = 2 * n + 1, np.arange(2 * n + 1)
    second = query > n  # the repeat
    return {"previous": np.where(query >= 2, query - 1, -1),  # from r_2 on: r_1 follows <s>, which is no token
            "duplicate": np.where(second, query - n, -1),
            "induction": np.where(second & (query - n + 1 < length), query - n + 1, -1)}


def scores(model, n: int = 20, batch: int = 4, seed: int = 0) -> dict[str, np.ndarray]:
    """Every decoder head's score for each kind: {kind: [layers, heads]}, the mean weight on the targets."""
    if not model.cfg.has_decoder or model.cfg.has_encoder:
        raise ValueError("the head detectors read a decoder-only model's self-attention on a repeated sequence.")
    n = min(n, (model.cfg.positions - 1) // 2, model.cfg.tgt_vocab_size - 4)
    ids = repeated_tokens(model, n, batch, seed)
    _, trace = run_with_trace(model, None, ids, names="*.self_attn.pattern")
    patterns = np.stack([trace.attn("decoder", i).pattern for i in range(model.cfg.n_decoder_layers)])  # [L, b, h, q, k]
    out = {}
    for kind, target in targets(n).items():
        rows = np.flatnonzero(target >= 0)
        picked = patterns[..., rows, target[rows]]  # [L, b, h, rows]: each query's weight on its target
        out[kind] = picked.mean(axis=(1, 3), dtype=np.float64)  # [L, h]
    return out
