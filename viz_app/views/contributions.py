"""The contribution graph's view (plain numpy): from the shares of every layer (core_model.contributions), the paths
that carry most of one token's last state, as LLM Transparency Tool draws them.

Levels: 0 is the embedding, 2l + 1 a token's state after layer l's attention, 2l + 2 after its FFN. An edge carries
a share of the state it ends in: attention from an earlier token through one head, the residual from the same token,
the FFN's output (drawn from the state it read). From the chosen token's last state, every edge with at least
`threshold` of its end is followed back, and the states it reaches are followed in turn.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Edge:
    start: tuple[int, int]  # (level, token)
    end: tuple[int, int]
    share: float
    kind: str  # "attention", "residual" or "ffn"
    layer: int
    head: int = -1  # the head of an attention edge


def edges_into(layers, level: int, token: int) -> list[Edge]:
    """Every edge that ends in state (level, token), with its share."""
    layer = (level - 1) // 2
    shares = layers[layer]
    if level % 2:  # after attention: the residual, and each head from each earlier token
        found = [Edge((level - 1, token), (level, token), float(shares.kept[token]), "residual", layer)]
        for head, row in enumerate(shares.attention[:, token, :token + 1]):
            found += [Edge((level - 1, j), (level, token), float(s), "attention", layer, head) for j, s in enumerate(row)]
        return found
    return [Edge((level - 1, token), (level, token), float(shares.carried[token]), "residual", layer),
            Edge((level - 1, token), (level, token), float(shares.ffn[token]), "ffn", layer)]


def paths(layers, token: int, threshold: float = 0.04) -> list[Edge]:
    """The edges of at least `threshold` of their end, followed back from token's last state (level 2·layers)."""
    todo, seen, kept = [(2 * len(layers), token)], set(), []
    while todo:
        node = todo.pop()
        if node in seen or node[0] == 0:
            continue
        seen.add(node)
        for edge in edges_into(layers, *node):
            if edge.share >= threshold:
                kept.append(edge)
                todo.append(edge.start)
    return sorted(kept, key=lambda e: (e.end, e.kind, e.head, e.start))
