"""Decoding, one step at a time: the chosen token and its probability, the top candidates, the step's
attention rows, every step stacked, and the beam tree. Each takes a decoding record (core_model.decoding)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..text import token_labels


def softmax(logits) -> np.ndarray:
    """softmax of a 1-D array of logits, in float64 so small probabilities keep their digits."""
    z = np.asarray(logits, dtype=np.float64)
    e = np.exp(z - z.max())
    return e / e.sum()


def stack_rows(rows) -> np.ndarray:
    """Rows of growing length → [steps, longest] float32, the missing (future) keys as -inf."""
    width = max(len(r) for r in rows)
    out = np.full((len(rows), width), -np.inf, dtype=np.float32)
    for i, row in enumerate(rows):
        out[i, :len(row)] = row
    return out


def best_path(parents, end: tuple[int, int]) -> list[int]:
    """The rank at each step of the nodes leading to `end` = (step, rank), following `parents` back."""
    step, rank = end
    path = [rank]
    while step > 0:
        rank = parents[step][rank]
        step -= 1
        path.append(rank)
    return path[::-1]


def chosen_p(step) -> float:
    """The model's probability of the token the step chose (before any temperature or filter)."""
    return float(softmax(step.logits)[step.chosen])


@dataclass(frozen=True)
class Rare:
    """The step's tokens the model gives less than some probability, together."""
    count: int
    mass: float  # their summed probability under the model's softmax (T = 1, no filter)


RARE = 1e-3  # a token the model gives less than this is "rare": what plain sampling should not pick


def rare_in(p, below: float = RARE) -> Rare:
    """Label smoothing leaves ≈ ε of the probability spread over the vocabulary: how much of `p` sits on the tokens
    below `below`, and on how many."""
    p = np.asarray(p)
    low = p < below
    return Rare(int(low.sum()), float(p[low].sum()))


def rare(step, below: float = RARE) -> Rare:
    """rare_in for a decoding step's distribution (T = 1, no filter)."""
    return rare_in(softmax(step.logits), below)


@dataclass(frozen=True)
class Top:
    """A step's most likely next tokens, as the decoding method saw them."""
    ids: tuple[int, ...]
    probs: np.ndarray  # [n] the method's probabilities (filtered and re-normalized when sampling)
    chosen: int  # index of the chosen token in ids, -1 if it is not among them
    reference: np.ndarray | None  # [n] the model's own softmax of the same tokens, when sampling


def top(step, method: str) -> Top:
    """The step's most likely tokens. When sampling, only those the filtered distribution can draw: top-k and
    top-p leave the rest at probability 0, and listing them would fill the chart with empty bars of whatever
    tokens torch.topk takes among the zeros (<pad>, <s>, byte pieces)."""
    pairs = [(i, p) for i, p in step.top if p > 0 or method != "sample"]
    ids, probs = zip(*pairs)
    reference = softmax(step.logits)[list(ids)] if method == "sample" else None
    return Top(ids, np.asarray(probs), ids.index(step.chosen) if step.chosen in ids else -1, reference)


def drawable_top(step, probs, n: int) -> Top:
    """The n most likely tokens of `probs`, a step's distribution under some sampling settings ([vocab], from
    its logits), without those it gives 0 (as `top`); `reference` is the model's own softmax of the same tokens."""
    probs = np.asarray(probs)
    order = [int(i) for i in np.argsort(-probs, kind="stable")[:n] if probs[i] > 0]
    chosen = order.index(step.chosen) if step.chosen in order else -1
    return Top(tuple(order), probs[order], chosen, softmax(step.logits)[order])


def one_choice(distributions) -> bool:
    """Whether each step's sampling distribution (along the decoded path) leaves a single token: then every seed
    draws this very output, as greedy decoding does."""
    return all(np.count_nonzero(p) == 1 for p in distributions)


def cross_mean(step, layer: int) -> np.ndarray:
    """The step's cross-attention over the source at `layer`, averaged over heads: [src]."""
    return step.cross_attn[layer].mean(0)


@dataclass(frozen=True)
class Alignment:
    """Every step's attention at one layer, heads averaged: cross-attention if there is an encoder, else self."""
    values: np.ndarray  # [steps, keys], -inf for keys a step could not see yet
    keys: tuple[str, ...]
    generated: tuple[str, ...]  # the token each step chose
    cross: bool


def alignment(decoded, labels, src_labels, layer: int) -> Alignment:
    steps = decoded.steps
    cross = steps[0].cross_attn is not None
    values = stack_rows([(s.cross_attn if cross else s.self_attn)[layer].mean(0) for s in steps])
    keys = tuple(src_labels) if cross else tuple(labels[:values.shape[1]])
    return Alignment(values, keys, tuple(labels[len(s.prefix)] for s in steps), cross)


@dataclass(frozen=True)
class StepsTable:
    tokens: tuple[str, ...]  # the label of each step's chosen token
    probs: tuple[float, ...]  # the model's probability of it


def steps_table(decoded, labels) -> StepsTable:
    return StepsTable(tuple(labels[len(s.prefix)] for s in decoded.steps), tuple(chosen_p(s) for s in decoded.steps))


@dataclass(frozen=True)
class Tree:
    """The beam tree, nested per step then per beam: x = step, y = the beam's rank at that step."""
    last_ids: list  # [step][rank] the token each beam added
    scores: list
    normalized: list
    parents: list  # index of the parent beam in the previous step (-1: the root)
    finished: list
    best: list[int]  # the rank of the best hypothesis's node at each step


def tree(decoded) -> Tree:
    steps, best = decoded.beams, decoded.hypotheses[0]
    end = next((s.index, r) for s in steps for r, b in enumerate(s.beams) if b.tokens == best.tokens)

    def field(name):
        return [[getattr(b, name) for b in s.beams] for s in steps]

    parents = field("parent")
    return Tree([[b.tokens[-1] for b in s.beams] for s in steps], field("score"), field("normalized"), parents,
                field("finished"), best_path(parents, end))


def positions(decoded, tokenizer) -> tuple[str, ...]:
    """A label for every position the decoding wrote, '3·chat': the last step's input and its choice."""
    final = decoded.steps[-1]
    return token_labels(tokenizer, final.prefix + (final.chosen,))


@dataclass(frozen=True)
class Rows:
    """One step's attention rows at one layer: every head's weights over the keys it could see."""
    values: np.ndarray  # [heads, keys]
    keys: tuple[str, ...]


def self_rows(step, layer: int, labels) -> Rows:
    return Rows(step.self_attn[layer], tuple(labels[:len(step.prefix)]))


def cross_rows(step, layer: int, src_labels) -> Rows:
    return Rows(step.cross_attn[layer], tuple(src_labels))
