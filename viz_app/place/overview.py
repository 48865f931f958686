"""The Overview page's first screen (streamlit): what to do, the sentence in and the model's output, and one chart
of where the model looks; app_pages/overview.py places them above the explanation and the diagram."""
from __future__ import annotations

from functools import partial

import streamlit as st

from .. import classroom, lesson, loaders, page
from ..examples import TRY
from ..export import to_csv
from ..figures.heatmap import matrix
from ..i18n import t
from ..views import blocks, overview as views

LOOK_HEIGHT = 320  # px: the chart ends above the fold of a 1024×768 screen, under the title, the line and the examples


def first_steps() -> None:
    """One line that says what to do, the lesson's start beside it, and the model's example sentences one click
    away (each becomes the sidebar's sentence)."""
    line, start = st.columns([3, 1], vertical_alignment="center")
    line.markdown(t("overview.what_to_do.present" if classroom.presenting() else "overview.what_to_do"))
    lesson.start_button(start, key="lesson.start.overview")
    tried = TRY.get(st.session_state["model"], ())
    if tried:
        st.pills(t("overview.try"), [sentence for sentence, _ in tried], key="overview.try", on_change=use_example)


def use_example() -> None:
    """on_change of the examples: the chosen one becomes the sentence (a callback: before the sidebar is drawn)."""
    chosen = st.session_state.get("overview.try")
    if chosen:
        st.session_state["src"] = chosen
        st.session_state["overview.try"] = None


def input_output(cfg, run) -> None:
    """The sentence and the model's output on the left, where the model looks on the right."""
    left, right = st.columns([2, 3])
    left.subheader(t("overview.input"))
    left.text(st.session_state["src"])
    left.subheader(t(f"overview.output.{cfg.architecture}"))
    output(cfg, run, left)
    look = views.first_look(cfg, run)
    right.caption(t(f"overview.look.about.{blocks.split(look.block)[1]}"))
    title = t(f"overview.look.{look.block}", layer=look.layer, heads=look.heads)
    fig = matrix(look.values, look.k_labels, look.q_labels, title=title, zrange=(0, 1))  # the caption names the axes
    fig.update_layout(height=LOOK_HEIGHT)
    with right:
        page.chart(fig, "overview.look", partial(to_csv, look.values, look.k_labels, look.q_labels))
    said = dict(TRY.get(st.session_state["model"], ())).get(st.session_state["src"])
    if said:  # one of the examples: what to look for in the chart
        right.caption(t(f"overview.try.{said}"))


def output(cfg, run, box) -> None:
    """The model's output in `box`: a translation, a continuation, or for an encoder its sentence embedding."""
    src = st.session_state["src"]
    if cfg.architecture == "encoder":
        box.write(t("overview.encoder_only"))
        row = views.embedding_row(loaders.sentence_embedding(run.model, src))  # [1, d_model]
        with box:
            st.caption(t("overview.embedding", d=cfg.d_model))
            page.chart(matrix(row, None, [""], t("overview.embedding.title"), x_title=t("overview.embedding.dim")),
                       "overview.embedding", partial(to_csv, row, None, [""]))
    elif cfg.has_encoder:
        box.text(run.output)
    elif (continued := loaders.continuation(run.model, src)) is not None:
        box.text(continued)
    else:
        box.warning(t("input.no_room", max_len=cfg.positions))

