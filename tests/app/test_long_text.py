"""Long texts from the UI (issue "In front of a class", item 8): typed, pasted in the longer-text area or read from
a .txt file, a text reaches what the model reads (lm-en: 2,048 positions), and the link keeps its fingerprint, which
opens the same text in another session on this server, or says it is gone."""
import pytest

from tests.app.conftest import assert_clean, open_link, open_page
from tests.app.test_long_input import WORDS
from viz_app import loaders, text_store
from viz_app.examples import EXAMPLES
from viz_app.i18n import text
from viz_app.loaders import DEFAULT_MODEL
from viz_app.text import MAX_TEXT_CHARS, MAX_TXT_BYTES
from viz_app.text_store import DIGEST_HEX

LONG = "the small girl does not see the red car . " * 60  # 2,520 characters: over 2,000, and over a link's 1,000


def messages(at, kind: str = "warning") -> list[str]:
    return [e.value for e in at.get(kind)]


def link(at) -> dict[str, str]:
    return {k: v if isinstance(v, str) else v[-1] for k, v in at.query_params.items()}


def upload(at, name: str, data: bytes):
    """The sidebar's .txt uploader (the last file uploader there: the own-model zip comes first) given a file."""
    at.sidebar.file_uploader[-1].set_value((name, data, "text/plain"))
    return at.run()


def test_a_text_over_2000_characters_typed_in_the_sentence_box_is_kept_whole():
    at = open_page("tokens")
    at.sidebar.text_input(key="src").input(LONG).run()
    assert_clean(at)
    assert at.session_state["src"] == LONG  # the box took 2,000 characters before


def test_a_text_of_lm_ens_2048_positions_pasted_with_its_lines_reaches_them_all():
    one_line = " ".join([WORDS.strip()] * 60)  # 7,559 characters, 2,220 tokens
    n = len(loaders.load_model("lm-en").tokenizers["tgt"].encode(one_line))
    assert n > 2048
    at = open_page("overview", timeout=300, model="lm-en")
    at.sidebar.text_area(key="src.long").input(one_line.replace(" the dog runs", "\nthe dog runs")).run()
    assert_clean(at)
    assert at.session_state["src"] == one_line  # the lines joined by spaces
    assert text("input.truncated", "en", n=n, keep=2027) in messages(at)  # <s> + 2,027: all 2,048 but the room
    assert at.sidebar.text_area(key="src.long").value == at.session_state["src"]  # the area shows the sentence


def test_a_txt_file_sets_the_text_and_says_so():
    at = upload(open_page("tokens"), "lesson.txt", "\ufeffthe old man\nsees the car\n".encode())
    assert_clean(at)
    assert at.session_state["src"] == "the old man sees the car"
    assert text("txt.read", "en", name="`lesson.txt`", n=24) in messages(at.sidebar, "success")
    assert link(at)["src"] == "the old man sees the car"


BAD = {"empty": (b"", "txt.empty", {}), "blank": (b"  \r\n\t", "txt.empty", {}),
       "latin-1": ("très bien".encode("latin-1"), "txt.not_utf8", {"at": 2}),
       "binary": (b"\x7fELF\x02\x01\x01\x00\x00\x00" * 50, "txt.binary", {}),
       "oversize": (b"the cat " * (MAX_TXT_BYTES // 8) + b"x", "txt.too_big", {"n": MAX_TXT_BYTES + 1,
                                                                               "most": MAX_TXT_BYTES})}


def test_a_bad_txt_file_is_said_and_the_text_kept():
    at = open_page("tokens", src="i see him")
    for case, (data, key, fields) in BAD.items():  # one session, one file after another
        at = upload(at, "notes.txt", data)
        assert_clean(at)
        assert at.session_state["src"] == "i see him", case
        assert messages(at.sidebar, "error") == [text(key, "en", name="`notes.txt`", **fields)], case
        assert not at.sidebar.file_uploader[-1].value  # a new, empty uploader for the next file


def test_a_bad_txt_file_is_said_in_chinese():
    at = upload(open_page("tokens", lang="zh", src="i see him"), "笔记.txt", b"\xff\xfe\x00t\x00e")
    assert messages(at.sidebar, "error") == [text("txt.not_utf8", "zh", name="`笔记.txt`", at=0)]


def test_the_link_of_a_long_text_holds_its_fingerprint_not_the_text():
    at = open_page("tokens", src=LONG)
    assert_clean(at)
    params = link(at)
    assert "src" not in params and len(params["src.sha"]) == DIGEST_HEX
    assert all(len(v) < 100 for v in params.values())
    assert text("input.fingerprint", "en", n=1000) in [c.value for c in at.sidebar.caption]
    at.sidebar.text_input(key="src").input("i see him").run()  # a short text again: in the link, as it is
    assert link(at)["src"] == "i see him" and "src.sha" not in link(at)
    assert text("input.fingerprint", "en", n=1000) not in [c.value for c in at.sidebar.caption]


def test_a_new_session_opened_by_that_link_gets_the_same_text():
    first = open_page("tokens", src=LONG + "mine")
    second = open_link("tokens", **link(first))
    assert_clean(second)
    assert second.session_state["src"] == LONG + "mine"
    assert not [m for m in messages(second) if "link" in m]
    assert link(second)["src.sha"] == link(first)["src.sha"]


@pytest.mark.parametrize("sha", ["0" * DIGEST_HEX, "../../etc/passwd", "f" * 5000])  # 5,000: held (hold_long_link)
def test_a_fingerprint_this_server_does_not_keep_is_said_and_the_default_sentence_shown(sha):
    at = open_link("tokens", **{"src.sha": sha})
    assert_clean(at)
    assert at.session_state["src"] == EXAMPLES[DEFAULT_MODEL]
    shown = messages(at)
    if len(sha) == DIGEST_HEX:  # a fingerprint, of a text this server does not have (any more)
        assert text("link.text_gone", "en") in shown
    else:
        assert any(m.startswith("The link asked for `src.sha = ") for m in shown)
    assert link(at)["src"] == EXAMPLES[DEFAULT_MODEL] and "src.sha" not in link(at)


def test_a_text_pushed_out_of_the_store_is_said_gone(monkeypatch):
    """The app's store holds its count: with room for two, a third long text pushes out the first one's."""
    monkeypatch.setattr(text_store.STORE, "max_texts", 2)
    links = [link(open_page("tokens", src=f"{i} {LONG}")) for i in range(3)]
    assert len(text_store.STORE) <= 2
    gone, kept = open_link("tokens", **links[0]), open_link("tokens", **links[2])
    assert text("link.text_gone", "en") in messages(gone) and gone.session_state["src"] == EXAMPLES[DEFAULT_MODEL]
    assert kept.session_state["src"] == f"2 {LONG}"


def test_a_text_over_what_a_box_takes_is_cut_and_said():
    at = open_page("tokens", src="the cat sees the dog " * 5000)
    assert_clean(at)
    assert len(at.session_state["src"]) == MAX_TEXT_CHARS
    assert text("input.chars_cut", "en", n=105_000, keep=MAX_TEXT_CHARS) in messages(at)
    assert len(link(at)["src.sha"]) == DIGEST_HEX  # what is kept is linked
