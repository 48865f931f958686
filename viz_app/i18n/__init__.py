"""Every UI string in English and Chinese.

Strings live in one module per part of the app (common.py, and one per page), each a dict
key -> {"en": ..., "zh": ...}; keys are unique across modules. `t(key)` picks the session's
language; `text(key, lang)` is the same without streamlit, for tests and figure titles.
"""
from __future__ import annotations

import importlib
import pkgutil

LANGUAGES = {"en": "English", "zh": "中文"}


def _collect() -> dict[str, dict[str, str]]:
    strings: dict[str, dict[str, str]] = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for key, value in module.STRINGS.items():
            if key in strings:
                raise KeyError(f"UI string {key!r} is defined twice (again in {info.name}.py).")
            if set(value) != set(LANGUAGES):
                raise KeyError(f"UI string {key!r} in {info.name}.py needs exactly: {', '.join(LANGUAGES)}.")
            strings[key] = value
    return strings


STRINGS = _collect()


def default_lang() -> str:
    """The language a visit opens in when its link names none: the operator's `attention-viz --lang`, else English."""
    import os

    from ..operator_settings import LANG_SETTING

    chosen = os.environ.get(LANG_SETTING, "en")
    return chosen if chosen in LANGUAGES else "en"


def text(key: str, lang: str, /, **fields) -> str:
    """The string `key` in `lang`, with {fields} filled in."""
    template = STRINGS[key][lang if lang in LANGUAGES else "en"]
    return template.format(**fields) if fields else template


def lang() -> str:
    import streamlit as st

    value = st.session_state.get("lang", "en")
    return value if value in LANGUAGES else "en"


def t(key: str, /, **fields) -> str:
    """The string `key` in the session's language."""
    return text(key, lang(), **fields)


def named(prefix: str):
    """A widget's format_func: option v is shown as t(f"{prefix}.{v}").

    Made here, not in a page: a widget keeps its format_func as long as its session, and a function
    made in a page script keeps that run's whole namespace (its traced run, its figures) alive with it.
    """
    return lambda value: t(f"{prefix}.{value}")
