"""Text in and out: cleaning typed text and making it ready for a tokenizer, token labels, and escaping for
Markdown and plotly.

Plain Python (no streamlit, plotly or torch): loaders, views, figures and pages all use it.
"""
from __future__ import annotations

import html
import difflib
import re
import unicodedata
from dataclasses import dataclass


# The most characters a text box takes (the sidebar's sentence, its longer text, a .txt file): 8 for each of 4,096
# tokens, room for the longest text the shipped models read (lm-en: 2,027 tokens, about 5,100 characters of English)
# and an operator's model of 4,096 positions. Tokenizing that many takes 10-50 ms; the run is cut to what the model
# reads (prepare), and the cut is said.
CHARS_PER_TOKEN = 8
MAX_TEXT_CHARS = CHARS_PER_TOKEN * 4096
MAX_TXT_BYTES = 256 * 1024  # a .txt file read at most: 4 bytes a character (UTF-8) for every character a box takes, x2
LINE_BREAKS = re.compile(r"\s*[\t\n\v\f\r\x1c-\x1e\x85\u2028\u2029]\s*")


def text_chars(tokens: int) -> int:
    """About how many characters a model that reads `tokens` tokens needs, within MAX_TEXT_CHARS."""
    return min(MAX_TEXT_CHARS, CHARS_PER_TOKEN * tokens)


def flatten(text: str) -> str:
    """Lines and tabs joined by one space: a pasted or uploaded text as one line (clean would drop a line break,
    gluing the words on either side)."""
    return LINE_BREAKS.sub(" ", text).strip()


def read_txt(data: bytes) -> tuple[str | None, tuple[str, dict]]:
    """A .txt file's text, flattened and within MAX_TEXT_CHARS, and what to tell the user (i18n key, fields); the
    text is None where the file is refused: over MAX_TXT_BYTES, not UTF-8, binary, or empty."""
    if len(data) > MAX_TXT_BYTES:
        return None, ("txt.too_big", {"n": len(data), "most": MAX_TXT_BYTES})
    try:
        text = data.decode("utf-8-sig")  # a byte-order mark first is no character of the text
    except UnicodeDecodeError as error:
        return None, ("txt.not_utf8", {"at": error.start})
    controls = sum(unicodedata.category(c) == "Cc" and c not in "\t\n\v\f\r" for c in text)
    if "\x00" in text or controls > len(text) // 100:
        return None, ("txt.binary", {})
    text = flatten(text)
    if not text:
        return None, ("txt.empty", {})
    if len(text) > MAX_TEXT_CHARS:
        return text[:MAX_TEXT_CHARS], ("txt.cut", {"n": len(text), "keep": MAX_TEXT_CHARS})
    return text, ("txt.read", {"n": len(text)})


def clean(text: str) -> tuple[str, list[tuple[str, dict]]]:
    """Remove what no tokenizer can take (lone surrogates) or should see (control characters)."""
    notices = []
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        text = "".join(c for c in text if not 0xD800 <= ord(c) <= 0xDFFF)
        notices.append(("input.surrogate", {}))
    kept = "".join(c for c in text if unicodedata.category(c) != "Cc" or c in " ")
    if kept != text:
        notices.append(("input.control", {}))
    return kept, notices


INVISIBLE = {0x200B, 0x200E, 0x200F, 0x2060, 0xFEFF, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}


def visible(word: str, limit: int = 40) -> str:
    """A word as a message can show it: cut to `limit` characters, zero-width and direction characters
    as U+XXXX, a leading combining mark on a dotted circle (alone, it would sit on the text before it)."""
    cut = word[:limit] + "…" if len(word) > limit else word
    shown = "".join(f"U+{ord(c):04X}" if ord(c) in INVISIBLE else c for c in cut)
    return "\u25cc" + shown if shown and unicodedata.combining(shown[0]) else shown


@dataclass(frozen=True)
class Prepared:
    """Text made ready for a tokenizer: the ids, and what the page should tell the user."""
    ids: tuple[int, ...]
    notices: tuple[tuple[str, dict], ...]  # (i18n key, fields)


def unfamiliar_words(tokenizer, ids, words: list[str]) -> list[str]:
    """Words the tokenizer has no piece for: it fell back to bytes, <unk>, or one letter at a time."""
    pieces_of: dict[int, list[tuple[int, str]]] = {}
    for w, i in zip(tokenizer.word_ids(list(ids)), ids):
        if 0 <= w < len(words):
            pieces_of.setdefault(w, []).append((i, tokenizer.id_to_piece(i).lstrip("▁")))
    return sorted({words[w] for w, pieces in pieces_of.items()
                   if any(i == tokenizer.unk_id or p.startswith("<0x") for i, p in pieces)
                   or (len(pieces) > 1 and all(len(p) <= 1 for _, p in pieces))})


CONTRACTION = re.compile(r"n[’']t\b")  # "doesn't": the shipped models read "does not"


def normalised(text: str) -> tuple[str, list[tuple[str, dict]]]:
    """`text` as the shipped models' training text is written (lower case, no punctuation, "n't" as " not", one
    space between words), and a notice of each kind of change made."""
    notices = []
    if text != text.lower():
        text = text.lower()
        notices.append(("input.lowered", {}))
    if CONTRACTION.search(text):
        text = CONTRACTION.sub(" not", text)
        notices.append(("input.contraction", {}))
    marks = sorted({c for c in text if unicodedata.category(c).startswith("P")})
    if marks:
        text = "".join(" " if c in marks else c for c in text)
        notices.append(("input.punctuation", {"marks": " ".join(marks)}))
    return " ".join(text.split()), notices


def unknown_in(text: str, known: frozenset[str]) -> list[str]:
    """The words of `text` (normalised) outside `known`, each once, in the order they come."""
    return list(dict.fromkeys(w for w in text.split() if w not in known))


def nearest(word: str, known: frozenset[str], n: int = 3) -> list[str]:
    """Up to n words of `known` spelt most like `word` (difflib's ratio, at least 0.6): a typo's likely meaning."""
    return difflib.get_close_matches(word, sorted(known), n=n, cutoff=0.6)


def replaced(text: str, word: str, by: str) -> str:
    """The normalised `text` with every `word` in it replaced by `by`."""
    return " ".join(by if w == word else w for w in normalised(clean(text)[0])[0].split())


def quoted(words) -> str:
    """Words listed for a message, each in quotes: "grandmother," listed bare read "grandmother,, my"."""
    return ", ".join(f"“{visible(w)}”" for w in words)


def prepare(tokenizer, text: str, max_tokens: int, known: frozenset[str] | None = None) -> Prepared:
    """Tokenize `text`, cut to `max_tokens`, and note removed characters, truncation, unknown words.

    With `known` (a shipped model's training words), the text is first written as that training text is
    (normalised: the change is noted) and a word outside `known` is unknown; otherwise a word the tokenizer had
    no piece for. The text is framed as its tokenizer says (tokenizer.frame: BERT's [CLS] … [SEP], BART's <s> …
    </s>, Marian's … </s>), within max_tokens.
    """
    text, notices = clean(text)
    if known is not None:
        text, changes = normalised(text)
        notices += changes
    frame = len(tokenizer.frame([]))
    ids = tokenizer.encode(text)
    if len(ids) + frame > max_tokens:
        notices.append(("input.truncated", {"n": len(ids) + frame, "keep": max_tokens}))
        ids = ids[:max_tokens - frame]
    unknown = unfamiliar_words(tokenizer, ids, text.split()) if known is None else unknown_in(text, known)
    if unknown:
        notices.append(("input.unknown" if known is None else "input.unseen", {"words": quoted(unknown[:20])}))
    if frame and ids:
        ids = tokenizer.frame(ids)
    return Prepared(tuple(ids), tuple(notices))


def shortened(sentence: str, limit: int = 80) -> str:
    """A sentence cut to at most `limit` characters at a space, with "…" where words were left out."""
    if len(sentence) <= limit:
        return sentence
    cut = sentence[:limit].rsplit(" ", 1)[0] if " " in sentence[:limit] else sentence[:limit]
    return cut + " …"


def show_piece(piece: str) -> str:
    """A display piece without its word-start mark ▁ (a lone ▁, a space, stays as it is)."""
    return piece[1:] if piece.startswith("▁") and len(piece) > 1 else piece


def position_labels(pieces) -> tuple[str, ...]:
    """'3·the': position and piece (its word mark ▁ dropped), so repeated tokens stay distinct on an axis."""
    return tuple(f"{i}·{show_piece(p)}" for i, p in enumerate(pieces))


def token_labels(tokenizer, ids) -> tuple[str, ...]:
    """position_labels of the tokenizer's display pieces of `ids`."""
    return position_labels(tokenizer.display_pieces(list(ids)))


def piece(tokenizer, i: int) -> str:
    """A token as a reader sees it: sentencepiece's word mark ▁ dropped, byte pieces as <E4>."""
    return show_piece(tokenizer.display_pieces([i])[0])


def plain(text) -> str:
    """Text as plotly shows it literally: '&', '<' and '>' escaped, so a token such as `<s>` or `<br>` in a title,
    legend, annotation, tick label or hover is shown as typed instead of read as plotly's markup."""
    return html.escape(str(text), quote=False)


def safe_labels(labels) -> list[str]:
    """plain() of each label (tick labels, cell text and hover text are read as markup too)."""
    return [plain(label) for label in labels]


def literal(text: str) -> str:
    """Typed or linked text for a Markdown message, as a code span: shown as typed, so `![x](http://…)`
    fetches nothing and a URL, `$x$` or `:red[x]` is not made a link, math or colour."""
    text = " ".join(str(text).splitlines()) or '""'
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)  # longer than any run of ` inside
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def markdown_text(label: str) -> str:
    """Backslash-escape ASCII punctuation, so a widget that reads Markdown shows a token as typed."""
    return "".join("\\" + c if c.isascii() and not c.isalnum() and not c.isspace() else c for c in str(label))


def token_chips(prefix, chosen: str | None = None) -> str:
    """Markdown badges: the decoder input in grey, the chosen token (if given) in orange, every label escaped."""
    chips = [f":gray-badge[{markdown_text(label)}]" for label in prefix]
    return " ".join(chips + ([f":orange-badge[**{markdown_text(chosen)}**]"] if chosen is not None else []))
