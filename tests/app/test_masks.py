"""The Masks page: a padded batch, masks equal to core_model.nn.masks, -inf where blocked, padding leaks."""
import numpy as np
import pytest
import torch

from core_model import checkpoints
from core_model.nn import masks
from core_model.config import ModelConfig
from core_model.nn.model import Transformer
from core_model.trace import run_with_trace
from tests.app.conftest import assert_clean, decode, named_chart, named_z, open_page, shown
from viz_app import loaders

MODEL = "translate-en-fr"
BATCH = ("the small girl does not see the red car", "i see him", "the dog sees you all")
TEXT = "\n".join(BATCH)
# The charts' names: padding mask, scores before and after masking, weights after softmax, weight on <pad>.
MASK, BEFORE, AFTER, PATTERN, LEAK = ("masks.mask.padding", "masks.scores.before", "masks.scores.after",
                                      "masks.scores.pattern", "masks.leak")


def tiny_models(path, tokenizer):
    """A random encoder-only (post-norm) and decoder-only (pre-norm, RMSNorm, GELU) model: the other architectures."""
    torch.manual_seed(0)
    common = dict(d_model=16, n_heads=2, d_ff=32, dropout=0.0, max_len=32, src_vocab_size=tokenizer.vocab_size,
                  tgt_vocab_size=tokenizer.vocab_size)
    for name, cfg in (("tiny-encoder", ModelConfig(architecture="encoder", n_encoder_layers=2, n_decoder_layers=0, **common)),
                      ("tiny-lm", ModelConfig(architecture="decoder", n_encoder_layers=0, n_decoder_layers=2, norm="rmsnorm",
                                              norm_placement="pre", activation="gelu", positional="learned", **common))):
        checkpoints.save(path / name, Transformer(cfg), {side: tokenizer for side in cfg.sides})
    return path


@pytest.fixture
def other_models(tmp_path, monkeypatch):
    """The shipped translator plus the two tiny models, as the app's model list."""
    tiny_models(tmp_path, loaders.load_model(MODEL).tokenizers["src"])
    (tmp_path / MODEL).symlink_to(loaders.MODELS_DIR / MODEL)
    monkeypatch.setattr(loaders.models, "MODELS_DIR", tmp_path)
    return tmp_path


def padded(rows, pad_id):
    out = np.full((len(rows), max(map(len, rows))), pad_id)
    for i, row in enumerate(rows):
        out[i, :len(row)] = row
    return out


def expected_batch(name=MODEL, batch=BATCH, pad_mask=True):
    """The batch built here from the tokenizer and one run_with_trace, independently of the page's loader."""
    loaded = loaders.load_model(name)
    cfg = loaded.config
    src = padded([loaded.tokenizers["src"].encode(s) for s in batch], cfg.pad_id) if cfg.has_encoder else None
    tgt = padded([loaders.run(name, s).tgt_ids for s in batch], cfg.pad_id) if cfg.has_decoder else None
    _, trace = run_with_trace(loaded.model, src, tgt, pad_mask=pad_mask)
    return cfg, src, tgt, trace


def warnings(at):
    return [w.value for w in at.warning]


def test_padded_batch_and_padding_mask_equal_the_tokenizer_and_core_masks():
    at = open_page("masks", **{"masks.batch": TEXT})
    assert_clean(at)
    cfg, src, tgt, _ = expected_batch()
    assert np.array_equal(at.dataframe[0].value.to_numpy(), src)  # encoder input, pads = pad_id on the right
    assert np.array_equal(at.dataframe[1].value.to_numpy(), tgt)  # decoder input: <s> + each own translation
    row = at.selectbox(key="masks.row").value
    assert row == 1  # the shortest sentence, the one with the most padding, is shown first
    expected = masks.padding_mask(torch.as_tensor(src), cfg.pad_id)[row, 0].expand(src.shape[1], -1)  # [q, k]
    assert np.array_equal(named_z(at, MASK), expected.numpy().astype(np.float32))
    assert named_chart(at, MASK)["layout"]["coloraxis"]["colorbar"]["ticktext"] == ["blocked", "may attend"]
    assert any("−∞" in i.value for i in at.info)  # the fill value is stated


def test_scores_are_minus_inf_exactly_where_the_mask_blocks_and_pad_columns_get_zero_weight():
    at = open_page("masks", layer=1, head=2, **{"masks.batch": TEXT, "masks.row": 2})
    assert_clean(at)
    cfg, src, _, trace = expected_batch()
    view = trace.attn("encoder", 1)
    blocked = src[2] == cfg.pad_id  # pad keys of sentence 3
    assert np.allclose(named_z(at, BEFORE), view.scores_scaled[2, 2], atol=1e-6)
    after = named_z(at, AFTER)
    assert np.array_equal(np.isnan(after), np.broadcast_to(blocked, after.shape))  # -inf cells are empty
    assert np.allclose(after[:, ~blocked], view.scores_masked[2, 2][:, ~blocked], atol=1e-6)
    weights = named_z(at, PATTERN)
    assert np.allclose(weights, view.pattern[2, 2], atol=1e-6)
    assert np.allclose(weights.sum(-1), 1, atol=1e-5) and (weights[:, blocked] == 0).all()
    assert np.array_equal(decode(named_chart(at, LEAK)["data"][0]["x"]), np.zeros(len(src[2]), np.float32))


def test_removing_the_padding_mask_lets_weight_leak_onto_pad():
    at = open_page("masks", **{"masks.batch": TEXT})
    at.toggle(key="masks.no_pad_mask").set_value(True).run()
    assert_clean(at)
    cfg, src, _, trace = expected_batch(pad_mask=False)
    row, pad = 1, src[1] == cfg.pad_id
    assert np.array_equal(named_z(at, MASK), np.ones((src.shape[1],) * 2, np.float32))  # nothing blocked any more
    pattern = trace.attn("encoder", 0).pattern[row, 0]
    assert np.allclose(named_z(at, PATTERN), pattern, atol=1e-6)
    assert not np.isnan(named_z(at, AFTER)).any()
    leak = decode(named_chart(at, LEAK)["data"][0]["x"])
    assert np.allclose(leak, pattern[:, pad].sum(-1), atol=1e-6) and (leak > 0).any()
    # Without the mask, the padded sentences' outputs differ from their runs alone; the longest one's do not.
    diffs = at.dataframe[-1].value.iloc[:, 1].to_numpy()
    alone = [run_with_trace(loaders.load_model(MODEL).model, loaders.load_model(MODEL).tokenizers["src"].encode(s),
                            list(loaders.run(MODEL, s).tgt_ids))[0][0].numpy() for s in BATCH]
    logits = trace["logits"]
    assert np.allclose(diffs, [np.abs(logits[i, :len(a)] - a).max() for i, a in enumerate(alone)], atol=1e-5)
    assert diffs[0] < 1e-4 and diffs[1] > 1e-3


def test_with_the_mask_real_tokens_do_not_see_padding():
    at = open_page("masks", **{"masks.batch": TEXT})
    diffs = at.dataframe[-1].value.iloc[:, 1].to_numpy()
    assert len(diffs) == 3 and (diffs < 1e-4).all()  # padding invariance
    assert "0.0000" in " ".join(m.value for m in at.markdown)


def test_decoder_self_attention_shows_padding_causal_and_combined_masks():
    at = open_page("masks", **{"masks.batch": TEXT, "masks.block": "decoder.self_attn"})
    assert_clean(at)
    cfg, _, tgt, trace = expected_batch()
    row = at.selectbox(key="masks.row").value
    pad = masks.padding_mask(torch.as_tensor(tgt), cfg.pad_id)[row, 0].expand(tgt.shape[1], -1)
    causal = masks.causal_mask(tgt.shape[1])[0, 0]
    for kind, expected in zip(("padding", "causal", "combined"), (pad, causal, pad & causal)):
        assert np.array_equal(named_z(at, f"masks.mask.{kind}"), expected.numpy().astype(np.float32))
    after = named_z(at, AFTER)  # scores after masking, for the default layer 0 and head 0
    assert np.array_equal(np.isnan(after), ~(pad & causal).numpy())
    assert np.allclose(named_z(at, PATTERN), trace.attn("decoder", 0).pattern[row, 0], atol=1e-6)


@pytest.mark.parametrize("text, message", [
    ("only one sentence", "found 1"),
    ("a\nb\nc\nd\ne", "found 5"),
    ("i see him\n\nthe dog sees you all", "Line 2 is empty"),
    ("   ", "found 0"),
])
def test_a_bad_batch_gets_a_message_not_a_traceback(text, message):
    at = open_page("masks", **{"masks.batch": text})
    assert_clean(at)
    assert any(message in w for w in warnings(at)), warnings(at)
    assert not at.get("plotly_chart")


def test_a_sentence_with_nothing_to_read_is_named():
    at = open_page("masks", **{"masks.batch": "i see him\n\x01\x02"})
    assert_clean(at)
    assert any("Sentence 2" in w for w in warnings(at)), warnings(at)


def test_the_default_batch_follows_the_sidebar_until_edited():
    at = open_page("masks", src="i see him")
    assert at.text_area(key="masks.batch").value.splitlines()[0] == "i see him"
    at.sidebar.text_input(key="src").set_value("the dog sees you all").run()
    assert at.text_area(key="masks.batch").value.splitlines()[0] == "the dog sees you all"
    at.text_area(key="masks.batch").set_value("i see him\nthe dog sees you all").run()
    at.sidebar.text_input(key="src").set_value("i see him").run()
    assert at.text_area(key="masks.batch").value == "i see him\nthe dog sees you all"


def test_choosing_another_sentence_draws_its_weights():
    at = open_page("masks", head=1, **{"masks.batch": TEXT})
    at.selectbox(key="masks.row").set_value(0).run()
    assert_clean(at)
    _, src, _, trace = expected_batch()
    assert np.allclose(named_z(at, PATTERN), trace.attn("encoder", 0).pattern[0, 1], atol=1e-6)
    assert any("no <pad> keys" in i.value for i in at.info)  # the longest sentence has no padding


def test_encoder_only_and_decoder_only_models(other_models):
    at = open_page("masks", model="tiny-encoder", src="i see him", **{"masks.batch": TEXT})
    assert_clean(at)
    assert at.selectbox(key="masks.block").options == ["encoder self-attention"]
    _, src, tgt, trace = expected_batch("tiny-encoder")
    assert tgt is None and len(at.dataframe) == 2  # one padded table (encoder input) and the invariance table
    assert np.allclose(named_z(at, PATTERN), trace.attn("encoder", 0).pattern[1, 0], atol=1e-6)
    assert (at.dataframe[-1].value.iloc[:, 1] < 1e-4).all()

    at = open_page("masks", model="tiny-lm", src="i see him", **{"masks.batch": TEXT})
    assert_clean(at)
    assert at.selectbox(key="masks.block").options == ["decoder self-attention"]
    cfg, _, tgt, trace = expected_batch("tiny-lm")
    assert np.array_equal(at.dataframe[0].value.to_numpy(), tgt)
    assert np.allclose(named_z(at, PATTERN), trace.attn("decoder", 0).pattern[1, 0], atol=1e-6)
    assert (at.dataframe[-1].value.iloc[:, 1] < 1e-4).all()


def test_cross_attention_uses_the_source_padding_for_every_decoder_query():
    at = open_page("masks", layer=2, head=3, **{"masks.batch": TEXT, "masks.block": "decoder.cross_attn"})
    assert_clean(at)
    cfg, src, tgt, trace = expected_batch()
    row = at.selectbox(key="masks.row").value
    pad = masks.padding_mask(torch.as_tensor(src), cfg.pad_id)[row, 0].expand(tgt.shape[1], -1)  # [t, s]
    assert np.array_equal(named_z(at, MASK), pad.numpy().astype(np.float32))
    assert np.array_equal(np.isnan(named_z(at, AFTER)), ~pad.numpy())
    weights = named_z(at, PATTERN)
    assert np.allclose(weights, trace.attn("decoder", 2, "cross_attn").pattern[row, 3], atol=1e-6)
    assert (weights[:, src[row] == cfg.pad_id] == 0).all()


def test_a_link_reopens_its_batch():
    from streamlit.testing.v1 import AppTest

    from tests.app.conftest import APP

    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["masks.batch"] = "i see him\nthe dog sees you all"
    at.switch_page("app_pages/masks.py")
    at.run()
    assert_clean(at)
    assert at.text_area(key="masks.batch").value == "i see him\nthe dog sees you all"
    assert list(at.dataframe[-1].value.iloc[:, 0]) == ["i see him", "the dog sees you all"]  # the invariance table


def test_odd_lines_are_cleaned_cut_or_shown_as_typed():
    loaded = loaders.load_model(MODEL)
    long_line = "the cat sees the dog " * 5000  # 100,000 characters
    n, keep = len(loaded.tokenizers["src"].encode(long_line.strip())), loaded.config.max_len - 1  # lines are stripped
    cases = {  # batch → what the page says
        f"i see him\n{long_line}": f"The text has {n} tokens; only the first {keep} fit the model and are shown.",
        "i see\x00 him\nthe dog\x07 sees you": "Control characters were removed from the text.",
        "i see \ud800him\nthe dog": "The text holds a broken character (a lone surrogate)",
        # written as the translator's training text ("(", ")" and "/" taken out), the markup named as typed
        "<script>alert(1)</script>\ni see him": "guess at them: “<script>alert”, “1”, “<”, “script>”",
    }
    for batch, message in cases.items():
        at = open_page("masks", **{"masks.batch": batch})
        assert_clean(at)
        assert any(message in shown(w.value) for w in at.warning), (batch[:40], warnings(at))
        assert len(at.dataframe[-1].value) == 2 and at.get("plotly_chart")  # both sentences drawn
        unlinked = "this text is left out of the page's link" in " ".join(c.value for c in at.caption)
        assert unlinked == (len(batch) > 1000)


def test_a_control_character_is_removed_not_taken_for_a_line_break():
    at = open_page("masks", **{"masks.batch": "i see\x0bhim\nthe dog"})
    assert_clean(at)
    assert list(at.dataframe[-1].value.iloc[:, 0]) == ["i see\x0bhim", "the dog"]  # two sentences, not three
    assert "Control characters were removed from the text." in warnings(at)


@pytest.mark.parametrize("model", ["translate-en-fr", "lm-en"])
def test_the_decoder_s_three_masks_side_by_side_keep_square_cells(model):
    """Three masks in three columns were squeezed into strips beside their colour bars: square cells, key below."""
    at = open_page("masks", model=model, **{"masks.block": "decoder.self_attn"})
    assert_clean(at)
    for kind in ("padding", "causal", "combined"):
        layout = named_chart(at, f"masks.mask.{kind}")["layout"]
        assert layout["yaxis"]["scaleanchor"] == "x" and layout["coloraxis"]["colorbar"]["orientation"] == "h"
        assert layout["height"] >= 200 + 24 * named_z(at, f"masks.mask.{kind}").shape[0]
