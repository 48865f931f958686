"""Short messages: a checkpoint's faults are read in a sidebar, and a hostile file must not make them long."""
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
