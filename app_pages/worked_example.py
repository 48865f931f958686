"""Worked example: three tokens, d_model = 4, hand-set weights; every matrix of one head, with its numbers."""
import pandas as pd
import streamlit as st

from viz_app import attention_steps as steps, page, state
from viz_app.figures import steps as figs
from viz_app.figures.heatmap import to_csv
from viz_app.i18n import t

page.start(need_model=False)  # the example needs no model: it still works if none loads
st.title(t("page.worked_example"))
st.write(t("worked_example.intro"))
st.latex(r"\mathrm{Attention}(Q,K,V)=\mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V")

DIMS = ["0", "1", "2", "3"]
numbers = {d: st.column_config.NumberColumn(d, min_value=-steps.LIMIT, max_value=steps.LIMIT) for d in DIMS}

st.subheader(t("worked_example.inputs"))
left, right = st.columns([3, 2])
x_table = pd.DataFrame(steps.WORKED["X"], columns=DIMS, dtype=float)
x_table.insert(0, "token", t("worked_example.words").split())
left.markdown(t("worked_example.x"))
grids = {"X": left.data_editor(x_table, key="worked_example.X", hide_index=True, column_config={
    "token": st.column_config.TextColumn(t("worked_example.token"), max_chars=20), **numbers})}
state.synced("worked_example.causal", False, state.parse_bool)
page.show_noted()
causal = right.checkbox(t("worked_example.causal"), key="worked_example.causal")
right.caption(t("worked_example.limit", limit=steps.LIMIT))
st.markdown(t("worked_example.weights"))
for column, name in zip(st.columns(3), ("W_Q", "W_K", "W_V")):
    column.latex(name)
    grids[name] = column.data_editor(pd.DataFrame(steps.WORKED[name], columns=DIMS, dtype=float),
                                     key=f"worked_example.{name}", column_config=numbers)

values = {}
for name, table in grids.items():
    values[name], missing, clamped = steps.read_grid(table, DIMS)
    if missing:
        st.warning(t("worked_example.missing", grid=name, n=missing))
    if clamped:
        st.warning(t("worked_example.clamped", grid=name, n=clamped, limit=steps.LIMIT))
labels = steps.worked_labels(grids["X"]["token"])
stages = steps.worked(values["X"], values["W_Q"], values["W_K"], values["W_V"], causal)

st.subheader(t("worked_example.results"))
ROWS = (("q", "k", "v"), ("scores", "scores_scaled", "mask"), ("scores_masked", "pattern", "z"))
for row in ROWS:
    for column, name in zip(st.columns(3), row):
        per_token = name in ("q", "k", "v", "z")  # rows are tokens, columns are dimensions
        x_labels = None if per_token else labels
        axes = ("dim", "token") if per_token else ("key", "query")
        with column:
            st.latex(steps.WORKED_LATEX[name])
            fig = figs.numbers(stages[name], x_labels, labels, t(f"worked_example.step.{name}"),
                               (0, 1) if name in ("mask", "pattern") else None,
                               *(t(f"worked_example.axis.{a}") for a in axes), digits=0 if name == "mask" else 2)
            page.chart(fig, f"worked_example.{name}", csv=to_csv(stages[name], x_labels, labels))
st.caption(t("worked_example.read"))
