"""What a traced run of a text will hold, known before it starts, and how much text a visitor's own model reads.

A visitor's upload can pass every limit of the loader (96 layers, 8,192 positions, 512 MB of weights) and still ask
more of a run than one visitor should get on a shared server: 96 layers × 8 heads at 1,023 tokens took 7.2 GB and
36 s, and, over the runs' cache bound, was computed again on every rerun. What a run holds grows with layers × heads ×
length² (the attention weights) and with length × vocabulary (the logits), both known from the config. So a visitor's
own model reads at most as many tokens as keep that projection within VISITOR_RUN_BYTES, and the page says so, with
the figures. The bound is on a full trace's bytes, a measure of the run's time as well; past ON_DEMAND_BYTES of
weights a run keeps much less (core_model/trace/on_demand.py), and the text is cut further if even that would not
fit the runs' cache (RUN_BYTES): a visitor's run is computed once and kept. GPT-2 small brought by a visitor reads
all its 1,003 tokens (1.3 GB projected); the 96-layer model above reads 662. The shipped models and the operator's
own (`attention-viz --model`) read all their positions: trust follows the route.
"""
from __future__ import annotations

from core_model.trace.on_demand import pool_block

from .. import own_model
from ..figures.attention import GRID_SIDE
from . import models

MiB = 2**20
# Shared as it is, never pickled (shared_cache.py): a short sentence's run holds ~1 MB, a 2,048-token
# lm-en one a few hundred. The bytes bound holds: the oldest runs go first, and a run alone over it is
# drawn but not kept. A miss costs one traced forward pass (the greedy output it reads is in `decode`'s
# own cache). See RELIABILITY.md, "Bounded memory".
RUN_BYTES = 512 * MiB
# Past this many bytes of attention weights a run is traced on demand (core_model/trace/on_demand.py): the pages
# draw the pooled weights of every layer and compute a layer in full when it is opened (GPT-2 small at 512 tokens:
# 144 MiB of weights; SmolLM2-135M at 2,048: 4.2 GiB, of which the run keeps 70 MiB pooled).
ON_DEMAND_BYTES = RUN_BYTES // 8
VISITOR_RUN_BYTES = 2048 * MiB  # a full trace of GPT-2 small at 1,024 tokens: 1.3 GB
VECTORS = 12  # d_model-wide vectors a traced layer keeps per position, about (q, k, v, z, norms, residuals, outputs)


def weight_bytes(cfg, n_src: int, n_tgt: int) -> int:
    """Bytes of every attention block's float32 weights [h, q, k] over n_src source and n_tgt target tokens."""
    cells = cfg.n_encoder_layers * n_src ** 2 if cfg.has_encoder else 0
    if cfg.has_decoder:
        cells += cfg.n_decoder_layers * (n_tgt ** 2 + (n_tgt * n_src if cfg.has_encoder else 0))
    return 4 * cfg.n_heads * cells


def lengths(cfg, n: int, decoded: int) -> tuple[int, int]:
    """(source, target) tokens of a run on a text of n tokens: a decoder-only model reads <s> and the text, an
    encoder-decoder's decoder its start and what it generates (at most `decoded` tokens)."""
    if cfg.architecture == "decoder":
        return 0, n + 1
    if cfg.architecture == "encoder-decoder":
        return n, len(cfg.decoder_start) + min(n, decoded)
    return n, 0


def projected_bytes(cfg, n: int, decoded: int) -> int:
    """About what a run on n tokens holds, in bytes: its attention weights, its logits over the vocabulary (a masked
    LM's too) and each layer's vectors and feed-forward hidden values."""
    n_src, n_tgt = lengths(cfg, n, decoded)
    vectors = cfg.n_encoder_layers * n_src * (VECTORS * cfg.d_model + cfg.d_ff) if cfg.has_encoder else 0
    vectors += cfg.n_decoder_layers * n_tgt * (VECTORS * cfg.d_model + cfg.d_ff) if cfg.has_decoder else 0
    logits = n_tgt * cfg.tgt_vocab_size if cfg.has_decoder else (n_src * cfg.src_vocab_size if cfg.mlm_head else 0)
    return weight_bytes(cfg, n_src, n_tgt) + 4 * (vectors + logits)


def kept_bytes(cfg, n: int, decoded: int) -> int:
    """About what the run keeps once traced: all of it (projected_bytes) within ON_DEMAND_BYTES of weights, else each
    head's weights pooled into at most GRID_SIDE × GRID_SIDE cells and each layer's input (on_demand.py)."""
    n_src, n_tgt = lengths(cfg, n, decoded)
    if weight_bytes(cfg, n_src, n_tgt) <= ON_DEMAND_BYTES:
        return projected_bytes(cfg, n, decoded)

    def pooled(q: int, k: int) -> int:
        block = pool_block(q, k, GRID_SIDE)
        return -(-q // block) * -(-k // block)

    cells = cfg.n_encoder_layers * pooled(n_src, n_src) if cfg.has_encoder else 0
    if cfg.has_decoder:
        cells += cfg.n_decoder_layers * (pooled(n_tgt, n_tgt) + (pooled(n_tgt, n_src) if cfg.has_encoder else 0))
    inputs = cfg.n_encoder_layers * n_src * cfg.d_model + cfg.n_decoder_layers * n_tgt * cfg.d_model
    return 4 * (cfg.n_heads * cells + inputs)


def visitor_tokens(name: str, cfg, decoded: int) -> int | None:
    """The most tokens of text the visitor's own model `name` reads (at least 1, at most models.readable): the largest
    n whose projected_bytes stay within VISITOR_RUN_BYTES and whose kept_bytes within RUN_BYTES, so that its run is
    kept by the runs' cache; None for any other model (no such bound)."""
    if not own_model.is_own(name):
        return None
    low, high = 1, models.readable(cfg)
    while low < high:  # the projection grows with n
        mid = (low + high + 1) // 2
        low, high = (mid, high) if projected_bytes(cfg, mid, decoded) <= VISITOR_RUN_BYTES else (low, mid - 1)
    while low > 1 and kept_bytes(cfg, low, decoded) > RUN_BYTES:  # pooling makes it jump: from the top down
        low -= 1
    return low


def cost_notice(cfg, n: int, keep: int, decoded: int) -> tuple[str, dict]:
    """The notice of a visitor's text cut from n to `keep` tokens by its cost: what n tokens would have held."""
    n_src, n_tgt = lengths(cfg, n, decoded)
    return "input.cost_cut", {"n": n, "keep": keep, "need": round(projected_bytes(cfg, n, decoded) / MiB),
                              "bound": VISITOR_RUN_BYTES // MiB, "layers": cfg.n_encoder_layers * bool(n_src)
                              + cfg.n_decoder_layers * bool(n_tgt), "heads": cfg.n_heads}
