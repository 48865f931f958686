"""Odd text and odd links: every page answers with a message, never a traceback."""
import pytest
from streamlit.testing.v1 import AppTest

from app import PAGES
from tests.app.conftest import APP, assert_clean, open_page
from viz_app import loaders
from viz_app.i18n import text

PAGE_NAMES = [path.split("/")[1][:-3] for path, _, _ in PAGES]
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
    return " ".join(e.value for kind in ("info", "warning", "error") for e in at.get(kind))


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
                                       ("surrogate", "input.surrogate"), ("unknown", "input.unknown")])
def test_odd_text_is_explained(case, key):
    at = open_page("overview", src=CASES[case])
    expected = text(key, "en").split("{")[0]
    assert expected in page_messages(at)


def test_html_is_shown_as_text():
    at = open_page("overview", src=CASES["html"])
    assert CASES["html"] in [t.value for t in at.text]
    assert not at.get("html")  # nothing was handed to the browser as markup


def open_link(page: str, **params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(params)
    at.switch_page(f"app_pages/{page}.py")
    return at.run()


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
