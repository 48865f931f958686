"""Masks: a padded batch, its padding / causal / combined masks, scores masked, and the weight leaking onto <pad>."""
from functools import partial

import streamlit as st

from viz_app.classroom import Latex
from viz_app import classroom, page
from viz_app.export import to_csv
from viz_app.figures.heatmap import matrix
from viz_app.i18n import t
from viz_app.place import masks as place, predict
from viz_app.views import masks as view, predict as asking

cfg = page.start()
st.title(t("page.masks"))
classroom.intro(t("masks.intro"), t("masks.formula"),
                Latex(r"\tilde S_{ij} = \begin{cases} S_{ij} & M_{ij} = 1 \\ -\infty & M_{ij} = 0 \end{cases}"
                      r"\qquad A = \mathrm{softmax}(\tilde S)"))
batch_box = classroom.folded(t("masks.batch.label"))
with batch_box:
    lines = place.batch_input()
block, no_pad, row, batch, table = place.controls(cfg, lines)
with batch_box:
    place.tables(table, cfg)
one = view.sentence(batch, block, row, st.session_state["layer"], st.session_state["head"])
k, q = one.k_labels, one.q_labels
axes = dict(x_title=t("masks.key"), y_title=t("masks.query"))
if not predict.ask(asking.blocked_keys(one.masks, len(q) // 2, q[len(q) // 2], k,
                                       "|".join(map(str, (st.session_state["model"], lines, block, row, no_pad))))):
    st.stop()  # the masks below are the answer

place.mask_charts(one, block, row, no_pad)

st.subheader(t("masks.scores", i=row + 1, layer=one.layer, head=one.head))
if one.layer != st.session_state["layer"]:
    st.caption(t("masks.layer_note", n=one.n_layers, layer=one.layer))
for column, (values, name) in zip(st.columns(2), [(one.before, "before"), (one.after, "after")]):
    with column:
        page.chart(matrix(values, k, q, t(f"masks.scores.{name}"), one.score_range, **axes), f"masks.scores.{name}",
                   partial(to_csv, values, k, q))
st.caption(t("masks.scores.about"))

st.subheader(t("masks.leak"))
st.write(t("masks.leak.about"))
left, right = st.columns(2)
with left:
    page.chart(matrix(one.pattern, k, q, t("masks.scores.pattern"), (0, 1), **axes), "masks.scores.pattern",
               partial(to_csv, one.pattern, k, q))
with right:
    place.leak(one)
place.invariance(lines, batch)
