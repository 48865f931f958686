"""Odd text and odd links: every page answers with a message, never a traceback."""
import re

import pytest

from viz_app.registry import NAMES
from tests.app.conftest import assert_clean, open_link, open_page, rendered, shown
from viz_app import loaders, sidebar
from viz_app.i18n import text
from viz_app.text import MAX_TEXT_CHARS, normalised

PAGE_NAMES = list(NAMES)
NEEDS_SENTENCE = [p for p in PAGE_NAMES if p not in ("positional", "worked_example", "masks")]  # those have their own input
CASES = {
    "html": "<script>alert(1)</script> <img src=x onerror=alert(2)> the cat",
    "huge": "the cat sees the dog " * 5000,
    "control": "the\x00 cat\x07 sees\x1b the dog",
    "surrogate": "the cat \ud800 sees the dog",
    "cjk_emoji_rtl": "猫 👩‍👩‍👧 שלום e\u0301 the cat",
    "unknown": "zyxw qqq vvvv",
}


def page_messages(at) -> str:
    return " ".join(shown(e.value) for kind in ("info", "warning", "error") for e in at.get(kind))


@pytest.mark.parametrize("page", NEEDS_SENTENCE)
@pytest.mark.parametrize("blank", ["", "  \t "])
def test_blank_sentence_asks_for_one(page, blank):
    at = open_page(page, src=blank)
    assert_clean(at)
    assert text("input.empty", "en") in page_messages(at)


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("page", PAGE_NAMES)
def test_odd_text_still_draws_the_page(page, case):
    at = open_page(page, src=CASES[case])
    assert_clean(at)
    # The text is cleaned or cut and the page goes on: its charts are drawn, not replaced by a stop.
    assert at.get("plotly_chart") or at.get("graphviz_chart")
    assert text("input.empty", "en") not in page_messages(at)


@pytest.mark.parametrize("case, key", [("huge", "input.truncated"), ("control", "input.control"),
                                       ("surrogate", "input.surrogate"), ("unknown", "input.unseen")])
def test_odd_text_is_explained(case, key):
    at = open_page("overview", src=CASES[case])
    expected = text(key, "en").split("{")[0]
    assert expected in page_messages(at)


def test_html_is_shown_as_text():
    at = open_page("overview", src=CASES["html"])
    assert CASES["html"] in [t.value for t in at.text]
    assert not at.get("html")  # nothing was handed to the browser as markup


def test_a_link_reopens_the_same_view():
    at = open_link("explorer", model="translate-en-fr", src="i see him", layer="1", head="2", lang="zh")
    assert_clean(at)
    assert at.session_state["src"] == "i see him"
    assert (at.session_state["layer"], at.session_state["head"], at.session_state["lang"]) == (1, 2, "zh")
    assert loaders.run("translate-en-fr", "i see him").src_labels  # the page traced that sentence


@pytest.mark.parametrize("params, key", [({"model": "no-such-model"}, "model"), ({"layer": "99"}, "layer"),
                                         ({"head": "-3"}, "head"), ({"head": "two"}, "head"),
                                         ({"lang": "klingon"}, "lang")])
def test_a_bad_link_says_what_it_could_not_show(params, key):
    at = open_link("overview", **params)
    assert_clean(at)
    assert f"{key} = {params[key]}" in page_messages(at)
    assert at.get("plotly_chart") or at.get("graphviz_chart")  # and the page still works


# ----- text the models never saw: other scripts, marks, emoji ----------------------------------

UNICODE = {
    "combining mark": "e\u0301",
    "stacked marks": "a\u0301\u0302\u0303\u0304\u0305\u0306\u0307\u0308",
    "hebrew": "שלום עולם",
    "arabic": "مرحبا بالعالم",
    "emoji zwj": "👩\u200d👩\u200d👧\u200d👦 👨🏽\u200d💻",
    "flags": "🇫🇷🇯🇵🇺🇳",
    "cjk only": "我爱猫。日本語",
}


def table_text(pieces) -> str:
    """The tokens table's pieces read back: ▁ as a space, a byte piece <E6> as that byte."""
    data = b"".join(bytes.fromhex(p[1:-1]) if re.fullmatch(r"<[0-9A-F]{2}>", p) else p.replace("▁", " ").encode()
                    for p in pieces)
    return data.decode("utf-8")


@pytest.mark.parametrize("case", sorted(UNICODE))
def test_unseen_scripts_and_emoji_are_shown_byte_by_byte_and_named(case):
    typed = UNICODE[case]
    read = normalised(typed)[0]  # as the shipped translator's training text is written ("。" taken out)
    at = open_page("tokens", src=typed)
    assert_clean(at)
    pieces = list(at.dataframe[0].value[text("tokens.col.piece", "en")])
    assert table_text(pieces).split() == read.split()  # every character is in the table, in order, none merged
    message = page_messages(at)
    assert text("input.unseen", "en").split("{")[0] in message
    assert all(word in message for word in read.split())
    assert at.get("plotly_chart")


@pytest.mark.parametrize("typed, named", [("\u200b\u200b", "U+200BU+200B"),  # zero-width spaces only
                                          ("\u202eevil\u202c", "U+202EevilU+202C"),  # right-to-left override
                                          ("\u0301", "\u25cc\u0301")])  # a combining mark with nothing under it
def test_invisible_characters_are_named_in_the_message(typed, named):
    at = open_page("overview", src=typed)
    assert_clean(at)
    assert named in page_messages(at)


def test_text_of_control_characters_only_says_nothing_is_left():
    at = open_page("overview", src="\x00\x01\x07")
    assert_clean(at)
    assert page_messages(at) == text("input.unreadable", "en")


@pytest.mark.parametrize("model", ["translate-en-fr", "lm-en", "reverse"])
def test_the_longest_text_that_fits_is_shown_whole_and_one_token_more_is_cut_and_said(model):
    loaded = loaders.load_model(model)
    cfg = loaded.config
    tokenizer = loaded.tokenizers["src" if cfg.has_encoder else "tgt"]
    limit = loaders.readable(cfg)  # a decoder reads <s> first; a decoder-only model keeps room to continue
    word = next(w for w in sidebar.EXAMPLES[model].split() if len(tokenizer.encode(w)) == 1)
    for n in (limit, limit + 1):
        typed = " ".join([word] * n)
        assert len(tokenizer.encode(typed)) == n
        at = open_page("tokens", model=model, src=typed)
        assert_clean(at)
        rows = len(at.dataframe[0].value) - (not cfg.has_encoder)  # a decoder-only table starts with <s>
        assert rows == limit
        messages = page_messages(at)
        assert (text("input.truncated", "en", n=n, keep=limit) in messages) == (n > limit)
        if not cfg.has_encoder:  # the longest prompt still leaves the model room to continue it
            assert limit == cfg.positions - 1 - loaders.LM_NEW_TOKENS
            assert text("input.no_room", "en", max_len=cfg.positions) not in messages
            assert loaders.continuation(model, typed)


def test_a_100k_character_sentence_is_cut_to_what_a_box_takes_then_to_the_model_and_says_by_how_much():
    tokenizer = loaders.load_model(loaders.DEFAULT_MODEL).tokenizers["src"]
    n = len(tokenizer.encode(normalised(CASES["huge"][:MAX_TEXT_CHARS])[0]))  # as the shipped model's training text
    keep = loaders.readable(loaders.load_model(loaders.DEFAULT_MODEL).config)
    at = open_page("tokens", src=CASES["huge"])
    assert_clean(at)
    assert text("input.chars_cut", "en", n=len(CASES["huge"]), keep=MAX_TEXT_CHARS) in page_messages(at)
    assert text("input.truncated", "en", n=n, keep=keep) in page_messages(at)
    assert len(at.dataframe[0].value) == keep


# ----- links: every key a page keeps in the URL, given garbage ----------------------------------

CONFIG = loaders.load_model(loaders.DEFAULT_MODEL).config
# (page, key, bad value, what the page uses instead; None where that depends on the sentence)
LINK_CASES = [
    *[("tokens", "tokens.k", v, 5) for v in ("0", "-1", "99999999999999999999999", "abc")],
    ("self_attention", "self_attention.kind", "<b>x</b>", "encoder.self_attn"),
    ("self_attention", "self_attention.unscaled", "maybe", False),
    *[("self_attention", "self_attention.query", v, 0) for v in ("-1", "99999999999999999999999", "abc")],
    ("masks", "masks.block", "decoder.nothing", "encoder.self_attn"),
    ("masks", "masks.no_pad_mask", "2", False),
    *[("masks", "masks.row", v, None) for v in ("-1", "99", "abc")],
    *[("positional", "positional.d_model", v, 128) for v in ("-16", "100", "1e309")],
    ("positional", "positional.length", "99999999999999999999999", 100),
    ("positional", "positional.base", "7", 10000),
    *[("positional", "positional.dims", v, [0, 1, 8, 16]) for v in ("-1", "[999]", "x,y", "3,3")],
    ("ffn_norm", "ffn_norm.stack", "middle", "encoder"),
    *[("ffn_norm", "ffn_norm.token", v, 0) for v in ("-1", "999", "abc")],
    ("explorer", "explorer.kind", "decoder.nothing", "encoder.self_attn"),
    ("explorer", "explorer.average", "yes please", False),
    *[("explorer", "explorer.top_k", v, 0) for v in ("-1", "99999999999999999999999", "abc")],
    *[("explorer", "explorer.threshold", v, 0.0) for v in ("nan", "inf", "-1", "abc")],
    *[("explorer", "explorer.window", v, None) for v in ("(5,1)", "(0,999)", "abc")],
    ("explorer", "explorer.stat", "<script>", None),
    ("explorer", "explorer.compare", "maybe", False),  # said, though the page's own settings come before them
    ("explorer", "explorer.qk", "maybe", False),
    ("positional", "positional.encodings", "maybe", False),
    *[("attribution", "attribution.output", v, None) for v in ("999", "abc")],
    ("decoding", "decoding.method", "telepathy", "greedy"),
    *[("decoding", "decoding.step", v, 0) for v in ("-1", "abc")],
    *[("decoding", "decoding.width", v, 4) for v in ("0", "-1", "99999999999999999999999", "abc")],
    *[("decoding", "decoding.alpha", v, 0.6) for v in ("-1", "2.5", "nan", "abc")],
    *[("decoding", f"decoding.{k}", v, d) for k, d in (("temperature", 1.0), ("top_k", 10), ("top_p", 0.8), ("seed", 0))
      for v in ("-1", "99999999999999999999999", "nan", "abc")],
    *[("decoding", "knockout.heads", v, []) for v in ("[('encoder.self_attn', 9, 9)]", "[('x', 0, 0, 0)]",
                                                     "__import__('os')", "[(1, 2, 3)]", "rm -rf /", "[" * 60)],
    ("decoding", "knockout.sweep", "maybe", False),
    ("worked_example", "worked_example.causal", "perhaps", False),
    *[("training", "training.warmup", v, 4000) for v in ("0", "123", "abc", "nan")],
    *[("training", "training.d_model", v, 512) for v in ("-1", "99999999999999999999999", "abc")],
    *[("training", "training.eps", v, 0.1) for v in ("nan", "-1", "0.15", "abc")],
    *[("training", "training.position", v, 0) for v in ("-1", "999", "abc")],
    *[("overview", k, v, 0) for k in ("layer", "head") for v in ("-1", "1.5", "")],
    ("overview", "layer", "99999999999999999999999", max(CONFIG.n_encoder_layers, CONFIG.n_decoder_layers) - 1),
    ("overview", "head", "99999999999999999999999", CONFIG.n_heads - 1),  # too high: the last one
    ("overview", "model", "", loaders.DEFAULT_MODEL),
    ("overview", "lang", "", "en"),
]
METHOD_OF = {"width": "beam", "alpha": "beam", "temperature": "sample", "top_k": "sample", "top_p": "sample",
             "seed": "sample"}


@pytest.mark.parametrize("page, key, value, instead", LINK_CASES)
def test_a_link_value_a_page_cannot_use_is_named_and_replaced(page, key, value, instead):
    method = METHOD_OF.get(key.removeprefix("decoding."))
    at = open_link(page, **{key: value}, **({"decoding.method": method} if method else {}))
    assert_clean(at)
    assert f"The link asked for {key} = {value}," in page_messages(at)
    if instead is not None:
        assert at.session_state[key] == instead
    assert at.get("plotly_chart") or at.get("graphviz_chart")  # and the page still works


def test_a_link_naming_one_dimension_fifty_thousand_times_is_said_cut_and_draws_the_default():
    """A 100 KB link value (issue 37: 55 MB sent, 27-50 s an open) is refused as a whole, its start said."""
    value = ",".join(["0"] * 50_000)
    at = open_link("positional", **{"positional.dims": value})
    assert_clean(at)
    assert f"The link asked for positional.dims = {value[:80]}," in page_messages(at)
    assert at.multiselect(key="positional.dims").value == [0, 1, 8, 16]


def test_a_link_value_is_said_once_on_its_own_page_and_not_on_the_next():
    at = open_link("explorer", **{"explorer.average": "yes please"})
    assert "explorer.average = yes please" in page_messages(at)
    at.switch_page("app_pages/tokens.py").run()
    assert_clean(at)
    assert "The link asked for" not in page_messages(at)


def test_markup_in_a_link_or_a_sentence_stays_text_and_fetches_nothing():
    image = "![x](http://evil.example/p.png)"
    # (the sentence is normalised for the shipped translator, its punctuation taken out; the teacher-forcing target,
    # French, is read as typed)
    at = open_link("overview", head=image, src=f"the cat {image}", tgt=f"le chat {image}")
    assert_clean(at)
    assert not [w.value for w in at.warning if re.search(r"<img|<a ", rendered(w.value))]
    messages = page_messages(at)
    assert f"head = {image}," in messages  # the link's value, as written
    assert text("input.unknown", "en").split("{")[0] in messages and image in messages  # the typed word, as typed


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_odd_teacher_forcing_target_is_cleaned_cut_or_named_too(case):
    at = open_page("explorer", src="i see him", tgt=CASES[case])
    assert_clean(at)
    assert at.get("plotly_chart")
    said = {"huge": "input.truncated", "control": "input.control", "surrogate": "input.surrogate",
            "unknown": "input.unknown"}.get(case)
    if said:
        assert text(said, "en").split("{")[0] in page_messages(at)


def test_a_sentence_too_long_for_a_link_is_kept_here_and_the_link_said_to_hold_its_fingerprint():
    at = open_page("overview", src=CASES["huge"][:5000])
    assert_clean(at)
    assert "src" not in at.query_params and "src.sha" in at.query_params  # browsers and servers cap a URL's length
    assert at.session_state["src"] == CASES["huge"][:5000]
    assert text("input.fingerprint", "en", n=1000) in [c.value for c in at.sidebar.caption]
    short = open_page("overview", src="i see him")
    assert short.query_params["src"] == "i see him"
    assert text("input.fingerprint", "en", n=1000) not in [c.value for c in short.sidebar.caption]
