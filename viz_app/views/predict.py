"""Predict, then reveal: each question a student answers before a page shows the chart that settles it.

A question holds its options and which of them the model's own numbers make right, with that number: the
page asks it before drawing anything that gives it away, then checks the guess against it (place/predict.py).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Question:
    page: str  # the page asking; with `context`, what makes a question new (another query, step, layer, text)
    context: str
    prompt: tuple[str, dict]  # i18n key and its fields
    options: tuple[str, ...]  # what the student picks from, as shown
    answer: frozenset[int]  # indices of the options that are right: all of them must be picked, nothing else
    value: str  # the model's number behind the answer, as the verdict says it

    @property
    def many(self) -> bool:
        """True when the answer is a set of options (pick all that apply)."""
        return self.prompt[0].endswith(".many")

    @property
    def id(self) -> str:
        text = "\x1f".join((self.page, self.context, *self.options))
        return hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()[:16]

    def right(self, picked) -> bool:
        """All the right options and nothing else (pick all that apply); else one of the right ones (a tie)."""
        picked = frozenset(int(i) for i in picked)
        return picked == self.answer if self.many else len(picked) == 1 and picked <= self.answer


def strongest_key(weights, query_label: str, k_labels, context: str) -> Question:
    """Self-attention: which key does this query weigh most? `weights`: the query's softmax row [k]."""
    row = np.asarray(weights, dtype=np.float64)
    best = int(np.argmax(row))
    return Question("self_attention", context, ("predict.q.strongest_key", {"token": query_label}),
                    tuple(k_labels), frozenset({best}), f"{row[best]:.3f}")


def previous_token_head(previous, context: str) -> Question:
    """Explorer: which head reads the previous token? `previous`: [layers, heads], each head's mean weight
    on the token just before the query (head_stats.previous_token)."""
    values = np.nan_to_num(np.asarray(previous, dtype=np.float64), nan=-np.inf)
    n_layers, n_heads = values.shape
    best = int(np.argmax(values))
    options = tuple(f"L{layer}·H{head}" for layer in range(n_layers) for head in range(n_heads))
    return Question("explorer", context, ("predict.q.previous_head", {}), options, frozenset({best}),
                    f"{values.flat[best]:.3f}")


def next_token(top_ids, chosen: int, p: float, label, context: str, n: int = 5) -> Question:
    """Decoding: which token comes next? The options are the step's `n` most likely tokens (`top_ids`, most
    likely first) with the `chosen` one among them, labelled by label(id), in alphabetical order so that their
    order tells nothing; `p`: the model's probability of the chosen token."""
    ids = list(dict.fromkeys([*top_ids[:n], chosen]))
    order = sorted(ids, key=lambda i: (label(i).casefold(), i))
    return Question("decoding", context, ("predict.q.next_token", {}), tuple(label(i) for i in order),
                    frozenset({order.index(chosen)}), f"p = {p:.3f}")


def blocked_keys(masks, query: int, q_label: str, k_labels, context: str) -> Question:
    """Masks: which keys does the mask block for this query? `masks`: (kind, [q, k] bool, True = may attend), as
    views.masks.Sentence holds them; the question is about the causal mask where there is one (a local layer's:
    its window), else the last."""
    kind, mask = next((m for m in masks if m[0] in ("causal", "window")), masks[-1])
    blocked = frozenset(int(j) for j in np.flatnonzero(~np.asarray(mask, dtype=bool)[query]))
    return Question("masks", context, (f"predict.q.blocked.{kind}.many", {"token": q_label}), tuple(k_labels),
                    blocked, str(len(blocked)))


def most_similar_position(similarity, position: int, context: str, limit: int = 12) -> Question:
    """Positional lab: which other position's encoding is most like this one's? `similarity`: [pos, pos] dot
    products. The options are the first `limit` positions but `position` itself; every option within 10⁻⁴ of the
    largest dot product (relative: float32 sums) is right, as a sinusoid's neighbours on both sides tie."""
    sim = np.asarray(similarity, dtype=np.float64)
    others = [p for p in range(min(limit, len(sim))) if p != position]
    row = sim[position, others]
    best = frozenset(int(i) for i in np.flatnonzero(row >= row.max() - 1e-4 * abs(row.max())))
    return Question("positional", context, ("predict.q.similar_position", {"position": position}),
                    tuple(str(p) for p in others), best, f"{row.max():.3f}")


def most_credited(integrated, labels, token: str, context: str) -> Question:
    """Attribution: which input token do integrated gradients credit most for the output (`token`, or "" for an
    encoder's [CLS] vector)? `integrated`: [n] per input token, signed; the largest value is the answer."""
    row = np.asarray(integrated, dtype=np.float64)
    best = int(np.argmax(row))
    prompt = ("predict.q.credited", {"token": token}) if token else ("predict.q.credited_cls", {})
    return Question("attribution", context, prompt, tuple(labels), frozenset({best}), f"{row[best]:.3f}")


def head_that_matters(drops: dict, block_names: dict, context: str) -> Question:
    """Decoding's knock-out sweep: which head, removed alone, makes the model's output least likely? `drops`
    {block: [layers, heads]} the fall in log P(output) without each head (NaN: not tried); `block_names` {block: its
    short name}. Every head tried is an option, "<block> L<layer>·H<head>"."""
    options, values = [], []
    for block, grid in drops.items():
        for layer, head in np.ndindex(grid.shape):
            if np.isfinite(grid[layer, head]):
                options.append(f"{block_names[block]} L{layer}·H{head}")
                values.append(float(grid[layer, head]))
    best = int(np.argmax(values))
    return Question("decoding.knockout", context, ("predict.q.head_matters", {}), tuple(options), frozenset({best}),
                    f"Δ log P = {values[best]:.3f}")
