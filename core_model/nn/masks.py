"""Attention masks. One convention everywhere: True = this query may attend to this key.

Masks broadcast against attention scores of shape [batch, head, query, key].
"""
from __future__ import annotations

import torch


def padding_mask(ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """Keys that are real tokens, not padding: [b, k] ids → [b, 1, 1, k]."""
    return (ids != pad_id)[:, None, None, :]


def causal_mask(q_len: int, k_len: int | None = None, offset: int = 0,
                device: torch.device | None = None, window: int = 0) -> torch.Tensor:
    """Query i (at absolute position offset + i) may see keys 0..offset + i: [1, 1, q, k].

    With a window w > 0 (local, sliding-window attention) only the last w of them: keys offset + i - w + 1..offset + i.
    """
    k_len = q_len + offset if k_len is None else k_len
    q_pos = torch.arange(q_len, device=device)[:, None] + offset  # [q, 1]
    k_pos = torch.arange(k_len, device=device)[None, :]  # [1, k]
    allowed = k_pos <= q_pos
    if window:
        allowed = allowed & (k_pos > q_pos - window)
    return allowed[None, None]


def combine(*masks: torch.Tensor | None) -> torch.Tensor | None:
    """A key is allowed only if every given mask allows it; None masks are skipped."""
    present = [m for m in masks if m is not None]
    if not present:
        return None
    out = present[0]
    for m in present[1:]:
        out = out & m
    return out


def blocked(mask: torch.Tensor) -> tuple[bool, torch.Tensor | None]:
    """(whether the mask blocks any key; the query rows it blocks whole [.., q, 1], or None if there are none). Worked
    out once a mask and kept on it (two small values): every layer of a forward pass reads the same mask."""
    facts = getattr(mask, "_blocked", None)
    if facts is None:
        rows = ~mask.any(dim=-1, keepdim=True)  # [b or 1, 1, q or 1, 1]
        facts = (not bool(mask.all()), rows if bool(rows.any()) else None)
        mask._blocked = facts  # the mask is never changed in place (combine makes a new one)
    return facts


BLOCKS_FROM, QUERY_BLOCKS = 1024, 8  # attention by blocks of queries from this many on (nn/attention.py), in so many


def query_blocks(mask: torch.Tensor | None) -> list[tuple[int, int, int]] | None:
    """The blocks of query rows (first, end, keys seen) under a mask that lets no row of a block see a key past
    `keys seen` (a causal mask's, a sliding window's: row i sees keys ..i), QUERY_BLOCKS of them; None for any other
    mask, or under BLOCKS_FROM queries. SmolLM2-135M's forward for a page (bench/real_size.py) took 1.40 s by blocks,
    1.54 s whole at 1,024 tokens, but 0.65 s and 0.61 s at 512: the blocks' own copies cost more than they save on a
    short text. Kept on the mask."""
    if mask is None or mask.dim() != 4 or mask.shape[-2] < BLOCKS_FROM:
        return None
    blocks = getattr(mask, "_query_blocks", False)
    if blocks is False:
        n_q, n_k = mask.shape[-2:]
        size = -(-n_q // QUERY_BLOCKS)
        ends = [(s, min(s + size, n_q)) for s in range(0, n_q, size)]
        blocks = [(s, e, e + n_k - n_q) for s, e in ends]  # keys before the first query's own: a cache's
        blocks = None if any(bool(mask[..., s:e, seen:].any()) for s, e, seen in blocks) else blocks
        mask._query_blocks = blocks
    return blocks


def apply_mask(scores: torch.Tensor, mask: torch.Tensor | None, in_place: bool = False) -> torch.Tensor:
    """Blocked scores become -inf, so softmax gives them exactly zero weight (in_place: written over `scores`)."""
    if mask is None or not blocked(mask)[0]:  # nothing blocked: spare a copy of the scores
        return scores
    return scores.masked_fill_(~mask, float("-inf")) if in_place else scores.masked_fill(~mask, float("-inf"))


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None, in_place: bool = False) -> torch.Tensor:
    """Softmax over keys; a row with every key blocked gets zero weights instead of NaN.

    Given the mask that blocked them, the rows are found from it, a far smaller tensor than the scores.
    in_place=True writes the weights over `scores` (for a caller that owns them and takes no
    gradient): torch's softmax reads each row before writing it, so the weights are the same bits
    and a [b, h, q, k] allocation is spared.
    """
    if mask is not None:
        rows = blocked(mask)[1]
    else:
        rows = torch.isneginf(scores).all(dim=-1, keepdim=True)  # [b, h, q, 1]
        rows = rows if bool(rows.any()) else None
    if rows is None:
        return torch.softmax(scores, dim=-1, out=scores) if in_place else torch.softmax(scores, dim=-1)
    weights = torch.softmax(scores.masked_fill(rows, 0.0), dim=-1)
    return weights.masked_fill(rows, 0.0)
