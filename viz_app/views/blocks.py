"""The one block table: which attention blocks a model has, and which side feeds their queries and keys."""
from __future__ import annotations

SIDES = {  # block "stack.kind" → (query side, key side); "src" feeds the encoder, "tgt" the decoder
    "encoder.self_attn": ("src", "src"),
    "decoder.self_attn": ("tgt", "tgt"),
    "decoder.cross_attn": ("tgt", "src"),
}


def blocks(cfg) -> tuple[str, ...]:
    """The attention blocks a model has, in the order pages offer them."""
    has = {"src": cfg.has_encoder, "tgt": cfg.has_decoder}
    return tuple(b for b, (q, k) in SIDES.items() if has[q] and has[k])


def stacks(cfg) -> tuple[str, ...]:
    """The model's stacks, the encoder first."""
    return tuple(s for s, has in (("encoder", cfg.has_encoder), ("decoder", cfg.has_decoder)) if has)


def split(block: str) -> tuple[str, str]:
    """'decoder.cross_attn' → ('decoder', 'cross_attn')."""
    stack, kind = block.split(".")
    return stack, kind


def side_of(stack: str) -> str:
    """The input side a stack reads: the encoder the source, the decoder the target."""
    return "src" if stack == "encoder" else "tgt"


def labels(run, side: str) -> tuple[str, ...]:
    return run.src_labels if side == "src" else run.tgt_labels


def ids(run, side: str) -> tuple[int, ...]:
    return run.src_ids if side == "src" else run.tgt_ids
