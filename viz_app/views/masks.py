"""The Masks page's views: a batch typed one sentence a line, its padded ids, and for one sentence its
masks, its scores before and after masking, and the attention weight that lands on <pad>.

Plain numpy. A batch (loaders.padded_batch) is read duck-typed: src_ids / tgt_ids [b, n] (n = 0 for a
side the model lacks), lengths {"src": [b], "tgt": [b]} (each sentence's own tokens: what lies past them is
padding, whatever its id), src_labels / tgt_labels (per sentence), trace ([b, …] arrays), masks
{block: {kind: [b, q, k] bool}}, window and window_layers (the decoder's local layers and their window).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import blocks

BATCH_SIZES = (2, 4)  # fewest and most sentences in a batch
EXTRA = {  # two more sentences each shipped model knows, of other lengths than its sidebar example
    "translate-en-fr": ("i see him", "the dog sees you all"),
    "lm-en": ("i see him", "the dog sees you all"),
    "lm-en-rope": ("i see him", "the dog sees you all"),
    "reverse": ("cat dog sun", "a b c d e f g h"),
}
MASK_KINDS = ("padding", "causal", "combined")  # in the order the page draws them
LOCAL_KINDS = ("padding", "window", "combined_window")  # the same in a local layer: its causal mask has a window


def default_batch(model: str, sentence: str) -> str:
    """The batch offered at first: the sidebar's sentence, then two of other lengths (shorter pieces of it for
    a model without known sentences)."""
    words = sentence.split() or ["a"]
    return "\n".join([" ".join(words), *EXTRA.get(model, (" ".join(words[:len(words) // 2 + 1]), words[0]))])


def batch_lines(text: str) -> tuple[tuple[str, ...], tuple[str, dict] | None]:
    """The sentences of a batch, one per line, and what is wrong with them: None, or (i18n key, fields)."""
    # Only a newline ends a line: splitlines() would also break at control characters (\x0b, \x1c…), which
    # are removed from each sentence instead, with a notice.
    lines = tuple(line.strip() for line in text.strip().split("\n")) if text.strip() else ()
    if "" in lines:
        return lines, ("masks.bad.empty_line", {"line": lines.index("") + 1})
    if not BATCH_SIZES[0] <= len(lines) <= BATCH_SIZES[1]:
        return lines, ("masks.bad.count", {"n": len(lines)})
    return lines, None


def padding(ids, lengths) -> np.ndarray:
    """[b, n] True where a position lies past its sentence's own `lengths` [b] tokens."""
    return np.arange(np.shape(ids)[1])[None, :] >= np.asarray(lengths)[:, None]


def pad_weight(pattern, key_is_pad) -> np.ndarray:
    """Per query row, the attention weight that lands on padding keys: pattern [q, k] → [q]."""
    return np.asarray(pattern, dtype=np.float32)[:, np.asarray(key_is_pad, dtype=bool)].sum(-1)


@dataclass(frozen=True)
class Padded:
    """The batch's ids as the model read them, one table per input side."""
    sides: tuple[str, ...]  # "src", "tgt": the sides the model has
    ids: tuple[np.ndarray, ...]  # [b, n] per side, pad_id on the right
    pads: tuple[np.ndarray, ...]  # [b, n] per side: True at padding
    caption_keys: tuple[str, ...]  # the i18n key naming each table
    any_pad: bool  # some sentence is shorter than another
    first_row: int  # the sentence with the most padding, shown first


def padded(batch) -> Padded:
    """The padded ids of each side, and which sentence has the most padding."""
    sides = tuple(side for side in ("src", "tgt") if blocks.ids(batch, side).shape[1])
    ids = tuple(blocks.ids(batch, side) for side in sides)
    pads = tuple(padding(i, batch.lengths[side]) for i, side in zip(ids, sides))
    encoder = "src" in sides
    keys = tuple("masks.table.src" if s == "src" else "masks.table.tgt" if encoder else "masks.table.tgt_lm"
                 for s in sides)
    first = np.asarray(batch.lengths[sides[0]])  # [b] own tokens of the side the model reads first
    return Padded(sides, ids, pads, keys, any(p.any() for p in pads), int(first.argmin()))


@dataclass(frozen=True)
class Sentence:
    """One sentence of the batch in one attention block: its masks, one head's scores and weights."""
    layer: int  # within the block's stack
    n_layers: int
    head: int
    q_labels: tuple[str, ...]
    k_labels: tuple[str, ...]
    masks: tuple[tuple[str, np.ndarray], ...]  # (kind, [q, k] bool, True = may attend), MASK_KINDS order
    before: np.ndarray  # [q, k] scaled scores
    after: np.ndarray  # [q, k] masked scores, -inf where blocked
    score_range: tuple[float, float]  # one symmetric colour scale for both
    pattern: np.ndarray  # [q, k] weights after softmax
    query_pad: np.ndarray  # bool [q]: query rows that are padding themselves
    leak: np.ndarray | None  # [q] weight on <pad> keys; None when the sentence has no <pad> keys
    leak_real: float  # the largest of `leak` over real (not <pad>) queries
    leak_all: float  # the same over every layer and head of the block
    causal: bool  # decoder self-attention: the causal mask applies too
    window: int = 0  # decoder self-attention: the local layers' window (their causal mask keeps the last `window` keys)
    window_layers: tuple[int, ...] = ()  # the model's local decoder layers (none: no window anywhere, or another block)

    @property
    def local(self) -> bool:
        """Whether this layer's self-attention is local: its causal mask has the window."""
        return self.layer in self.window_layers

    @property
    def leak_column(self) -> np.ndarray:
        return self.leak[:, None]  # [q, 1], as a one-column table


def _leak(trace, stack: str, kind: str, row: int, pattern, key_pad, query_pad) -> tuple:
    """(leak [q], its max over real queries, the max over every layer and head), or (None, 0, 0) without <pad>."""
    if not key_pad.any():
        return None, 0.0, 0.0
    leak = pad_weight(pattern, key_pad)  # [q]
    every = np.stack([trace.attn(stack, i, kind).pattern[row] for i in range(trace.n_layers(stack))])
    on_pad = every[..., key_pad].sum(-1)[..., ~query_pad]  # [layers, heads, real queries]
    return leak, float(leak[~query_pad].max()), float(on_pad.max())


def sentence(batch, block: str, row: int, layer: int, head: int) -> Sentence:
    """Sentence `row` in `block`, at `layer` (the stack's last if it has fewer) and `head`."""
    stack, kind = blocks.split(block)
    q_side, k_side = blocks.SIDES[block]
    n_layers = batch.trace.n_layers(stack)
    layer = min(layer, n_layers - 1)
    view = batch.trace.attn(stack, layer, kind)
    before, after, pattern = view.scores_scaled[row, head], view.scores_masked[row, head], view.pattern[row, head]
    bound = float(np.abs(before).max()) or 1.0
    key_pad, query_pad = (padding(blocks.ids(batch, side)[row:row + 1], batch.lengths[side][row:row + 1])[0]
                          for side in (k_side, q_side))
    decoder = block == "decoder.self_attn"
    local = decoder and layer in batch.window_layers
    masks = tuple((name, batch.masks[block][name][row]) for name in (LOCAL_KINDS if local else MASK_KINDS)
                  if name in batch.masks[block])
    return Sentence(layer, n_layers, head, blocks.labels(batch, q_side)[row], blocks.labels(batch, k_side)[row],
                    masks, before, after, (-bound, bound), pattern, query_pad,
                    *_leak(batch.trace, stack, kind, row, pattern, key_pad, query_pad), decoder,
                    *((batch.window, batch.window_layers) if decoder else (0, ())))


def padding_note(block: str) -> str | None:
    """The i18n key of why only the padding mask applies in `block` (None where the causal mask does too)."""
    return {"encoder.self_attn": "masks.encoder_only_padding", "decoder.cross_attn": "masks.cross_padding"}.get(block)


def window_note(one: Sentence) -> tuple[str, dict] | None:
    """(i18n key, fields) saying whether this layer's self-attention is local, and which layers are; None for a model
    without local layers, or a block other than the decoder's self-attention."""
    if not one.window_layers:
        return None
    layers = ", ".join(map(str, one.window_layers))
    fields = {"layer": one.layer, "w": one.window, "before": one.window - 1, "layers": layers}
    return ("masks.window.local" if one.local else "masks.window.global"), fields
