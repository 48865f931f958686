"""The step-by-step page's repeated pieces (streamlit): one stage with its formula, the ÷√d_k comparison."""
from __future__ import annotations

from functools import partial

import streamlit as st

from .. import page
from ..export import to_csv
from ..figures import steps as figs
from ..i18n import t
from ..views.self_attention import HeadSteps, Saturation, Step


def stage(s: Step, query: int) -> None:
    """One stage: its formula and its matrix, the chosen query's row outlined where rows are queries."""
    st.latex(s.latex)
    fig = figs.stage(s.values, s.x_labels, s.y_labels, t(f"self_attention.step.{s.name}"), s.zrange,
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
