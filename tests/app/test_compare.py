"""Comparing on the explorer: the difference drawn is head A − head B exactly, over the arrays drawn; on two sentences
or two models, over the tokens both runs share."""
import functools

import numpy as np

from core_model import load
from core_model.trace import run_with_trace
from viz_app.loaders import DEFAULT_MODEL, MODELS_DIR, available_models, model_folder
from viz_app.place.compare import SECOND_SENTENCES
from viz_app.sidebar import EXAMPLES
from viz_app.text import token_labels
from viz_app.views.compare import align

from .conftest import assert_clean, chart_names, named_chart, named_z, open_link, open_page


def compare_page(**state):
    """The explorer with its comparison switched on (it is off by default) and `state` set."""
    return open_page("explorer", **{"explorer.compare": True, **state})


def test_the_comparison_is_off_until_switched_on_and_a_link_naming_one_opens_it():
    at = open_page("explorer")
    assert_clean(at)
    assert at.toggle(key="explorer.compare").value is False
    assert not [name for name in chart_names(at) if name.startswith("explorer.compare.")]
    assert "explorer.compare.mode" not in at.session_state  # nothing of it read, so nothing put in the link
    at.toggle(key="explorer.compare").set_value(True).run()
    assert_clean(at)
    assert {"explorer.compare.a", "explorer.compare.b", "explorer.compare.diff"} <= set(chart_names(at))
    assert at.query_params["explorer.compare"] == "1"  # in the link
    for link, shown in (({"explorer.compare.b": "encoder.self_attn:2:3"}, True),
                        ({"explorer.compare.b": "encoder.self_attn:2:3", "explorer.compare": "0"}, False)):
        at = open_link("explorer", **link)
        assert_clean(at)
        assert at.toggle(key="explorer.compare").value is shown
        assert ("explorer.compare.diff" in chart_names(at)) is shown


def test_the_difference_is_the_first_head_minus_the_second_and_the_heads_are_the_models():
    at = compare_page(**{"explorer.compare.a": "encoder.self_attn:0:1", "explorer.compare.b": "encoder.self_attn:2:3"})
    assert_clean(at)
    a, b, diff = (named_z(at, f"explorer.compare.{w}") for w in ("a", "b", "diff"))
    assert np.array_equal(diff, (a - b).astype(np.float32))  # float32 − float32 is rounded once either way
    loaded = load(MODELS_DIR / DEFAULT_MODEL)
    _, trace = run_with_trace(loaded.model, loaded.tokenizers["src"].encode(EXAMPLES[DEFAULT_MODEL]),
                              [loaded.config.bos_id])
    np.testing.assert_array_equal(a, trace.attn("encoder", 0, "self_attn").pattern[0, 1])
    np.testing.assert_array_equal(b, trace.attn("encoder", 2, "self_attn").pattern[0, 3])
    table = at.dataframe[-1].value
    assert np.isclose(abs(table.iloc[0, 4]), np.abs(diff).max(), atol=1e-6)  # the largest change first
    assert at.query_params["explorer.compare.b"] == "encoder.self_attn:2:3"  # in the link


def test_heads_over_different_tokens_are_shown_without_a_difference():
    at = compare_page(**{"explorer.compare.a": "encoder.self_attn:0:0", "explorer.compare.b": "decoder.cross_attn:0:0"})
    assert_clean(at)
    assert "explorer.compare.b" in chart_names(at) and "explorer.compare.diff" not in chart_names(at)
    assert any("no cell-by-cell difference" in i.value for i in at.info)


# ----- one head on two sentences, one sentence on two models: aligned by token ------------------------------------

CAT, DOG = "the cat sat on the mat", "the dog sat on the mat"


@functools.lru_cache(maxsize=None)
def shipped(name: str):
    return load(model_folder(name))


def encoder_pattern(sentence: str, layer: int, head: int):
    """The translator's encoder weights on `sentence`, from the core (the decoder's input does not reach them)."""
    loaded = shipped(DEFAULT_MODEL)
    ids = loaded.tokenizers["src"].encode(sentence)
    _, trace = run_with_trace(loaded.model, ids, [loaded.config.bos_id])
    return ids, trace.attn("encoder", layer, "self_attn").pattern[0, head]


def test_one_head_on_a_minimal_pair_differs_over_the_shared_tokens_only():
    at = compare_page(src=CAT, **{"explorer.compare.mode": "sentences", "explorer.compare.text": DOG,
                                  "explorer.compare.a": "encoder.self_attn:1:2"})
    assert_clean(at)
    ids_a, a = encoder_pattern(CAT, 1, 2)
    ids_b, b = encoder_pattern(DOG, 1, 2)
    kept = [i for i, (x, y) in enumerate(zip(ids_a, ids_b)) if x == y]
    assert len(ids_a) == len(ids_b) and kept == [0, *range(2, len(ids_a))]  # "cat" and "dog" are one token each
    np.testing.assert_array_equal(named_z(at, "explorer.compare.a"), a)
    np.testing.assert_array_equal(named_z(at, "explorer.compare.b"), b)
    diff = named_z(at, "explorer.compare.diff")
    np.testing.assert_array_equal(diff, a[kept][:, kept] - b[kept][:, kept])  # float32 − float32, rounded once
    labels = token_labels(shipped(DEFAULT_MODEL).tokenizers["src"], ids_a)
    assert list(named_chart(at, "explorer.compare.diff")["data"][0]["y"]) == [labels[i] for i in kept]
    assert any("1 of the first (`1·cat`) and 1 of the second (`1·dog`)" in c.value for c in at.caption)
    assert np.isclose(abs(at.dataframe[-1].value.iloc[0, 4]), np.abs(diff).max(), atol=1e-6)  # the table: shared cells


def decoder_pattern(name: str, sentence: str, layer: int, head: int):
    loaded = shipped(name)
    ids = [loaded.config.bos_id, *loaded.tokenizers["tgt"].encode(sentence)]
    _, trace = run_with_trace(loaded.model, None, ids)
    return trace.attn("decoder", layer, "self_attn").pattern[0, head]


def test_one_sentence_on_two_models_with_one_tokenizer_differs_at_every_cell():
    at = compare_page(model="lm-en", src=EXAMPLES["lm-en"],
                      **{"explorer.compare.mode": "models", "explorer.compare.model": "lm-en-rope",
                         "explorer.compare.a": "decoder.self_attn:2:1",
                         "explorer.compare.model_head": "decoder.self_attn:1:3"})
    assert_clean(at)
    a = decoder_pattern("lm-en", EXAMPLES["lm-en"], 2, 1)
    b = decoder_pattern("lm-en-rope", EXAMPLES["lm-en"], 1, 3)
    np.testing.assert_array_equal(named_z(at, "explorer.compare.a"), a)
    np.testing.assert_array_equal(named_z(at, "explorer.compare.b"), b)
    np.testing.assert_array_equal(named_z(at, "explorer.compare.diff"), a - b)
    assert any("Every token has its match" in c.value for c in at.caption)
    assert at.query_params["explorer.compare.model"] == "lm-en-rope"
    assert at.query_params["explorer.compare.model_head"] == "decoder.self_attn:1:3"


def test_a_link_reopens_the_mode_the_second_sentence_and_the_second_model():
    links = {"sentences": {"explorer.compare.text": DOG}, "models": {"explorer.compare.model": "reverse"}}
    for mode, link in links.items():
        at = open_link("explorer", **{"src": CAT, "explorer.compare.mode": mode, **link})
        assert_clean(at)
        assert at.radio(key="explorer.compare.mode").value == mode
        assert not [w.value for w in at.warning if "explorer.compare" in w.value]  # no part of the link refused
        for key, value in link.items():
            assert at.session_state[key] == value and at.query_params[key] == value  # shown, and still in the link
        assert "explorer.compare.diff" in chart_names(at)


def test_an_empty_or_unreadable_second_sentence_is_said_not_raised():
    for text in ("   ", "\x00\x07"):
        at = compare_page(**{"explorer.compare.mode": "sentences", "explorer.compare.text": text})
        assert_clean(at)
        assert any("Type a second sentence to compare with" in i.value for i in at.info)
        assert "explorer.compare.b" not in chart_names(at) and "explorer.compare.diff" not in chart_names(at)


def test_the_second_sentence_starts_as_a_minimal_pair_and_follows_the_model_until_edited():
    for name in (m for m in SECOND_SENTENCES if m in available_models()):
        first, second = EXAMPLES[name].split(), SECOND_SENTENCES[name].split()
        assert len(first) == len(second) and sum(x != y for x, y in zip(first, second)) == 1
        tokenizer = shipped(name).tokenizers["src" if shipped(name).config.has_encoder else "tgt"]
        labels = [token_labels(tokenizer, tokenizer.encode(s)) for s in (EXAMPLES[name], SECOND_SENTENCES[name])]
        kept = align(*labels)
        assert [len(labels[w]) - len(kept[w]) for w in (0, 1)] == [1, 1], name  # one token each side left out
    at = compare_page(**{"explorer.compare.mode": "sentences"})
    assert at.text_input(key="explorer.compare.text").value == SECOND_SENTENCES[DEFAULT_MODEL]
    at.selectbox(key="model").set_value("lm-en").run()
    assert at.text_input(key="explorer.compare.text").value == SECOND_SENTENCES["lm-en"]
    at.text_input(key="explorer.compare.text").input("the old dog").run()
    at.selectbox(key="model").set_value("lm-en-rope").run()
    assert at.text_input(key="explorer.compare.text").value == "the old dog"


def test_every_mode_speaks_chinese():
    import re

    from tests.app.test_language import ENGLISH_PHRASE, model_words, ui_texts

    for mode in ("sentences", "models"):
        at = compare_page(lang="zh", **{"explorer.compare.mode": mode})
        assert_clean(at)
        allowed = model_words(at) | set(re.findall(r"[A-Za-z]+", at.session_state["explorer.compare.text"]
                                                   if "explorer.compare.text" in at.session_state else ""))
        prose = [re.sub(r"`[^`]*`", " ", text) for text in ui_texts(at)]  # tokens are shown as code spans
        phrases = [p for text in prose for p in ENGLISH_PHRASE.findall(text)]
        assert [p for p in phrases if not set(re.findall(r"[A-Za-z]+", p)) <= allowed] == []
        assert "两个句子" in at.radio(key="explorer.compare.mode").options
