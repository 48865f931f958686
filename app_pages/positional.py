"""Positional encoding lab: sinusoid curves, heatmap and similarity; the model's own encoding; the sentence's sum."""
from functools import partial

import streamlit as st

from viz_app import loaders, page, state
from viz_app.export import to_csv
from viz_app.figures.positional import curves
from viz_app.i18n import t
from viz_app.place.positional import model_section, pair, sentence_section
from viz_app.views import positional as views

cfg = page.start()
POS = t("positional.axis.pos")  # after start(): the sidebar sets the language
st.title(t("page.positional"))
st.write(t("positional.intro"))
st.write(t("positional.formula"))
st.latex(r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{base^{2i/d_{\mathrm{model}}}}\right),\quad "
         r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{base^{2i/d_{\mathrm{model}}}}\right)")
d_model = state.setting("positional.d_model", 128, state.parse_int, views.D_MODELS.__contains__, say_stale=True)
length = state.setting("positional.length", 100, state.parse_int, views.LENGTHS.__contains__, say_stale=True)
base = state.setting("positional.base", 10000, state.parse_int, views.BASES.__contains__, say_stale=True)
dims = state.synced("positional.dims", views.DIMS, views.parse_dims, partial(views.dims_within, d_model))
st.session_state["positional.dims"] = views.usable_dims(dims, d_model)  # the choice shrinks with d_model
state.publish("positional.dims")
page.show_noted()

st.header(t("positional.lab"))
c1, c2, c3 = st.columns(3)
c1.slider(t("positional.d_model"), 16, 512, step=16, key="positional.d_model")
c2.slider(t("positional.length"), 8, 512, key="positional.length")
c3.select_slider(t("positional.base"), views.BASES, key="positional.base", help=t("positional.base.help"))
dim_names = [t("positional.dim_name", d=d, kind=t(f"positional.{kind}")) for d, kind in enumerate(views.dim_kinds(d_model))]
dims = st.multiselect(t("positional.dims"), range(d_model), key="positional.dims", format_func=dim_names.__getitem__)
lab = views.lab(loaders.sinusoid(length, d_model, base), dims)
names = [dim_names[d] for d in lab.dims]
if names:
    page.chart(curves(lab.table, lab.dims, names, t("positional.curves"), POS, t("positional.axis.value")),
               "positional.curves", partial(to_csv, lab.columns, names))
else:
    st.info(t("positional.curves.none"))
pair(lab.table, lab.similarity, "positional", (t("positional.heatmap"), t("positional.similarity")))
st.caption(t("positional.heatmap.caption"))
st.caption(t("positional.similarity.caption", norm=lab.norm, scale=lab.pairs))

model_section(cfg, length)
sentence_section(cfg)
