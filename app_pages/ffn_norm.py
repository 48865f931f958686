"""FFN, residual & normalization: the residual stream's size, the FFN's hidden units, what a norm does to a
token's vector, and the decoder's prediction read out after every layer (logit lens)."""
import numpy as np
import pandas as pd
import streamlit as st

from viz_app import loaders, page, state
from viz_app.figures import layers as figs
from viz_app.figures.heatmap import matrix, to_csv
from viz_app.i18n import named, t

cfg = page.start()
ss = st.session_state
pre = cfg.norm_placement == "pre"
st.title(t("page.ffn_norm"))
st.write(t("ffn_norm.intro"))
st.write(t("ffn_norm.formula.ffn"))
st.latex(r"\mathrm{FFN}(x) = \mathrm{%s}(x W_1 + b_1)\, W_2 + b_2" % cfg.activation.upper())
st.write(t(f"ffn_norm.formula.{cfg.norm_placement}") + " " + t(f"ffn_norm.formula.{cfg.norm}"))
st.latex((r"x \leftarrow x + \mathrm{Sublayer}(\mathrm{Norm}(x))" if pre else
          r"x \leftarrow \mathrm{Norm}(x + \mathrm{Sublayer}(x))") + r"\qquad" +
         {"layernorm": r"\mathrm{LayerNorm}(x) = \gamma \odot \frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}} + \beta",
          "rmsnorm": r"\mathrm{RMSNorm}(x) = \gamma \odot \frac{x}{\sqrt{\frac{1}{d}\sum_i x_i^2 + \epsilon}}"}[cfg.norm])

stacks = [s for s, has in (("encoder", cfg.has_encoder), ("decoder", cfg.has_decoder)) if has]
if state.synced("ffn_norm.stack", stacks[0]) not in stacks:
    state.bad_link("ffn_norm.stack", ss["ffn_norm.stack"], stacks[0])
    ss["ffn_norm.stack"] = stacks[0]
run = page.current_run()
stack = st.radio(t("ffn_norm.stack"), stacks, key="ffn_norm.stack", horizontal=True,
                 format_func=named("ffn_norm.stack"))
side = "src" if stack == "encoder" else "tgt"
labels, trace = (run.src_labels if side == "src" else run.tgt_labels), run.trace
layer = min(ss["layer"], trace.n_layers(stack) - 1)
if layer != ss["layer"]:
    st.caption(t("ffn_norm.layer_note", n=layer + 1, layer=layer))

st.subheader(t("ffn_norm.stream"))
st.write(t(f"ffn_norm.stream.about.{cfg.norm_placement}"))
stages = figs.stream_stages(trace.names, stack, side, pre)
norms = np.stack([np.linalg.norm(trace[name][0], axis=-1) for _, _, name in stages])  # [stages, pos]
steps = [t(f"ffn_norm.stage.{leaf}") if i is None else t("ffn_norm.stage", layer=i, leaf=leaf) for i, leaf, _ in stages]
page.chart(figs.norm_lines(norms, steps, labels, t("ffn_norm.stream.chart"), t("ffn_norm.stream.axis"),
                           t("ffn_norm.norm_axis")), "ffn_norm.stream", to_csv(norms.T, steps, labels))

st.subheader(t("ffn_norm.ffn", layer=layer))
st.write(t(f"ffn_norm.ffn.about.{cfg.activation}", d_ff=cfg.d_ff))
hidden = trace.layer(stack, layer, "ffn.hidden")[0]  # [pos, d_ff]
inactive = figs.inactive_fraction(hidden, cfg.activation)  # [pos]
left, right = st.columns([3, 1])
with left:
    page.chart(matrix(hidden, None, labels, t("ffn_norm.ffn.chart"), x_title=t("ffn_norm.unit"),
                      y_title=t("ffn_norm.token")), "ffn_norm.hidden", to_csv(hidden, None, labels))
with right:
    page.chart(figs.fraction_bars(inactive, labels, t(f"ffn_norm.inactive.{cfg.activation}"), t("ffn_norm.share")),
               "ffn_norm.inactive", to_csv(inactive[:, None], [t("ffn_norm.share")], labels))

st.subheader(t("ffn_norm.hist", layer=layer))
st.write(t(f"ffn_norm.hist.about.{cfg.norm_placement}", d=cfg.d_model))
positions = range(len(labels))
if state.synced("ffn_norm.token", 0, state.parse_int, positions.__contains__) not in positions:
    ss["ffn_norm.token"] = 0  # the sentence got shorter
page.show_noted()  # a link's token, read only now that the sentence's length is known
token = st.selectbox(t("ffn_norm.token"), positions, key="ffn_norm.token", format_func=labels.__getitem__)
before_name = figs.norm_input_name(stack, side, layer, pre)
before, after = trace[before_name][0, token], trace.layer(stack, layer, "norm1")[0, token]  # [d_model] each
names = [t("ffn_norm.before", name=before_name), t("ffn_norm.after")]
page.chart(figs.norm_histograms(before, after, names, t("ffn_norm.hist.chart", token=labels[token]),
                                t("ffn_norm.value"), t("ffn_norm.count")),
           "ffn_norm.hist", to_csv(np.stack([before, after], 1), names, range(cfg.d_model)))
b, a, z = (figs.moments(v) for v in (before, after, figs.standardized(before, cfg.norm, cfg.norm_eps)))
st.write(t(f"ffn_norm.stats.{cfg.norm}", before=before_name, b_mean=b["mean"], b_std=b["std"], b_rms=b["rms"],
           a_mean=a["mean"], a_std=a["std"], a_rms=a["rms"], z_mean=z["mean"], z_std=z["std"], z_rms=z["rms"]))

st.subheader(t("ffn_norm.lens"))
if not cfg.has_decoder:
    st.info(t("ffn_norm.lens.encoder"))
    st.stop()
st.write(t("ffn_norm.lens.about", final=t("ffn_norm.lens.final") if pre else ""))
lens = loaders.logit_lens(ss["model"], ss["src"], ss.get("tgt", ""))
rows = [t("ffn_norm.lens.layer", layer=i) for i in range(len(lens.top_pieces))]
page.chart(figs.lens_figure(lens.probs_of_final, [[top[0] for top in pos] for pos in lens.top_pieces], run.tgt_labels,
                            rows, t("ffn_norm.lens.chart"), t("ffn_norm.lens.position")),
           "ffn_norm.lens", to_csv(lens.probs_of_final, run.tgt_labels, rows))
st.caption(t("ffn_norm.lens.table", k=loaders.LENS_TOP))
cells = [[" · ".join(f"{p} {q:.2f}" for p, q in zip(pieces, probs)) for pieces, probs in zip(layer_p, layer_q)]
         for layer_p, layer_q in zip(lens.top_pieces, lens.top_probs)]  # [layers][pos]
st.dataframe(pd.DataFrame(np.array(cells, dtype=object).T, index=run.tgt_labels, columns=rows))
