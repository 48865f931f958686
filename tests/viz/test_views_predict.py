"""Predict-then-reveal's questions (views/predict.py): the right option is the one the numbers make right."""
import numpy as np

from core_model.nn.positional import sinusoidal_table
from viz_app.views import predict


def test_the_strongest_key_is_the_rows_largest_weight():
    q = predict.strongest_key([0.1, 0.6, 0.3], "1·cat", ("0·the", "1·cat", "2·sat"), "ctx")
    assert q.answer == {1} and q.value == "0.600" and q.prompt[1] == {"token": "1·cat"}
    assert q.right([1]) and not q.right([0]) and not q.right([0, 1])


def test_the_previous_token_head_is_the_highest_mean_weight_one_back_and_a_missing_value_never_wins():
    previous = np.array([[0.2, np.nan], [0.9, 0.4]])
    q = predict.previous_token_head(previous, "ctx")
    assert q.options == ("L0·H0", "L0·H1", "L1·H0", "L1·H1") and q.answer == {2} and q.value == "0.900"


def test_the_next_token_options_are_the_top_tokens_in_alphabetical_order_with_the_chosen_one_among_them():
    names = {7: "le", 3: "la", 9: "un", 4: "une", 5: "de", 11: "zut"}
    q = predict.next_token([7, 3, 9, 4, 5], 11, 0.012, names.get, "ctx")  # the chosen token outside the top 5
    assert q.options == ("de", "la", "le", "un", "une", "zut") and q.answer == {5} and q.value == "p = 0.012"
    top = predict.next_token([7, 3, 9, 4, 5], 7, 0.5, names.get, "ctx")
    assert top.options == ("de", "la", "le", "un", "une") and top.options[min(top.answer)] == "le"


def test_the_blocked_keys_are_the_causal_masks_zeros_in_the_querys_row():
    n = 5
    causal = np.tril(np.ones((n, n), bool))
    padding = np.ones((n, n), bool)
    padding[:, 4] = False
    keys = tuple(str(i) for i in range(n))
    q = predict.blocked_keys((("padding", padding), ("causal", causal), ("combined", padding & causal)), 2, "2", keys,
                             "ctx")
    assert q.many and q.answer == {3, 4} and q.prompt[0] == "predict.q.blocked.causal.many"
    assert q.right([4, 3]) and not q.right([3]) and not q.right([2, 3, 4])
    only = predict.blocked_keys((("padding", padding),), 2, "2", keys, "ctx")  # an encoder: its padding mask
    assert only.answer == {4} and only.prompt[0] == "predict.q.blocked.padding.many"
    window = causal & np.triu(np.ones((n, n), bool), -1)  # a local layer, window 2
    local = predict.blocked_keys((("padding", padding), ("window", window), ("combined_window", padding & window)),
                                 2, "2", keys, "ctx")
    assert local.answer == {0, 3, 4} and local.prompt[0] == "predict.q.blocked.window.many"


def test_neighbours_that_tie_are_both_right_and_the_position_itself_is_no_option():
    pe = sinusoidal_table(20, 128).double().numpy()  # the lab's table at its default settings
    q = predict.most_similar_position(pe @ pe.T, 5, "ctx")
    assert "5" not in q.options and len(q.options) == 11
    # sin·sin + cos·cos = cos((p − q)ω): a dot product depends on |p − q| alone, highest one step away
    assert {q.options[i] for i in q.answer} == {"4", "6"}
    assert q.right([q.options.index("6")]) and not q.right([q.options.index("7")])


def test_a_question_is_new_when_its_context_or_options_change():
    a = predict.strongest_key([0.1, 0.9], "0·a", ("0·a", "1·b"), "model|text|layer 0")
    assert a.id == predict.strongest_key([0.2, 0.8], "0·a", ("0·a", "1·b"), "model|text|layer 0").id
    assert a.id != predict.strongest_key([0.1, 0.9], "0·a", ("0·a", "1·b"), "model|text|layer 1").id
    assert a.id != predict.strongest_key([0.1, 0.9], "0·a", ("0·a", "1·c"), "model|text|layer 0").id


def test_most_credited_is_the_largest_signed_attribution():
    from viz_app.views.predict import most_credited

    q = most_credited([0.2, -0.9, 0.5], ("0·a", "1·b", "2·c"), "la", "ctx")
    assert q.answer == frozenset({2}) and q.value == "0.500"  # a large negative credit is not the most credit
    assert q.prompt == ("predict.q.credited", {"token": "la"}) and q.options == ("0·a", "1·b", "2·c")
    assert most_credited([1.0, 0.0], ("a", "b"), "", "ctx").prompt == ("predict.q.credited_cls", {})
