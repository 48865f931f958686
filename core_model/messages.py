"""Short messages: a checkpoint's faults are read in a sidebar, and a hostile file must not make them long.

A fault a user may be shown is a CodedError: its English sentence (for the command line, logs and tests),
and a stable `code` with `fields` (plain strings and numbers) from which an app says the same in the
user's own language (viz_app/errors.py, viz_app/i18n/errors.py).
"""
from __future__ import annotations

MAX_MESSAGE = 300  # characters


def shortened(text: str, limit: int = MAX_MESSAGE) -> str:
    """`text` within `limit` characters, cut with "…" (a hostile file can make any message long)."""
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def listed(names, most: int = 5) -> str:
    """The first `most` names, then "…and N more" for the rest."""
    names = [str(n) for n in names]
    shown = ", ".join(shortened(n, 40) for n in names[:most])
    return shown + (f" …and {len(names) - most:,} more" if len(names) > most else "")


class CodedError(ValueError):
    """A ValueError a user may read: the English message, and `code` + `fields` to word it in another language.

    `code` is "" for a fault no translation names; `fields` hold what the message quotes (names from a
    file already shortened), each a str or an int.
    """

    def __init__(self, message: str, code: str = "", fields: dict | None = None):
        super().__init__(shortened(str(message)))
        self.code = code
        self.fields = dict(fields or {})


def coded(error: BaseException, default: str = "") -> tuple[str, dict]:
    """The code and fields of `error` (`default` and none if it has no code): to carry them on when re-raising."""
    return getattr(error, "code", "") or default, dict(getattr(error, "fields", {}) or {})


def listed_fields(names, most: int = 5) -> dict:
    """listed()'s parts as fields: the first `most` names, and how many more there are."""
    names = [str(n) for n in names]
    return {"names": ", ".join(shortened(n, 40) for n in names[:most]), "more": max(0, len(names) - most)}
