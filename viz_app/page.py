"""What every page does first: get the traced run for the sidebar's text, or say why not."""
from __future__ import annotations

import streamlit as st

from core_model.trace.pace import between

from . import classroom, lesson, loaders, sidebar, state
from .errors import message
from .i18n import t
from .text import literal


def start(need_model: bool = True):
    """Draw the shared sidebar and return the model's config (app.py has set the page up).

    If no model loads, the page stops, unless it needs none (need_model=False): then None.
    """
    state.forget_noted()
    state.hold_long_link()
    state.note_dropped_link()
    config = sidebar.render()
    classroom.settings(st.sidebar)
    lesson.start_button(st.sidebar)
    lesson.panel()
    if config is None and need_model:
        st.stop()
    return config


def show_notices(notices) -> None:
    for key, fields in notices:
        st.warning(t(key, **{k: literal(v) if isinstance(v, str) else v for k, v in fields.items()}))


def show_noted() -> None:
    """Say what this run has noted so far: link values it could not use, characters it removed."""
    for key, value, used in state.take_bad_link():
        st.warning(t("query.bad", setting=literal(f"{key} = {value}"), used=used))
    show_notices(state.take_notices())


def current_run(scale: bool = True, pad_mask: bool = True) -> loaders.Run:
    """The cached run of the sidebar's model and text; stops the page with a message if there is none."""
    show_noted()
    src = st.session_state.get("src", "")
    if not src.strip():
        st.info(t("input.empty"))
        st.stop()
    try:
        with st.spinner(t("spinner.run")):
            result = loaders.run(st.session_state["model"], src, st.session_state.get("tgt", ""), scale, pad_mask,
                                 half=st.session_state.get("half", False))
    except ValueError as error:  # nothing left to read once unusable characters are removed, or a visitor's
        slow = getattr(error, "code", "") == "tokenizer_slow"  # tokenizer stopped on this text (checkpoints/bounded.py)
        st.info(message(error, literal) if slow else t("input.unreadable"))
        st.stop()
    show_notices(result.notices)
    return result


def cached_run(scale: bool = True, pad_mask: bool = True) -> loaders.Run:
    """In a fragment: the run the page's full run drew from, without saying its notices again.

    Fragments take settings, never a run, as their arguments: Streamlit keeps a fragment's arguments for
    the session, and a kept run would outlive the shared cache's bound (loaders.RUN_BYTES).
    """
    ss = st.session_state
    return loaders.run(ss["model"], ss["src"], ss.get("tgt", ""), scale, pad_mask, half=ss.get("half", False))


def layer(n_layers: int, note: str) -> int:
    """The sidebar's layer within a stack of n_layers; a clipped one is said with the i18n key `note` (n, layer)."""
    chosen = min(st.session_state["layer"], n_layers - 1)
    if chosen != st.session_state["layer"]:
        st.caption(t(note, n=n_layers, layer=chosen))
    return chosen


def loaded():
    return loaders.load_model(st.session_state["model"])


CHART_KEY = "chart."  # what page.chart puts before a chart's name to make its widget key


def chart_key(name: str) -> str:
    """The widget key of the chart page.chart draws as `name`: its selection is st.session_state[chart_key(name)],
    its element's key in the browser and in tests."""
    return CHART_KEY + name


def chart_name(key: str | None) -> str | None:
    """The name page.chart gave the chart whose widget key is `key`; None for a key page.chart did not make."""
    return key[len(CHART_KEY):] if key and key.startswith(CHART_KEY) else None


def chart(fig, name: str, csv=None, select=False):
    """Draw a figure with its PNG button (plotly's own toolbar, offline) and its numbers as CSV.

    `name` keys the widgets and names the downloaded files; with select=True, clicks rerun
    the page and the selection is returned; a callable `select` is called first (it can still set
    the sidebar's keys, whose widgets are not drawn yet), reading st.session_state[chart_key(name)].
    `csv` may be a callable too. Either way the CSV is made or handed over only on a click: a file
    stored with the run would cost memory per session, and the browser checks its URL at once, which
    is gone (404) if a quick rerun already replaced that run. The session keeps callables `select` and
    `csv` until it ends, so they are module functions or partials of them, never made in a page script
    (that would keep the run's whole page: tests/app/test_session_memory.py).
    """
    between()  # a page's charts are where a heavy visitor's run lets a class's go first (viz_app/fair.py)
    event = st.plotly_chart(
        classroom.chart_figure(fig), key=chart_key(name),
        on_select=select if callable(select) else "rerun" if select else "ignore",
        config={"displaylogo": False, "toImageButtonOptions": {"format": "png", "filename": name, "scale": 2}})
    if csv is not None:
        data = csv if callable(csv) else lambda: csv
        # on_click="ignore": no rerun with the download. A rerun started by the click raced the browser's fetch of
        # the file it was making: under load the download was cancelled, or never came (CI, 2026-12-07).
        st.download_button(t("export.csv"), data, file_name=f"{name}.csv", mime="text/csv", key=f"csv.{name}",
                           on_click="ignore")
    return event
