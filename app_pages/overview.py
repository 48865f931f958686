"""Overview: the sentence in, the model's output, and the model drawn with its shapes."""
import pandas as pd
import streamlit as st
import torch

from core_model.bert import sentence_embedding
from viz_app import page
from viz_app.figures.diagram import model_diagram
from viz_app.figures.heatmap import matrix, to_csv
from viz_app.i18n import t

cfg = page.start()
st.title(t("page.overview"))
st.write(t("overview.intro"))
st.write(t("overview.formula"))
st.latex(r"\mathrm{Attention}(Q,K,V)=\mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V")

run = page.current_run()
model = page.loaded()

left, right = st.columns(2)
left.subheader(t("overview.input"))
left.text(st.session_state["src"])
right.subheader(t(f"overview.output.{cfg.architecture}"))
if cfg.architecture == "encoder":
    right.write(t("overview.encoder_only"))
    last = torch.tensor(run.trace.layer_output("encoder", cfg.n_encoder_layers - 1))  # [1, n, d_model]
    embedding = sentence_embedding(last, torch.ones(last.shape[:2], dtype=torch.bool)).numpy()[0]  # no padding
    with right:
        st.caption(t("overview.embedding", d=cfg.d_model))
        page.chart(matrix(embedding[None], None, [""], t("overview.embedding.title"), x_title=t("overview.embedding.dim")),
                   "overview.embedding", to_csv(embedding[None], None, [""]))
else:
    right.text(run.output)

st.subheader(t("overview.diagram"))
words = {k: t(f"diagram.{k}", n=n, h=cfg.n_heads, d=cfg.d_model, ff=cfg.d_ff, v=cfg.tgt_vocab_size)
         for k, n in [("src_tokens", 0), ("tgt_tokens", 0), ("embed", 0), ("encoder", cfg.n_encoder_layers),
                      ("decoder", cfg.n_decoder_layers), ("self_attn", 0), ("masked_self_attn", 0),
                      ("cross_attn", 0), ("ffn", 0), ("output", 0)]}
st.graphviz_chart(model_diagram(cfg.architecture, cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.n_encoder_layers,
                                cfg.n_decoder_layers, cfg.tgt_vocab_size, len(run.src_ids), len(run.tgt_ids), words))

st.subheader(t("overview.params"))
counts = model.model.parameter_counts()
rows = [(t(f"part.{part}"), n) for part, n in counts.items()] + [(t("overview.total"), sum(counts.values()))]
st.dataframe(pd.DataFrame(rows, columns=[t("overview.part"), t("overview.count")]), hide_index=True)
