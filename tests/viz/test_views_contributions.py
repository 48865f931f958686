"""The contribution graph's paths (viz_app/views/contributions.py) on shares written by hand."""
from __future__ import annotations

import numpy as np

from core_model.contributions import Layer
from viz_app.views.contributions import edges_into, paths


def one_layer() -> list[Layer]:
    """Two tokens, two heads. After attention, token 1 is 0.5 its own state, 0.3 token 0 through head 1, 0.2 itself
    through head 0; after the FFN it is 0.9 that and 0.1 the FFN. Token 0 keeps itself."""
    attention = np.zeros((2, 2, 2))
    attention[1, 1, 0], attention[0, 1, 1] = 0.3, 0.2
    return [Layer(attention, kept=np.array([1.0, 0.5]), bias=np.zeros(2), ffn=np.array([0.0, 0.1]),
                  carried=np.array([1.0, 0.9]))]


def test_the_edges_into_a_state_after_attention_are_the_residual_and_each_heads_from_each_earlier_token():
    found = {(e.kind, e.head, e.start): e.share for e in edges_into(one_layer(), 1, 1)}
    assert found == {("residual", -1, (0, 1)): 0.5, ("attention", 0, (0, 0)): 0.0, ("attention", 0, (0, 1)): 0.2,
                     ("attention", 1, (0, 0)): 0.3, ("attention", 1, (0, 1)): 0.0}


def test_paths_follow_back_every_edge_of_at_least_the_threshold():
    edges = paths(one_layer(), token=1, threshold=0.15)
    assert [(e.kind, e.head, e.start, e.end, round(e.share, 2)) for e in edges] == [
        ("attention", 0, (0, 1), (1, 1), 0.2), ("attention", 1, (0, 0), (1, 1), 0.3),
        ("residual", -1, (0, 1), (1, 1), 0.5), ("residual", -1, (1, 1), (2, 1), 0.9)]
    assert [e.kind for e in paths(one_layer(), token=1, threshold=0.05)].count("ffn") == 1  # 0.1 is followed now
    own = paths(one_layer(), token=0, threshold=0.5)  # token 0 keeps itself: two residual edges, nothing else
    assert [(e.kind, e.start, e.end) for e in own] == [("residual", (0, 0), (1, 0)), ("residual", (1, 0), (2, 0))]
