"""The sidebar's longer text: a text area and a .txt file, for a text that fills what the model reads (lm-en: 2,048
positions, about 5,000 characters) where the one-line sentence box is awkward (a paste loses its line breaks there).

Both set the sidebar's sentence (session key "src"), which stays the one text every page reads and the link keeps
(state.publish: its fingerprint, past state.MAX_URL_TEXT characters). The area shows that sentence on every run,
whichever box changed it. A file is read within text.MAX_TXT_BYTES, as UTF-8 (text.read_txt), and what became of it
is said once, in the user's language; a refused file leaves the sentence as it was.
"""
from __future__ import annotations

import streamlit as st
from streamlit.runtime.uploaded_file_manager import DeletedFile

from .i18n import t
from .own_model import forget
from .text import MAX_TEXT_CHARS, MAX_TXT_BYTES, flatten, literal, read_txt, text_chars

AREA = "src.long"  # the text area's key
UPLOADS = "src.txt_uploads"  # files handled so far; a new uploader key after each empties the widget
SAID = "src.txt_said"  # (kind, i18n key, fields) of the last file, said once


def render(sb, model: str, tokens: int) -> None:
    """The expander under the sentence box; `tokens`: how many tokens of text `model` (its label, as Markdown) reads
    (loaders.readable)."""
    ss = st.session_state
    ss[AREA] = ss.get("src", "")  # set before the widget is drawn: the sentence, however it changed
    said = ss.pop(SAID, None)
    with sb.expander(t("long.title"), expanded=said is not None):
        st.text_area(t("long.area"), key=AREA, max_chars=MAX_TEXT_CHARS, on_change=use_area, height=160,
                     help=t("long.area.help", model=model, tokens=tokens, chars=text_chars(tokens),
                            most=MAX_TEXT_CHARS))
        key = f"src.txt_{ss.get(UPLOADS, 0)}"
        st.file_uploader(t("long.file"), type=["txt"], key=key, on_change=on_upload, args=(key,), max_upload_size=1,
                         help=t("long.file.help", kb=MAX_TXT_BYTES // 1024))
        if said:
            kind, text_key, fields = said
            {"error": st.error, "warning": st.warning}.get(kind, st.success)(t(text_key, **fields))


def use_area() -> None:
    """on_change of the area: its text, lines joined, becomes the sentence (before the sentence box is drawn)."""
    st.session_state["src"] = flatten(st.session_state.get(AREA, ""))[:MAX_TEXT_CHARS]


def on_upload(key: str) -> None:
    """on_change of the uploader: a readable file's text becomes the sentence; any file, read or not, is said, and
    the next run draws a new, empty uploader (its bytes are dropped from Streamlit's store at once)."""
    ss = st.session_state
    upload = ss.get(key)
    if upload is None:  # the file was taken out of the widget
        return
    ss[UPLOADS] = ss.get(UPLOADS, 0) + 1
    if isinstance(upload, DeletedFile):  # a client named a file the server does not hold (a crafted widget state)
        ss[SAID] = ("error", "txt.no_file", {})
        return
    if upload.size > MAX_TXT_BYTES:  # refused unread
        text, (text_key, fields) = None, ("txt.too_big", {"n": upload.size, "most": MAX_TXT_BYTES})
    else:
        text, (text_key, fields) = read_txt(upload.getvalue())
    name = literal(upload.name)
    forget(upload)
    if text is not None:
        ss["src"] = text
    kind = "success" if text_key == "txt.read" else "warning" if text is not None else "error"
    ss[SAID] = (kind, text_key, {**fields, "name": name})
