"""The comparison's view on hand-made runs: tokens aligned by their pieces, a − b over the matched cells only, the
unmatched tokens named, and no difference between heads whose queries or keys read different texts."""
import numpy as np

from tests.viz import fake
from viz_app.views import compare as view

CAT = ("0·the", "1·cat", "2·sat", "3·on", "4·the", "5·mat")
CATS = ("0·the", "1·cats", "2·sat", "3·on", "4·the", "5·mat")
KEPT = [0, 2, 3, 4, 5]  # every position but the changed word's, in both


def encoder_run(labels, seed):
    return fake.run(arch="encoder", heads=2, src=labels, src_ids=range(10, 10 + len(labels)), attn=("pattern",),
                    seed=seed)


def test_a_minimal_pair_matches_every_token_but_the_changed_one():
    a, b = view.align(CAT, CATS)
    assert a.tolist() == KEPT and b.tolist() == KEPT


def test_an_inserted_token_shifts_the_positions_it_pairs():
    a, b = view.align(("0·the", "1·big", "2·cat", "3·sat"), ("0·the", "1·cat", "2·sat"))
    assert (a.tolist(), b.tolist()) == ([0, 2, 3], [0, 1, 2])
    assert view.shared_label("2·cat", "1·cat") == "2/1·cat" and view.shared_label("0·the", "0·the") == "0·the"


def test_the_difference_of_two_sentences_is_a_minus_b_at_the_matched_cells_only():
    first, second = encoder_run(CAT, 1), encoder_run(CATS, 2)
    pair = view.pair(first, "encoder.self_attn:0:1", second, "encoder.self_attn:0:1")
    a = first.trace["encoder.layers.0.self_attn.pattern"][0, 1]
    b = second.trace["encoder.layers.0.self_attn.pattern"][0, 1]
    np.testing.assert_array_equal(pair.a, a)
    np.testing.assert_array_equal(pair.b, b)
    np.testing.assert_array_equal(pair.diff, a[KEPT][:, KEPT] - b[KEPT][:, KEPT])  # float32 − float32, rounded once
    assert pair.shared == (("0·the", "2·sat", "3·on", "4·the", "5·mat"),) * 2
    assert pair.unmatched == (("1·cat",), ("1·cats",)) and pair.why == ""
    query, key, value_a, value_b, change = pair.largest[0]
    i, j = np.unravel_index(np.abs(pair.diff).argmax(), pair.diff.shape)
    assert (query, key) == (pair.shared[0][i], pair.shared[1][j]) and change == pair.diff[i, j]
    assert (value_a, value_b) == (a[KEPT[i], KEPT[j]], b[KEPT[i], KEPT[j]])


def test_two_heads_of_one_run_keep_every_cell():
    one = encoder_run(CAT, 3)
    pair = view.pair(one, "encoder.self_attn:0:0", one, "encoder.self_attn:0:1")
    weights = one.trace["encoder.layers.0.self_attn.pattern"][0]
    np.testing.assert_array_equal(pair.diff, weights[0] - weights[1])
    assert pair.shared == (CAT, CAT) and pair.unmatched == ((), ())


def translator(src, tgt, seed):
    return fake.run(arch="encoder-decoder", heads=1, src=src, tgt=tgt, attn=("pattern",), seed=seed)


def test_heads_whose_queries_read_the_output_and_the_sentence_have_no_difference():
    one = translator(CAT, ("0·<s>", "1·le", "2·chat"), 4)
    for other in ("encoder.self_attn:0:0", "decoder.self_attn:0:0"):
        pair = view.pair(one, other, one, "decoder.cross_attn:0:0")
        assert pair.diff is None and pair.why == "unlike" and pair.largest == ()
    assert view.pair(one, "encoder.self_attn:0:0", one, "decoder.self_attn:0:0").why == "unlike"


def test_cross_attention_on_two_sentences_aligns_its_queries_and_its_keys_each():
    first = translator(CAT, ("0·<s>", "1·le", "2·chat", "3·dort"), 5)
    second = translator(CATS, ("0·<s>", "1·les", "2·chats", "3·dort"), 7)
    pair = view.pair(first, "decoder.cross_attn:0:0", second, "decoder.cross_attn:0:0")
    a = first.trace["decoder.layers.0.cross_attn.pattern"][0, 0]
    b = second.trace["decoder.layers.0.cross_attn.pattern"][0, 0]
    rows = [0, 3]
    np.testing.assert_array_equal(pair.diff, a[rows][:, KEPT] - b[rows][:, KEPT])
    assert pair.shared[0] == ("0·<s>", "3·dort")
    assert pair.unmatched == (("1·le", "2·chat", "1·cat"), ("1·les", "2·chats", "1·cats"))  # queries', then keys'


def test_a_decoder_only_models_prompt_is_the_sentence_an_encoder_reads():
    encoder = encoder_run(("0·the", "1·cat"), 8)
    prompt = ("0·<s>", "1·the", "2·cat")
    lm = fake.run(arch="decoder", heads=1, tgt=prompt, tgt_ids=(2, 5, 6), attn=("pattern",), seed=9)
    pair = view.pair(encoder, "encoder.self_attn:0:0", lm, "decoder.self_attn:0:0")
    a = encoder.trace["encoder.layers.0.self_attn.pattern"][0, 0]
    b = lm.trace["decoder.layers.0.self_attn.pattern"][0, 0]
    np.testing.assert_array_equal(pair.diff, a - b[1:, 1:])
    assert pair.shared == (("0/1·the", "1/2·cat"),) * 2 and pair.unmatched == ((), ("0·<s>",))


def test_runs_with_no_token_in_common_have_nothing_to_subtract():
    pair = view.pair(encoder_run(("0·a", "1·b"), 10), "encoder.self_attn:0:0",
                     encoder_run(("0·x", "1·y", "2·z"), 11), "encoder.self_attn:0:0")
    assert pair.diff is None and pair.why == "disjoint"
    assert pair.unmatched == (("0·a", "1·b"), ("0·x", "1·y", "2·z"))
