"""The guided lesson (streamlit): an ordered path through the pages, its step kept in the link (?lesson=4).

Each step names its page, a one-sentence goal, what to look at and a question (i18n/lesson.py); Back and Next
open the neighbouring step's page with the same link settings, so a copied link reopens the same step.
"""
from __future__ import annotations

import streamlit as st

from . import state
from .i18n import t
from .registry import NAMES

STEPS = ("overview", "tokens", "positional", "self_attention", "worked_example", "explorer", "masks", "ffn_norm",
         "decoding", "training", "induction")
# A step on a page of another name, with the settings its link gives that page: induction heads are found in the
# explorer's statistics of a decoder's self-attention, by the head detectors' "induction" score.
ON_PAGE = {"induction": "explorer"}
SETTINGS = {"induction": {"explorer.kind": "decoder.self_attn", "explorer.stat": "detected_induction"}}
PAGE = "_page"  # the running page's name, set by app.py


def page_of(name: str) -> str:
    """The page step `name` is on."""
    return ON_PAGE.get(name, name)


assert {page_of(s) for s in STEPS} <= set(NAMES)


def step() -> int:
    """The lesson's step, 1 to len(STEPS); 0 when no lesson is running."""
    return state.setting("lesson", 0, state.parse_int, range(len(STEPS) + 1).__contains__, say_stale=True)


def go(to: int) -> None:
    """Open step `to` (0: leave the lesson) on its page, the link's other settings kept."""
    st.session_state["lesson"] = to
    name = STEPS[to - 1] if to else None
    params = {k: v for k, v in st.query_params.to_dict().items() if k != "lesson"} | ({"lesson": str(to)} if to else {})
    params |= SETTINGS.get(name, {})
    for key, value in SETTINGS.get(name, {}).items():  # the page reads the session's value before the link's
        st.session_state[key] = value
    page = page_of(name) if to else st.session_state.get(PAGE, STEPS[0])
    st.switch_page(f"app_pages/{page}.py", query_params=params)


def start_button(sb, key: str = "lesson.start") -> None:
    """The button that starts the lesson at its first step, in `sb` (the sidebar, or the overview's first line)."""
    if sb.button(t("lesson.start"), help=t("lesson.start.help"), key=key):
        go(1)


def panel() -> None:
    """The running lesson's step above the page: goal, what to look at, question, Back / Next."""
    at = step()
    if not at:
        return
    name = STEPS[at - 1]
    box = st.container(border=True, key="lesson.panel")
    box.markdown(f"**{t('lesson.title', i=at, n=len(STEPS))}**  \n" + "  \n".join(
        t(f"lesson.{part}", text=t(f"lesson.{name}.{part}")) for part in ("goal", "look", "question")))
    if st.session_state.get(PAGE, page_of(name)) != page_of(name):
        box.caption(t("lesson.elsewhere", page=t(f"page.{name}")))
        if box.button(t("lesson.go"), key="lesson.go"):
            go(at)
    back, leave, forward = box.columns(3)
    if back.button(t("lesson.back"), key="lesson.back", disabled=at == 1):
        go(at - 1)
    if leave.button(t("lesson.leave"), key="lesson.leave"):
        go(0)
    last = at == len(STEPS)
    if forward.button(t("lesson.finish" if last else "lesson.next"), key="lesson.next", type="primary"):
        go(0 if last else at + 1)
