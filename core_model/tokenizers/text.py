"""What several tokenizer kinds share about text itself: the input check, sentencepiece's space mark and byte
pieces, labels for stray bytes, and which word each token's bytes fall in."""
from __future__ import annotations

import re

META = "\u2581"  # "▁", sentencepiece's stand-in for a space
BYTE_PIECE = re.compile(r"<0x([0-9A-F]{2})>")  # a byte-fallback piece as sentencepiece spells it


def checked_text(text: str, what: str) -> str:
    """`text` itself, or a ValueError if it is not a str that UTF-8 can encode."""
    if not isinstance(text, str):
        raise ValueError(f"{what} is a {type(text).__name__}, not a str.")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ValueError(
            f"{what} has a lone surrogate ({text[err.start]!r} at character {err.start}), "
            "which is not a Unicode character and cannot be tokenized."
        ) from None
    return text


def visible(text: str, keep_space: bool) -> str:
    """`text` (decoded with surrogateescape) with each stray byte as `<XX>`; unless `keep_space`, a space
    as ▁ and every other whitespace or control character as the labels of its UTF-8 bytes (a newline: <0A>)."""
    out = []
    for char in text:
        if "\udc80" <= char <= "\udcff":
            out.append(f"<{ord(char) - 0xDC00:02X}>")
        elif keep_space:
            out.append(char)
        elif char == " ":
            out.append(META)
        elif char.isspace() or not char.isprintable():
            out.append("".join(f"<{b:02X}>" for b in char.encode("utf-8")))
        else:
            out.append(char)
    return "".join(out)


def chunk_words(chunks: list[bytes]) -> list[int]:
    """For each token's bytes, the str.split() index of the word its first non-space byte is in, or -1."""
    # Work on bytes, since a byte piece can be a fraction of a character: rebuild the text the
    # tokens spell, give each byte the index of the word it is in, then give each token the word
    # of its first non-space byte. "Word" is str.split()'s: tabs and newlines separate.
    byte_words = _byte_word_indices(b"".join(chunks))
    result, start = [], 0
    for chunk in chunks:
        words = [w for w in byte_words[start : start + len(chunk)] if w >= 0]
        result.append(words[0] if words else -1)
        start += len(chunk)
    return result


def _byte_word_indices(data: bytes) -> list[int]:
    """For each byte of `data`, the str.split() index of the word it is in, or -1 for whitespace."""
    # surrogateescape keeps one character per invalid byte, so byte offsets stay countable.
    result, word, in_word = [], -1, False
    for char in data.decode("utf-8", errors="surrogateescape"):
        escaped = "\udc80" <= char <= "\udcff"
        n_bytes = 1 if escaped else len(char.encode("utf-8"))
        if char.isspace():
            in_word = False
            result += [-1] * n_bytes
            continue
        if not in_word:
            word, in_word = word + 1, True
        result += [word] * n_bytes
    return result
