"""Overview: first what to do, the sentence in, the model's output and where it looks; then the explanation, the
model drawn with its shapes, and its parameters."""
from functools import partial

import pandas as pd
import streamlit as st

from viz_app.classroom import Latex
from viz_app import classroom, loaders, page
from viz_app.figures.diagram import model_diagram
from viz_app.i18n import t
from viz_app.text import piece
from viz_app.place import overview as place
from viz_app.views import overview as views

cfg = page.start()
st.title(t("page.overview"))
place.first_steps()
run = page.current_run()
place.input_output(cfg, run)

if cfg.architecture == "encoder" and cfg.mlm_head:  # the head's own outputs: a masked token filled in
    tokenizer = loaders.load_model(run.model).tokenizers["src"]
    st.subheader(t("overview.mlm"))
    st.caption(t("overview.mlm.help", mask=next((p for p in ("[MASK]", "<mask>") if tokenizer.piece_to_id(p) !=
                                                 tokenizer.unk_id), "[MASK]")))
    rows = views.masked_predictions(run.trace["probs"][0], run.src_labels, partial(piece, tokenizer))
    st.dataframe(pd.DataFrame(rows, columns=[t("overview.mlm.token"), t("overview.mlm.top")]), hide_index=True)

classroom.intro(t("overview.intro"), t("overview.formula"),
                Latex(r"\mathrm{Attention}(Q,K,V)=\mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V"))
st.subheader(t("overview.diagram"))
shape = views.diagram(cfg, run)
st.graphviz_chart(model_diagram(shape, {box: t(f"diagram.{box}", **fields) for box, fields in shape.words}))

st.subheader(t("overview.params"))
params = views.parameters(loaders.parameter_counts(run.model))
rows = [(t(f"part.{part}"), n) for part, n in params.parts] + [(t("overview.total"), params.total)]
st.dataframe(pd.DataFrame(rows, columns=[t("overview.part"), t("overview.count")]), hide_index=True)
