"""A sign of life on a fresh server's first visit (streamlit): its first run imports torch, loads a model and traces
a sentence before the page draws anything (7–15 s on 2 cores), and the page would stay blank meanwhile. Until a
page has run to its end in this process, app.py shows what is being prepared at once, then takes it away.

Light on purpose: app.py imports it before anything that imports torch.
"""
from __future__ import annotations

import streamlit as st

from .i18n import LANGUAGES, default_lang, text

_warm = False  # a page has run to its end in this process


def waiting():
    """On a cold process, a notice of what is being prepared, in the link's language; its placeholder (None when
    warm). The notice needs only the link: nothing that imports torch has run yet."""
    if _warm:
        return None
    lang = st.session_state.get("lang") or st.query_params.get("lang", default_lang())
    placeholder = st.empty()
    placeholder.info(text("app.warming", lang if lang in LANGUAGES else default_lang()), icon="⏳")
    return placeholder


def done(placeholder) -> None:
    """The page has run to its end: the notice goes, and the process is warm."""
    global _warm
    _warm = True
    if placeholder is not None:
        placeholder.empty()
