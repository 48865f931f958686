"""Worked example: three tokens, d_model = 4, hand-set weights; every matrix of one head, with its numbers."""
from functools import partial

import streamlit as st

from core_model.heads import worked_attention
from viz_app.classroom import Latex
from viz_app import classroom, page, state
from viz_app.export import to_csv
from viz_app.figures import steps as figs
from viz_app.i18n import t
from viz_app.views import worked_example as view

page.start(need_model=False)  # the example needs no model: it still works if none loads
st.title(t("page.worked_example"))
classroom.intro(t("worked_example.intro"),
                Latex(r"\mathrm{Attention}(Q,K,V)=\mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V"))
numbers = {d: st.column_config.NumberColumn(d, min_value=-view.LIMIT, max_value=view.LIMIT) for d in view.DIMS}

with classroom.folded(t("worked_example.inputs")):  # the editable inputs, folded away in presenter mode
    st.subheader(t("worked_example.inputs"))
    left, right = st.columns([3, 2])
    left.markdown(t("worked_example.x"))
    token = st.column_config.TextColumn(t("worked_example.token"), max_chars=20)
    grids = {"X": left.data_editor(view.x_table(t("worked_example.words").split()), key="worked_example.X",
                                   hide_index=True, column_config={"token": token, **numbers})}
    causal = state.setting("worked_example.causal", False, state.parse_bool, state.is_bool)
    right.checkbox(t("worked_example.causal"), key="worked_example.causal")
    right.caption(t("worked_example.limit", limit=view.LIMIT))
    st.markdown(t("worked_example.weights"))
    for column, name in zip(st.columns(3), ("W_Q", "W_K", "W_V")):
        column.latex(name)
        grids[name] = column.data_editor(view.weight_table(name), key=f"worked_example.{name}", column_config=numbers)
page.show_noted()

values = {}
for name, table in grids.items():
    values[name], missing, clamped = view.read_grid(table, view.DIMS)
    if missing:
        st.warning(t("worked_example.missing", grid=name, n=missing))
    if clamped:
        st.warning(t("worked_example.clamped", grid=name, n=clamped, limit=view.LIMIT))
labels = view.worked_labels(grids["X"]["token"])
stages = worked_attention(values["X"], values["W_Q"], values["W_K"], values["W_V"], causal)

st.subheader(t("worked_example.results"))
for row in view.cells(stages, labels):
    for column, c in zip(st.columns(3), row):
        with column:
            st.latex(c.latex)
            fig = figs.numbers(c.values, c.x_labels, c.y_labels, t(f"worked_example.step.{c.name}"), c.zrange,
                               *(t(f"worked_example.axis.{a}") for a in c.axes), digits=c.digits)
            page.chart(fig, f"worked_example.{c.name}", csv=partial(to_csv, c.values, c.x_labels, c.y_labels))
st.caption(t("worked_example.read"))
