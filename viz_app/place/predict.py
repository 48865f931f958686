"""Predict, then reveal (streamlit): a page asks its question (views/predict.py) before it draws the answer.

ask() draws the question and returns False until the student has picked; the page then draws nothing that
gives the answer away (it is neither in the page nor in any chart's data sent). Once a guess is in, ask()
says whether it was right, with the model's number, and returns True. The score counts every question
answered this session.
"""
from __future__ import annotations

from functools import partial

import streamlit as st

from .. import classroom
from ..i18n import t
from ..text import literal, markdown_text
from ..views.predict import Question

GUESSES = "predict.guesses"  # {question id: the picked option indices}
SCORE = "predict.score"  # [right, asked]


def revealed(q: Question) -> bool:
    """Whether the page may show what answers `q`: predict-then-reveal is off, or `q` has been answered."""
    return not classroom.predicting() or q.id in st.session_state.get(GUESSES, {})


def ask(q: Question) -> bool:
    """Ask `q` (or say how the guess went) when predict-then-reveal is on; then revealed(q)."""
    if not classroom.predicting():
        return True
    guess = st.session_state.get(GUESSES, {}).get(q.id)
    box = st.container(border=True)
    key, fields = q.prompt
    box.markdown(t(key, **{name: literal(v) if isinstance(v, str) else v for name, v in fields.items()}))
    if guess is None:
        choose(box, q)
        box.caption(t("predict.hidden"))
    else:
        verdict(box, q, guess)
    score(box)
    return guess is not None


def choose(box, q: Question) -> None:
    key, shown = f"predict.pick.{q.id}", partial(option, q.options)
    options = range(len(q.options))
    if q.many:
        box.pills(" ", options, selection_mode="multi", key=key, format_func=shown, label_visibility="collapsed")
        box.button(t("predict.check"), key=f"predict.check.{q.id}", on_click=record, args=(q, key))
    else:
        box.pills(" ", options, key=key, format_func=shown, label_visibility="collapsed", on_change=record,
                  args=(q, key))


def option(options: tuple[str, ...], i: int) -> str:
    """An option's label as typed (a pill reads Markdown)."""
    return markdown_text(options[i])


def record(q: Question, key: str) -> None:
    """on_change / on_click: keep the guess and count it (a callback, so it runs before the page draws)."""
    picked = st.session_state.get(key)
    picked = [] if picked is None else picked if isinstance(picked, list) else [picked]
    if not picked and not q.many:
        return
    st.session_state.setdefault(GUESSES, {})[q.id] = tuple(int(i) for i in picked)
    right, asked = st.session_state.get(SCORE, (0, 0))
    st.session_state[SCORE] = (right + q.right(picked), asked + 1)


def named(q: Question, picked) -> str:
    return ", ".join(literal(q.options[i]) for i in sorted(picked)) or t("predict.none")


def verdict(box, q: Question, guess) -> None:
    if q.right(guess):
        box.success(t("predict.right", answer=named(q, q.answer), value=q.value))
    else:
        box.error(t("predict.wrong", guess=named(q, guess), answer=named(q, q.answer), value=q.value))


def score(box) -> None:
    right, asked = st.session_state.get(SCORE, (0, 0))
    if asked:
        box.caption(t("predict.score", right=right, asked=asked))
