"""Tokens & embeddings: pieces and ids, the embedding rows, the ×√d_model scaling, a 2-D map with neighbours."""
import pandas as pd
import streamlit as st

from viz_app.classroom import Latex
from viz_app import classroom, loaders, page, state
from viz_app.i18n import t
from viz_app.place import tokens as place
from viz_app.views import blocks, tokens as views

cfg = page.start()
st.title(t("page.tokens"))
classroom.intro(t("tokens.intro"), t("tokens.formula"), Latex(r"x_i = E[t_i]\,\sqrt{d_{\mathrm{model}}} + PE_i"))
state.setting("tokens.k", 5, state.parse_int, views.K_CHOICES.__contains__, say_stale=True)
run = page.current_run()
with classroom.folded(t("tokens.k")):  # presenting, the embeddings' heatmap then starts on the first screen
    k = st.number_input(t("tokens.k"), 1, views.K_MAX, key="tokens.k")

sides = views.shown_sides(run, cfg.sides)
for side, holder in zip(sides, st.tabs([t(f"tokens.side.{s}") for s in sides]) if len(sides) > 1 else [st.container()]):
    with holder:
        table = views.token_table(run, side, *loaders.token_pieces(run.model, side, blocks.ids(run, side)))
        with classroom.folded(t("tokens.table")):
            st.subheader(t("tokens.table"))
            st.dataframe(pd.DataFrame({t(f"tokens.col.{key}"): pd.array(v) for key, v in table.columns}),
                         hide_index=True)
            st.caption(t("tokens.table.caption"))
        place.scaling(run, side, blocks.labels(run, side), cfg)
        place.neighbours(run, side, blocks.labels(run, side), k)
