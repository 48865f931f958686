"""The Tokens & embeddings page's charts (streamlit): each takes a view and places its figure."""
from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from .. import loaders, page
from ..export import to_csv
from ..figures import embeddings as figs
from ..figures import heatmap
from ..i18n import t
from ..views import blocks
from ..views import tokens as views


def scaling(run, side: str, labels, cfg) -> None:
    """The embedding rows before and after ×√d_model, and the size of each token's vector at each stage."""
    s = views.scaling(run, side, cfg.d_model, cfg.scale_embedding)
    st.subheader(t("tokens.heatmaps"))
    for column, values, key, bound in zip(st.columns(2), (s.tok, s.scaled), ("tok", "scaled"), s.bounds):
        with column:
            page.chart(heatmap.matrix(values, None, labels, t(f"tokens.heat.{key}"), (-bound, bound),
                                      x_title=t("tokens.axis.dim"), y_title=t("tokens.axis.token")),
                       f"tokens.{side}.{key}", partial(to_csv, values, None, labels))
    st.caption(t("tokens.heatmaps.caption", tok=s.bounds[0], scaled=s.bounds[1]))
    st.subheader(t("tokens.scale"))
    st.write(t("tokens.scale.why", d=cfg.d_model, factor=s.root_d) if cfg.scale_embedding else t("tokens.scale.off"))
    names = [t(f"tokens.norm.{key}") for key in s.series]
    page.chart(figs.norm_bars(labels, dict(zip(names, s.norms)), t("tokens.norms"), t("tokens.axis.token"),
                              t("tokens.norm.axis")), f"tokens.{side}.norms", partial(to_csv, s.norm_table, names, labels))
    st.write("".join(t(f"tokens.norm.{key}", **fields) for key, fields in s.means))


def neighbours(run, side: str, labels, k: int) -> None:
    """The sentence's tokens and their k nearest vocabulary neighbours on the first two principal axes."""
    texts = (st.session_state.get("src", ""), st.session_state.get("tgt", ""))  # what page.current_run ran
    m = views.neighbour_map(run, side, loaders.vocab_neighbours(run.model, side, blocks.ids(run, side), k, texts))
    st.subheader(t("tokens.projection"))
    st.write(t("tokens.projection.why"))
    if m.few:
        st.caption(t("tokens.proj.few"))
    axes = [t("tokens.proj.x"), t("tokens.proj.y")]
    hover = [t("tokens.neighbour.hover", piece=piece, token=token, cos=cos) for piece, token, cos in m.near]
    page.chart(figs.projection(m.points, labels, m.faint, hover, (t("tokens.proj.tokens"), t("tokens.proj.neighbours")),
                               t("tokens.proj.title", share=m.share), *axes, labelled=m.labelled),
               f"tokens.{side}.projection", partial(to_csv, m.both, axes, [*labels, *hover]))
    st.dataframe(pd.DataFrame({t(f"tokens.col.{key}", i=i): cells for key, i, cells in m.table}), hide_index=True)
