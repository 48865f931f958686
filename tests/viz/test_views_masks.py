"""The masks page's views on a tiny hand-made batch: sentences, padded ids, one sentence's masks and leaks."""
import numpy as np
import pytest

from tests.viz import fake
from viz_app.views import masks as view

PAD = 0
SRC = np.array([[5, 6, 7, 8], [5, 6, PAD, PAD], [5, 6, 7, PAD]])  # [b, s]: sentence 2 has the most padding
TGT = np.array([[1, 9, 9], [1, 9, 9], [1, 9, PAD]])  # [b, t]
LENGTHS = {"src": np.array([4, 2, 3]), "tgt": np.array([3, 3, 2])}  # each sentence's own tokens


def labels(ids):
    return tuple(tuple(f"{i}·{'<pad>' if v == PAD else v}" for i, v in enumerate(row)) for row in ids)


def block_values(block, pattern, scaled, allowed):
    """One layer's recorded values for a batch: pattern [b, h, q, k], scores where `allowed`, -inf elsewhere."""
    return fake.named(block, pattern=pattern, scores_scaled=scaled, scores_masked=np.where(allowed, scaled, -np.inf))


def padded_batch(values, masks, tgt_ids=TGT, tgt_labels=None, window=0, window_layers=()):
    """The shared fake run as a batch of the three sentences: ids [b, n], labels and lengths per sentence."""
    return fake.run(values, src_ids=SRC, tgt_ids=tgt_ids, src_labels=labels(SRC),
                    tgt_labels=labels(TGT) if tgt_labels is None else tgt_labels, lengths=LENGTHS, masks=masks,
                    window=window, window_layers=window_layers)


def encoder_batch():
    """Two encoder layers of two heads; layer 1 head 0 of sentence 2 puts 0.3 on its pads (the mask was off)."""
    allowed = np.broadcast_to((SRC != PAD)[:, None, None, :], (3, 2, 4, 4))
    even = np.broadcast_to(np.full(4, 0.25), (3, 2, 4, 4)).copy()
    leaky = even.copy()
    leaky[1, 0] = [[0.4, 0.3, 0.2, 0.1], [0.5, 0.5, 0.0, 0.0], [0.1, 0.1, 0.4, 0.4], [0.25, 0.25, 0.25, 0.25]]
    scaled = np.arange(3 * 2 * 4 * 4, dtype=np.float32).reshape(3, 2, 4, 4) - 40
    values = {**block_values("encoder.layers.0.self_attn", even, scaled, allowed),
              **block_values("encoder.layers.1.self_attn", leaky, scaled, allowed)}
    masks = {"encoder.self_attn": {"padding": np.broadcast_to((SRC != PAD)[:, None, :], (3, 4, 4))}}
    return padded_batch(values, masks, tgt_ids=np.zeros((3, 0), np.int64), tgt_labels=())


def test_default_batch():
    assert view.default_batch("translate-en-fr", "the red car") == "the red car\ni see him\nthe dog sees you all"
    assert view.default_batch("own-x", "one two three four") == "one two three four\none two three\none"
    assert view.default_batch("own-x", "  ") == "a\na\na"


@pytest.mark.parametrize("text, lines, problem", [
    ("i see him\nthe dog", ("i see him", "the dog"), None),
    ("  i see him \n the dog  \n", ("i see him", "the dog"), None),
    ("only one", ("only one",), ("masks.bad.count", {"n": 1})),
    ("a\nb\nc\nd\ne", ("a", "b", "c", "d", "e"), ("masks.bad.count", {"n": 5})),
    ("a\n\nb", ("a", "", "b"), ("masks.bad.empty_line", {"line": 2})),
    ("   ", (), ("masks.bad.count", {"n": 0})),
    ("i see\x0bhim\nthe dog", ("i see\x0bhim", "the dog"), None),  # only a newline ends a line
])
def test_batch_lines(text, lines, problem):
    assert view.batch_lines(text) == (lines, problem)


def test_pad_weight_sums_the_weights_on_pad_keys():
    pattern = np.array([[0.5, 0.2, 0.3, 0.0], [0.1, 0.1, 0.4, 0.4]], np.float32)
    assert np.allclose(view.pad_weight(pattern, [False, False, True, True]), [0.3, 0.8])
    assert np.allclose(view.pad_weight(pattern, [False] * 4), [0, 0])


def test_padded_tables_by_side():
    both = view.padded(fake.run(src_ids=SRC, tgt_ids=TGT, lengths=LENGTHS))
    assert both.sides == ("src", "tgt") and both.caption_keys == ("masks.table.src", "masks.table.tgt")
    assert both.ids[1] is TGT and both.any_pad and both.first_row == 1  # the source decides
    assert both.pads[0].tolist() == (SRC == PAD).tolist() and both.pads[1].tolist() == (TGT == PAD).tolist()
    lm = view.padded(fake.run(src_ids=np.zeros((3, 0), np.int64), tgt_ids=TGT, lengths=LENGTHS))
    assert lm.sides == ("tgt",) and lm.caption_keys == ("masks.table.tgt_lm",) and lm.first_row == 2
    same = view.padded(fake.run(src_ids=SRC[:1].repeat(2, 0), tgt_ids=np.zeros((2, 0), np.int64),
                                lengths={"src": np.array([4, 4]), "tgt": np.array([0, 0])}))
    assert same.sides == ("src",) and not same.any_pad and same.first_row == 0


def test_sentence_masks_scores_and_leak():
    batch = encoder_batch()
    one = view.sentence(batch, "encoder.self_attn", 1, 5, 0)  # layer 5 → the last, 1
    assert (one.layer, one.n_layers, one.head) == (1, 2, 0)
    assert one.q_labels == one.k_labels == ("0·5", "1·6", "2·<pad>", "3·<pad>")
    (name, mask), = one.masks
    assert name == "padding" and mask.tolist() == [[True, True, False, False]] * 4
    scaled = np.arange(3 * 2 * 4 * 4, dtype=np.float32).reshape(3, 2, 4, 4)[1, 0] - 40  # values -8 … 7
    np.testing.assert_array_equal(one.before, scaled)
    assert np.isneginf(one.after[:, 2:]).all() and (one.after[:, :2] == scaled[:, :2]).all()
    assert one.score_range == (-8.0, 8.0)
    np.testing.assert_allclose(one.leak, [0.3, 0.0, 0.8, 0.5])
    assert one.query_pad.tolist() == [False, False, True, True]
    assert one.leak_real == pytest.approx(0.3)  # rows of real tokens only
    assert one.leak_all == pytest.approx(0.5)  # the even heads put 0.5 on two pads of four
    assert one.leak_column.shape == (4, 1) and not one.causal


def test_a_sentence_without_padding_has_no_leak():
    one = view.sentence(encoder_batch(), "encoder.self_attn", 0, 0, 1)
    assert one.leak is None and one.leak_real == one.leak_all == 0.0
    assert one.query_pad.tolist() == [False] * 4


def test_a_scale_for_all_zero_scores_is_not_empty():
    encoder = encoder_batch()
    encoder.trace["encoder.layers.0.self_attn.scores_scaled"][0, 0] = 0
    assert view.sentence(encoder, "encoder.self_attn", 0, 0, 0).score_range == (-1.0, 1.0)


def test_decoder_masks_come_in_order_and_cross_attention_reads_source_keys():
    causal = np.tril(np.ones((3, 3), bool))
    t_pad = np.broadcast_to((TGT != PAD)[:, None, :], (3, 3, 3))
    s_pad = np.broadcast_to((SRC != PAD)[:, None, :], (3, 3, 4))
    values = {**block_values("decoder.layers.0.self_attn", np.full((3, 1, 3, 3), 1 / 3),
                             np.ones((3, 1, 3, 3), np.float32), t_pad & causal),
              **block_values("decoder.layers.0.cross_attn", np.full((3, 1, 3, 4), 0.25),
                             np.ones((3, 1, 3, 4), np.float32), s_pad)}
    masks = {"decoder.self_attn": {"combined": t_pad & causal, "padding": t_pad, "causal": np.broadcast_to(causal, (3, 3, 3))},
             "decoder.cross_attn": {"padding": s_pad}}
    decoder = padded_batch(values, masks)
    one = view.sentence(decoder, "decoder.self_attn", 2, 0, 0)
    assert [name for name, _ in one.masks] == ["padding", "causal", "combined"] and one.causal
    np.testing.assert_allclose(one.leak, [1 / 3] * 3)
    assert one.leak_real == pytest.approx(1 / 3)
    cross_one = view.sentence(decoder, "decoder.cross_attn", 1, 0, 0)
    assert cross_one.q_labels == labels(TGT)[1] and cross_one.k_labels == labels(SRC)[1]
    np.testing.assert_allclose(cross_one.leak, [0.5] * 3)
    assert not cross_one.causal


def test_a_local_layer_shows_its_window_and_a_global_one_names_the_local_layers():
    causal, window = np.tril(np.ones((3, 3), bool)), np.tril(np.ones((3, 3), bool)) & np.triu(np.ones((3, 3), bool), -1)
    t_pad = np.broadcast_to((TGT != PAD)[:, None, :], (3, 3, 3))
    values = {}
    for layer, allowed in ((0, causal), (1, window)):
        values.update(block_values(f"decoder.layers.{layer}.self_attn", np.full((3, 1, 3, 3), 1 / 3),
                                   np.ones((3, 1, 3, 3), np.float32), t_pad & allowed))
    masks = {"decoder.self_attn": {"padding": t_pad, "causal": np.broadcast_to(causal, (3, 3, 3)),
                                   "combined": t_pad & causal, "window": np.broadcast_to(window, (3, 3, 3)),
                                   "combined_window": t_pad & window}}
    batch = padded_batch(values, masks, window=2, window_layers=(1,))
    local, full = (view.sentence(batch, "decoder.self_attn", 2, layer, 0) for layer in (1, 0))
    assert [name for name, _ in local.masks] == ["padding", "window", "combined_window"] and local.local
    np.testing.assert_array_equal(dict(local.masks)["combined_window"], t_pad[2] & window)
    assert [name for name, _ in full.masks] == ["padding", "causal", "combined"] and not full.local
    assert view.window_note(local) == ("masks.window.local", {"layer": 1, "w": 2, "before": 1, "layers": "1"})
    assert view.window_note(full)[0] == "masks.window.global"
    assert view.window_note(view.sentence(padded_batch(values, masks), "decoder.self_attn", 2, 1, 0)) is None


def test_padding_note():
    assert view.padding_note("encoder.self_attn") == "masks.encoder_only_padding"
    assert view.padding_note("decoder.cross_attn") == "masks.cross_padding"
    assert view.padding_note("decoder.self_attn") is None


def test_padding_is_told_by_length_not_by_id():
    """GPT-2 pads with <|endoftext|>, which also starts every sentence: position 0 is a token, not padding."""
    ids = np.array([[0, 7, 8], [0, 7, 0]])  # pad_id 0 is also <s>
    assert view.padding(ids, [3, 2]).tolist() == [[False, False, False], [False, False, True]]
