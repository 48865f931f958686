"""Tokens & embeddings: pieces and ids, the embedding rows, the ×√d_model scaling, a 2-D map with neighbours."""
import math

import numpy as np
import pandas as pd
import streamlit as st

from viz_app import loaders, page, state
from viz_app.figures.embeddings import norm_bars, pca_2d, projection, row_norms
from viz_app.figures.heatmap import matrix, to_csv
from viz_app.i18n import t

K_MAX = 10

cfg = page.start()
st.title(t("page.tokens"))
st.write(t("tokens.intro"))
st.write(t("tokens.formula"))
st.latex(r"x_i = E[t_i]\,\sqrt{d_{\mathrm{model}}} + PE_i")
if not 1 <= state.synced("tokens.k", 5, state.parse_int) <= K_MAX:
    state.bad_link("tokens.k", st.session_state["tokens.k"], 5)
    st.session_state["tokens.k"] = 5
run = page.current_run()
model = page.loaded()
factor = math.sqrt(cfg.d_model) if cfg.scale_embedding else 1.0
k = st.number_input(t("tokens.k"), 1, K_MAX, key="tokens.k")


def token_table(side, ids):
    tokenizer = model.tokenizers[side]
    words = [w if w >= 0 else None for w in tokenizer.word_ids(ids)]  # specials belong to no word
    st.subheader(t("tokens.table"))
    st.dataframe(pd.DataFrame({t("tokens.col.position"): range(len(ids)), t("tokens.col.piece"): tokenizer.display_pieces(ids),
                               t("tokens.col.id"): list(ids), t("tokens.col.word"): pd.array(words, dtype="Int64")}),
                 hide_index=True)
    st.caption(t("tokens.table.caption"))


def scaling(side, labels):
    emb = run.trace.embed(side)
    tok, scaled = emb.tok[0], emb.scaled[0]  # [pos, d_model]
    bound = float(max(np.abs(tok).max(), np.abs(scaled).max())) or 1.0  # one scale: the growth stays visible
    st.subheader(t("tokens.heatmaps"))
    for column, values, key in zip(st.columns(2), (tok, scaled), ("tok", "scaled")):
        with column:
            page.chart(matrix(values, None, labels, t(f"tokens.heat.{key}"), (-bound, bound), x_title=t("tokens.axis.dim"),
                              y_title=t("tokens.axis.token")), f"tokens.{side}.{key}", to_csv(values, None, labels))
    st.caption(t("tokens.heatmaps.caption"))
    st.subheader(t("tokens.scale"))
    st.write(t("tokens.scale.why", d=cfg.d_model, factor=math.sqrt(cfg.d_model)) if cfg.scale_embedding else t("tokens.scale.off"))
    norms = {t("tokens.norm.tok"): row_norms(tok), t("tokens.norm.scaled"): row_norms(scaled)}
    if emb.pos is not None:
        norms[t("tokens.norm.pos")] = row_norms(emb.pos[0])
    page.chart(norm_bars(labels, norms, t("tokens.norms"), t("tokens.axis.token"), t("tokens.norm.axis")),
               f"tokens.{side}.norms", to_csv(np.stack(list(norms.values()), axis=1), list(norms), labels))
    means = [float(v.mean()) for v in norms.values()]
    st.write(t("tokens.norm.mean", before=means[0], after=means[1], factor=factor)
             + (t("tokens.norm.mean_pos", pos=means[2]) if len(means) > 2 else ""))


def neighbours_map(side, ids, labels):
    rows = run.trace.embed(side).tok[0]  # [pos, d_model]
    near = loaders.vocab_neighbours(run.model, side, tuple(ids), k)
    n_near = near.ids.shape[1]
    faint_rows = near.vectors.reshape(-1, cfg.d_model)  # [pos * k, d_model]
    few = len(set(ids)) < 3  # too few points to fit two axes on the sentence alone
    (_, points, faint), share = pca_2d(np.concatenate([rows, faint_rows]) if few else rows, rows, faint_rows)
    pieces = np.asarray(model.tokenizers[side].display_pieces(near.ids.ravel().tolist()), dtype=object).reshape(near.ids.shape)
    hover = [t("tokens.neighbour.hover", piece=pieces[i, j], token=labels[i], cos=near.cosine[i, j])
             for i in range(len(ids)) for j in range(n_near)]
    st.subheader(t("tokens.projection"))
    st.write(t("tokens.projection.why"))
    if few:
        st.caption(t("tokens.proj.few"))
    axes = [t("tokens.proj.x"), t("tokens.proj.y")]
    page.chart(projection(points, labels, faint, hover, (t("tokens.proj.tokens"), t("tokens.proj.neighbours")),
                          t("tokens.proj.title", share=float(share.sum())), *axes),
               f"tokens.{side}.projection", to_csv(np.concatenate([points, faint]), axes, list(labels) + hover))
    table = {t("tokens.col.token"): list(labels)}
    for j in range(n_near):
        table[t("tokens.col.neighbour", i=j + 1)] = [f"{pieces[i, j]} ({near.cosine[i, j]:.3f})" for i in range(len(ids))]
    st.dataframe(pd.DataFrame(table), hide_index=True)


sides = [side for side in cfg.sides if getattr(run, f"{side}_ids")]
holders = st.tabs([t(f"tokens.side.{side}") for side in sides]) if len(sides) > 1 else [st.container()]
for side, holder in zip(sides, holders):
    with holder:
        ids, labels = getattr(run, f"{side}_ids"), getattr(run, f"{side}_labels")
        token_table(side, ids)
        scaling(side, labels)
        neighbours_map(side, ids, labels)
