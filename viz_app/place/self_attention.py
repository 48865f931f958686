"""The step-by-step page's pieces (streamlit): the sections of stages, one stage with its formula, the ÷√d_k
comparison."""
from __future__ import annotations

from functools import partial

import streamlit as st

from .. import classroom, page
from ..export import to_csv
from ..figures import steps as figs
from ..figures.heatmap import matrix
from ..i18n import t
from ..text import literal
from ..views.predict import Question
from ..views.self_attention import HeadSteps, Saturation, Step, neuron, query_rows
from . import predict

ANSWERING = ("scores", "mask", "softmax", "heads", "output")  # the sections whose numbers answer the question


def sections(hs: HeadSteps, query_label: str, unscaled: bool, question: Question) -> bool:
    """The head's sections in order, one at a time in presenter mode (the arrow keys step); predict-then-reveal
    asks `question` before the first section that answers it. True when the answer may be shown."""
    shown = hs.sections
    if classroom.presenting():
        at, middle = classroom.stepper("self_attention.stage", len(shown), (t("classroom.back"), t("classroom.next")))
        middle.markdown(f"**{t(f'self_attention.section.{shown[at][0]}')}** · {t('classroom.stage', i=at + 1, n=len(shown))}")
        shown = shown[at:at + 1]
    asked = False
    for name, group in shown:
        if name in ANSWERING and not asked:
            asked = True
            if not predict.ask(question):
                return False
        section(hs, name, group, query_label, unscaled)
    return predict.revealed(question)


def section(hs: HeadSteps, name: str, group, query_label: str, unscaled: bool) -> None:
    """One section's stages side by side; the softmax's with the query's row at three stages beside them. (In
    presenter mode the section's heading is the stepper's.)"""
    if not classroom.presenting():
        st.subheader(t(f"self_attention.section.{name}"))
    columns = st.columns(len(group) + (name == "softmax"))
    for column, s in zip(columns, group):
        with column:
            stage(s, hs.query, hs.shared)
    if name == "scores":
        inside(hs, query_label)
    if name == "softmax":
        names = [t(f"self_attention.row.{n}") for n in ("scores", "scaled_off" if unscaled else "scaled", "weights")]
        rows = query_rows(hs)
        with columns[1]:
            page.chart(figs.query_row(rows, names, hs.k_labels, t("self_attention.row.title", token=query_label),
                                      t("self_attention.axis.key")), "self_attention.row",
                       csv=partial(to_csv, rows, hs.k_labels, names))


def inside(hs: HeadSteps, query_label: str) -> None:
    """The query's q times each key's k, dimension by dimension: each row adds up to that key's raw score."""
    n = neuron(hs)
    dims = [str(d) for d in range(n.products.shape[1])]
    st.markdown(f"**{t('self_attention.neuron')}**")
    st.caption(t("self_attention.neuron.caption", token=literal(query_label),
                 top=literal(hs.k_labels[int(n.scores.argmax())])))
    page.chart(matrix(n.products, dims, hs.k_labels, t("self_attention.neuron.title", token=query_label), None,
                      x_title=t("self_attention.axis.dim"), y_title=t("self_attention.axis.key")),
               "self_attention.neuron", csv=partial(to_csv, n.products, dims, hs.k_labels))


SHARED_STEPS = ("w_k", "w_v", "k", "v")  # what a query head reads from the key/value head it shares


def stage(s: Step, query: int, shared: tuple[int, int, int] | None = None) -> None:
    """One stage: its formula and its matrix, the chosen query's row outlined where rows are queries; a key or value
    stage names the key/value head it belongs to when query heads share them."""
    st.latex(s.latex)
    title = t(f"self_attention.step.{s.name}")
    if shared is not None and s.name in SHARED_STEPS:
        kv, first, last = shared
        title += " · " + t("self_attention.shared", kv=kv, first=first, last=last)
    fig = figs.stage(s.values, s.x_labels, s.y_labels, title, s.zrange,
                     t(f"self_attention.axis.{s.x_axis}"), t(f"self_attention.axis.{s.y_axis}"),
                     query if s.query_rows else None, s.columns, ".0f" if s.name == "mask" else ".4f")
    page.chart(fig, f"self_attention.{s.name}", csv=partial(to_csv, s.values, s.x_labels, s.y_labels))


def window(hs: HeadSteps, n_q: int, n_k: int) -> None:
    """Say which queries and keys a long text's stages show, and how much of the query's weight falls outside."""
    if (hs.queries.stop - hs.queries.start, hs.keys.stop - hs.keys.start) != (n_q, n_k):
        st.info(t("self_attention.window", q0=hs.queries.start, q1=hs.queries.stop - 1, n_q=n_q, k0=hs.keys.start,
                  k1=hs.keys.stop - 1, n_k=n_k, outside=hs.outside))


def saturation(sat: Saturation, d_head: int, hs: HeadSteps) -> None:
    """The trained model's weights for the query beside the weights without ÷√d_k, and how peaked each is."""
    names = [t(f"self_attention.{which}") for which in ("with", "without")]
    st.subheader(t("self_attention.saturation"))
    st.write(t("self_attention.saturation.explain", d=d_head, root=d_head ** 0.5))
    numbers, chart = st.columns([1, 2])
    for name, entropy, peak in zip(names, sat.entropy, sat.peak):
        numbers.metric(t("self_attention.entropy", which=name), f"{entropy:.3f}")
        numbers.metric(t("self_attention.max_weight", which=name), f"{peak:.3f}")
    with chart:
        title = t("self_attention.saturation.title", token=hs.q_labels[hs.query])
        page.chart(figs.saturation(*sat.weights, hs.k_labels, names, title, t("self_attention.axis.key"),
                                   t("self_attention.weight")),
                   "self_attention.saturation", csv=partial(to_csv, sat.weights, hs.k_labels, names))
