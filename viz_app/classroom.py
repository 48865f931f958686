"""The classroom's settings (streamlit): presenter mode and predict-then-reveal, both kept in the link.

Presenter mode is for a projector: the sidebar starts collapsed (app.py), the prose is folded behind an
expander (intro), text and every chart's labels are 18 px or more in a dark ink (style, chart), and the
arrow keys step through a page's stages (step_buttons).
"""
from __future__ import annotations

import streamlit as st

from . import state
from .figures.present import readable
from .i18n import t

KEYS = ("present", "predict", "lesson")  # kept across pages (app.py)
# Inks with ≥ 4.5:1 contrast on Streamlit's light and dark backgrounds (#ffffff: 15.3:1; #0e1117: 15.8:1).
INK = {"light": "#1f2430", "dark": "#e8eaf0"}
CSS = """<style>
html { font-size: 20px !important; }
[data-testid="stMainBlockContainer"] { padding-top: 1rem !important; padding-bottom: 1rem !important; }
[data-testid="stHeader"] { height: 2.5rem !important; min-height: 0 !important; background: transparent !important;
  pointer-events: none !important; }
[data-testid="stHeader"] * { pointer-events: none !important; }
[data-testid="stHeader"] button, [data-testid="stHeader"] button *, [data-testid="stHeader"] a
  { pointer-events: auto !important; }
[data-testid="stVerticalBlock"] { gap: .45rem !important; }
h1 { font-size: 1.6rem !important; padding: 0 !important; margin-bottom: 0 !important; }
h2, h3 { font-size: 1.25rem !important; padding: 0 !important; }
[data-testid="stHeading"] [data-testid="stMarkdownContainer"] { margin-bottom: 0 !important; }
[data-testid="stGraphVizChart"] svg { max-height: 75vh; }
[data-testid="stCaptionContainer"], [data-testid="stWidgetLabel"] p, [data-testid="stMarkdownContainer"] p
  { font-size: 18px !important; }
[data-testid="stWidgetLabel"] [data-testid="stMarkdownContainer"], [data-testid="stWidgetLabel"] p
  { white-space: normal !important; overflow: visible !important; }
</style>"""
# The header keeps 2.5rem, transparent and letting clicks through but for its buttons: at height 0 the sidebar's
# toggle sat half above the screen (y -17.5 px), and a header that took clicks covered the title a presenter clicks.
# Why the two rules after the headings' and the labels' sizes: Streamlit pulls the element after a heading up by 1rem
# (its markdown's margin-bottom), taken back by the heading's own 1rem of padding below; with the padding cut to
# .2rem the chart below covered the heading's last 16 px (the diagram, drawn as wide as its column, is held to
# three quarters of the screen so that it still fits below its heading). And a widget label with a help icon is one line cut with
# an ellipsis: at 18 px "Remove the padding mask" lost its last word in a third of the page.


def early(key: str, default):
    """A setting needed before a page reads it (app.py: the language, presenter mode): the session's, else
    the link's; a page checks it again (settings)."""
    if key in st.session_state:
        return st.session_state[key]
    raw = st.query_params.get(key)
    if raw is None or not isinstance(default, bool):
        return default if raw is None else raw
    try:
        return state.parse_bool(raw)
    except ValueError:
        return default


def settings(sb) -> None:
    """The sidebar's classroom switches, and presenter mode's styles when it is on."""
    state.setting("present", False, state.parse_bool, state.is_bool)
    sb.toggle(t("classroom.present"), key="present", help=t("classroom.present.help"))
    state.setting("predict", False, state.parse_bool, state.is_bool)
    sb.toggle(t("classroom.predict"), key="predict", help=t("classroom.predict.help"))
    if presenting():
        st.html(CSS)


def presenting() -> bool:
    return st.session_state.get("present") is True


def predicting() -> bool:
    return st.session_state.get("predict") is True


class Latex(str):
    """A formula among intro()'s items, drawn with st.latex."""


def intro(*items: str):
    """A page's explanation, text and Latex formulas in order; folded behind an expander in presenter mode.
    Returns its container, for note()."""
    about = st.expander(t("classroom.more")) if presenting() else st.container()
    with about:
        for item in items:
            st.latex(item) if isinstance(item, Latex) else st.write(item)
    return about


def note(about, text: str) -> None:
    """A caption in place, or in presenter mode folded into the page's explanation (`about`, from intro)."""
    (about if presenting() else st).caption(text)


def folded(label: str):
    """A container for what a page shows before its first chart that a class can do without (a table, the
    inputs): an expander labelled `label` in presenter mode, else a plain container."""
    return st.expander(label) if presenting() else st.container()


def chart_figure(fig):
    """The figure as a chart shows it: as it is, or readable on a projector in presenter mode."""
    return readable(fig, INK.get(st.context.theme.type or "light", INK["light"])) if presenting() else fig


def move(key: str, delta: int, n: int) -> None:
    """A step button's callback: it runs before the rerun, so the page is drawn at the new step."""
    st.session_state[key] = min(max(st.session_state[key] + delta, 0), n - 1)


def stepper(key: str, n: int, labels: tuple[str, str]):
    """Back / next buttons over n steps kept in `key` (and the link), bound to the left and right arrow keys in
    presenter mode; returns the step and the column between the buttons, for the caller to fill."""
    at = state.synced(key, 0, state.parse_int)
    at = at if isinstance(at, int) and not isinstance(at, bool) else 0
    # The number of steps changes with the text and the settings, so an out-of-range step is normal here.
    st.session_state[key] = at = min(max(at, 0), n - 1)
    state.publish(key)
    back, middle, forward = st.columns([2, 5, 2], vertical_alignment="center")
    arrows = ("Left", "Right") if presenting() else (None, None)
    back.button(labels[0], on_click=move, args=(key, -1, n), disabled=at == 0, key=f"{key}.back",
                shortcut=arrows[0])
    forward.button(labels[1], on_click=move, args=(key, 1, n), disabled=at == n - 1, key=f"{key}.next",
                   shortcut=arrows[1])
    return at, middle
