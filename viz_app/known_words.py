"""Under the sidebar's sentence, for a model trained here: the sentence as the model reads it, with the words it never
read in training marked and the known words spelt most like each offered in one click, and a searchable list of
every word it knows.

The shipped models read lower-case text without punctuation, in a grammar of about 700 words (loaders.known_words):
"The cat sat on the mat." reaches them as "the cat sat on the mat", where "sat" and "mat" are words they never saw.
"""
from __future__ import annotations

import streamlit as st

from . import loaders
from .i18n import t
from .text import clean, markdown_text, nearest, normalised, replaced, unknown_in, visible

MAX_FIXED = 5  # unknown words offered replacements at once (the others wait until these are replaced)
MAX_LISTED = 300  # words the list shows at once; a search narrows it
MAX_MARKED = 400  # characters of sentence the sidebar repeats with its unknown words marked (a long text is not)


def render(sb, name: str) -> None:
    """The marked sentence, the replacements and the word list, for `name` if it is a model trained here."""
    known = loaders.known_words(name)
    if known is None:
        return
    text = normalised(clean(st.session_state.get("src", ""))[0])[0]
    unknown = unknown_in(text, known)
    if unknown and len(text) <= MAX_MARKED:  # a long text's unknown words are named in the page's notice only
        sb.caption(t("words.marked"))
        sb.markdown(marked(text, set(unknown)))
    offer(sb, unknown[:MAX_FIXED], known)
    word_list(sb, known)


def offer(sb, words, known: frozenset[str]) -> None:
    """For each word, the known words spelt most like it, one click each (or why there are none)."""
    for word in words:
        offers = nearest(word, known)
        label = t("words.fix", word=markdown_text(visible(word)))  # a word of thousands of letters: its first 40
        if offers:
            sb.pills(label, offers, key=f"words.fix.{word}", on_change=use, args=(word,))
        else:
            sb.caption(t("words.no_fix", word=markdown_text(visible(word))))


def marked(text: str, unknown: set[str]) -> str:
    """The sentence as Markdown, each unknown word on a red background."""
    return " ".join(f":red-background[{markdown_text(w)}]" if w in unknown else markdown_text(w) for w in text.split())


def use(word: str) -> None:
    """on_change of a word's offers: the chosen one replaces it in the sentence (a callback: before the box is drawn)."""
    ss = st.session_state
    chosen = ss.get(f"words.fix.{word}")
    if chosen:
        ss["src"] = replaced(ss.get("src", ""), word, chosen)


def word_list(sb, known: frozenset[str]) -> None:
    """Every word the model read in training, narrowed by a search."""
    with sb.expander(t("words.known", n=len(known))):
        query = st.text_input(t("words.search"), key="words.search", max_chars=40).strip().lower()
        found = [w for w in sorted(known) if query in w]
        st.markdown(" · ".join(markdown_text(w) for w in found[:MAX_LISTED]) or t("words.none", query=markdown_text(query)))
        if len(found) > MAX_LISTED:
            st.caption(t("words.more", n=len(found) - MAX_LISTED))
