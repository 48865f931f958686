"""Long texts kept for links: a link holds a text over state.MAX_URL_TEXT characters by its fingerprint, and this
server keeps the text, in one store for every session, bounded in count and in bytes (the least recently used out).

A link opened again on this server (another tab, a student's browser) finds the text; after a restart, or once newer
texts pushed it out, the page says the text is gone. The fingerprint is an HMAC-SHA256 of the text under a secret
made when the process starts, not a plain hash: a visitor cannot compute the fingerprint of a text they guess and
open it to learn whether somebody else typed it (a visitor's text is theirs: loaders/scope.py). Only a link someone
was given opens a text.

Plain Python (no streamlit): state.py keeps the store and reads it.
"""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
from collections import OrderedDict

from .text import MAX_TEXT_CHARS

DIGEST_HEX = 20  # 80 bits of the HMAC: no two texts a server keeps share one, and none can be guessed
MAX_TEXTS = 256  # a class of 60 with a few long texts each
MAX_BYTES = 16 * 2**20  # their UTF-8 bytes together: 128 lm-en-filling texts of MAX_TEXT_CHARS characters at least
HEX = re.compile(f"[0-9a-f]{{{DIGEST_HEX}}}")


class TextStore:
    """Texts by fingerprint, at most `max_texts` of them and `max_bytes` of UTF-8 together; a text over `max_chars`
    characters (what a text box takes) is not kept and has no fingerprint. Safe to share between sessions' threads."""

    def __init__(self, max_texts: int = MAX_TEXTS, max_bytes: int = MAX_BYTES, max_chars: int = MAX_TEXT_CHARS):
        self.max_texts, self.max_bytes, self.max_chars = max_texts, max_bytes, max_chars
        self._secret = secrets.token_bytes(32)
        self._texts: OrderedDict[str, tuple[str, int]] = OrderedDict()  # fingerprint → (text, bytes), oldest first
        self._lock = threading.Lock()

    def fingerprint(self, text: str) -> str:
        return hmac.new(self._secret, text.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:DIGEST_HEX]

    def fits(self, text: str) -> bool:
        """Whether `text` is short enough to be kept (one text's bound: at most 4 UTF-8 bytes a character)."""
        return len(text) <= self.max_chars

    def put(self, text: str) -> str | None:
        """Keep `text` (as the most recently used) and return its fingerprint; None for a text over max_chars."""
        if not self.fits(text):
            return None
        key, size = self.fingerprint(text), len(text.encode("utf-8", "surrogatepass"))
        with self._lock:
            self._texts[key] = (text, size)
            self._texts.move_to_end(key)
            total = sum(n for _, n in self._texts.values())
            while len(self._texts) > self.max_texts or total > self.max_bytes:
                total -= self._texts.popitem(last=False)[1][1]
        return key

    def get(self, key: str) -> str | None:
        """The text of fingerprint `key`, or None: not DIGEST_HEX lowercase hex digits, or not kept (any more)."""
        if not isinstance(key, str) or not HEX.fullmatch(key):
            return None
        with self._lock:
            found = self._texts.get(key)
            if found is not None:
                self._texts.move_to_end(key)
        return found[0] if found else None

    @staticmethod
    def well_formed(key) -> bool:
        return isinstance(key, str) and HEX.fullmatch(key) is not None

    @property
    def nbytes(self) -> int:
        with self._lock:
            return sum(n for _, n in self._texts.values())

    def __len__(self) -> int:
        return len(self._texts)

    def clear(self) -> None:
        with self._lock:
            self._texts.clear()


STORE = TextStore()  # the server's: every session's long texts
