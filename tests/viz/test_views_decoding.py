"""The decoding views on hand-made decoding records: expected values written out by hand."""
import math
from types import SimpleNamespace as NS

import numpy as np
import pytest

from viz_app.views import decoding as view


def step(prefix, logits, top, chosen, self_attn, cross_attn=None):
    return NS(prefix=prefix, logits=np.array(logits, np.float32), top=top, chosen=chosen,
              self_attn=np.array(self_attn, np.float32), cross_attn=None if cross_attn is None else np.array(cross_attn))


# two steps of a decoder with one layer and two heads over a source of two tokens
STEPS = (step((2,), [0.0, math.log(3)], ((1, 0.75), (0, 0.25)), 1, [[[1.0], [1.0]]], [[[0.5, 0.5], [1.0, 0.0]]]),
         step((2, 1), [math.log(3), 0.0], ((0, 0.75), (1, 0.25)), 1, [[[0.5, 0.5], [1.0, 0.0]]],
              [[[0.0, 1.0], [0.5, 0.5]]]))
DECODED = NS(steps=STEPS)
LABELS = ("0·<s>", "1·b", "2·b")


def test_chosen_probability_is_the_models_softmax():
    assert view.chosen_p(STEPS[0]) == pytest.approx(0.75)
    assert view.chosen_p(STEPS[1]) == pytest.approx(0.25)  # sampling may choose the less likely token


def test_top_keeps_the_methods_probabilities_and_the_models_for_sampling():
    greedy = view.top(STEPS[0], "greedy")
    assert greedy.ids == (1, 0) and greedy.chosen == 0 and greedy.reference is None
    np.testing.assert_allclose(greedy.probs, [0.75, 0.25])
    sampled = view.top(STEPS[1], "sample")
    assert sampled.chosen == 1
    np.testing.assert_allclose(sampled.reference, [0.75, 0.25])
    outside = view.top(NS(top=((0, 1.0),), chosen=1, logits=np.zeros(2)), "greedy")
    assert outside.chosen == -1


def test_sampling_lists_only_the_tokens_its_filtered_distribution_can_draw():
    # top-p left two tokens; the other three of the step's top five are zeros (torch.topk takes the lowest ids)
    filtered = NS(top=((7, 0.6), (5, 0.4), (0, 0.0), (1, 0.0), (2, 0.0)), chosen=5, logits=np.arange(8.0))
    sampled = view.top(filtered, "sample")
    assert sampled.ids == (7, 5) and sampled.chosen == 1
    np.testing.assert_allclose(sampled.probs, [0.6, 0.4])
    assert view.top(filtered, "greedy").ids == (7, 5, 0, 1, 2)  # the model's own softmax: listed as it is


def test_rare_sums_the_models_probability_below_a_bound():
    # one token at 0.9 and 100 at 0.001 each, the spread label smoothing leaves: logits log(p)
    logits = [math.log(0.9)] + [math.log(0.001)] * 100
    rare = view.rare(NS(logits=np.array(logits)), 0.002)
    assert rare.count == 100 and rare.mass == pytest.approx(0.1, rel=1e-6)
    assert view.rare(NS(logits=np.array(logits)), 0.0005) == view.Rare(0, 0.0)


def test_alignment_stacks_each_steps_head_mean_with_unseen_keys_empty():
    cross = view.alignment(DECODED, LABELS, ("0·x", "1·y"), 0)
    assert cross.cross and cross.keys == ("0·x", "1·y") and cross.generated == ("1·b", "2·b")
    np.testing.assert_allclose(cross.values, [[0.75, 0.25], [0.25, 0.75]])
    own = view.alignment(NS(steps=tuple(NS(**{**vars(s), "cross_attn": None}) for s in STEPS)), LABELS, (), 0)
    assert not own.cross and own.keys == ("0·<s>", "1·b")
    np.testing.assert_array_equal(own.values, [[1.0, -np.inf], [0.75, 0.25]])


def test_cross_mean_and_steps_table():
    np.testing.assert_allclose(view.cross_mean(STEPS[1], 0), [0.25, 0.75])
    table = view.steps_table(DECODED, LABELS)
    assert table.tokens == ("1·b", "2·b") and table.probs == pytest.approx((0.75, 0.25))


def test_stack_rows_and_softmax():
    np.testing.assert_array_equal(view.stack_rows([np.array([1.0]), np.array([0.5, 0.5])]), [[1.0, -np.inf], [0.5, 0.5]])
    np.testing.assert_allclose(view.softmax([0.0, math.log(3)]), [0.25, 0.75])


def test_tree_follows_the_best_hypothesis_back():
    beam = lambda tokens, parent, finished=False: NS(tokens=tokens, score=-1.0, normalized=-0.5, parent=parent,
                                                     finished=finished)
    beams = (NS(index=0, beams=(beam((5,), -1), beam((6,), -1))),
             NS(index=1, beams=(beam((6, 7), 1, True), beam((5, 8), 0))))
    tree = view.tree(NS(beams=beams, hypotheses=(beam((6, 7), 1, True),)))
    assert tree.last_ids == [[5, 6], [7, 8]] and tree.parents == [[-1, -1], [1, 0]]
    assert tree.best == [1, 0] and tree.finished == [[False, False], [True, False]]


def test_rows_of_one_step_and_the_position_labels():
    rows = view.self_rows(STEPS[1], 0, LABELS)
    assert rows.keys == ("0·<s>", "1·b")
    np.testing.assert_array_equal(rows.values, [[0.5, 0.5], [1.0, 0.0]])
    cross = view.cross_rows(STEPS[0], 0, ("0·x", "1·y"))
    assert cross.keys == ("0·x", "1·y") and cross.values.shape == (2, 2)
    tokenizer = NS(display_pieces=lambda ids: ["<s>" if i == 2 else f"▁w{i}" for i in ids])
    assert view.positions(DECODED, tokenizer) == ("0·<s>", "1·w1", "2·w1")


def test_drawable_top_lists_a_distributions_nonzero_tokens_most_likely_first():
    # logits of four tokens; a distribution that leaves tokens 3 and 0 (as top-k 2 would), written by hand
    s = step((2,), [0.0, math.log(2), 0.0, math.log(6)], (), 0, [[[1.0]]])
    top = view.drawable_top(s, [0.25, 0.0, 0.0, 0.75], n=3)
    assert top.ids == (3, 0) and top.probs.tolist() == [0.75, 0.25]
    assert top.chosen == 1  # the step chose token 0, second in the list
    np.testing.assert_allclose(top.reference, [0.6, 0.1])  # the model's softmax: e^x / 10
    assert view.drawable_top(s, [0.0, 0.0, 0.0, 1.0], n=3).chosen == -1


def test_one_choice_only_when_every_step_leaves_a_single_token():
    assert view.one_choice([np.array([0.0, 1.0, 0.0]), np.array([1.0, 0.0, 0.0])])
    assert not view.one_choice([np.array([0.0, 1.0, 0.0]), np.array([0.9, 0.1, 0.0])])
