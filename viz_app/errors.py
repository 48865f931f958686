"""A core_model error in the user's language: `message(e)` wherever the UI shows one.

core_model raises CodedError (CheckpointError is one): an English sentence for the command line and logs,
and a `code` with `fields`. In English the sentence itself is shown (it says most); in another language
the string "error.<code>" of viz_app/i18n/errors.py, filled with the fields. An error without a code there
is said in a generic sentence of that language with the English sentence quoted: a ValueError of ours names
what is wrong, which is better than nothing. Any other exception is shown by its type's name only (what
it says may hold the server's paths).
"""
from __future__ import annotations

from core_model.messages import shortened

from .i18n import STRINGS, lang as session_lang, text


def _plain(value: str) -> str:
    return value


def _fields(fields: dict, language: str, quote) -> dict:
    """The fields as the template takes them: names from a file quoted, a stack translated, a list's rest counted."""
    out = {k: quote(v) if isinstance(v, str) else v for k, v in fields.items()}
    if fields.get("stack") in ("encoder", "decoder"):
        out["stack"] = text(f"error.stack.{fields['stack']}", language)
    if "names" in fields:
        more = fields.get("more", 0)
        out["names"] = out["names"] + (text("error.more", language, n=more) if more else "")
    return out


def message(error: BaseException, quote=_plain, language: str | None = None) -> str:
    """What the user reads about `error`, in `language` (the session's if None). `quote` wraps whatever
    the error quotes (file names, paths, the English sentence): the caller's Markdown escaping, say."""
    language = language or session_lang()
    if not isinstance(error, ValueError):
        return text("error.unknown", language, detail=quote(type(error).__name__))
    if language == "en":
        return quote(str(error))
    key = f"error.{getattr(error, 'code', '')}"
    if key in STRINGS:
        try:
            return text(key, language, **_fields(getattr(error, "fields", {}), language, quote))
        except (KeyError, IndexError, ValueError, TypeError):  # fields that do not fit: a bug, said generically
            pass
    return text("error.unknown", language, detail=quote(shortened(str(error))))
