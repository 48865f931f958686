"""The FFN & residual page's contribution graph (streamlit): which earlier states, through which heads and FFNs,
make up one token's last state (views/contributions.py over loaders.contribution_shares). A click on an attention
edge's point makes its head the sidebar's."""
from __future__ import annotations

from functools import partial

import streamlit as st

from .. import loaders, page, sidebar, state
from ..figures import contributions as figs
from ..i18n import t
from ..views import contributions as view

TOKEN, THRESHOLD = "graph.token", "graph.threshold"


def section(run, labels) -> None:
    ss = st.session_state
    st.subheader(t("graph.title"))
    if not loaders.contribution_graph_applies(ss["model"]):
        st.info(t("graph.not_applicable"))
        return
    st.write(t("graph.about"))
    try:
        layers = loaders.contribution_shares(ss["model"], ss["src"], ss.get("tgt", ""))
    except ValueError as e:  # a text longer than the graph reads
        st.info(t("graph.too_long", reason=str(e)))
        return
    left, right = st.columns(2)
    state.setting(TOKEN, len(labels) - 1, state.parse_int, range(len(labels)).__contains__)  # the last token first
    token = left.selectbox(t("graph.token"), range(len(labels)), key=TOKEN, format_func=labels.__getitem__)
    state.setting(THRESHOLD, 0.04, float, lambda v: isinstance(v, float) and 0.01 <= v <= 0.5)
    page.show_noted()
    threshold = right.slider(t("graph.threshold"), 0.01, 0.5, step=0.01, key=THRESHOLD)
    edges = view.paths(layers, token, threshold)
    levels = [t("graph.level.embedding")] + [t(f"graph.level.{part}", layer=i) for i in range(len(layers))
                                            for part in ("attention", "ffn")]
    names = {"residual": t("graph.residual"), "ffn": t("graph.ffn"), "head": t("graph.head")}
    fig = figs.graph(edges, labels, len(levels), levels, t("graph.figure", token=labels[token]), names)
    page.chart(fig, "graph", select=partial(sidebar.pick_head, page.chart_key("graph"), "graph.picked"))
    st.caption(t("graph.caption", n=len(edges), threshold=threshold))
