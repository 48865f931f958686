"""FFN, residual & normalization: the residual stream's size, the FFN's hidden units, what a norm does to a
token's vector, and the decoder's prediction read out after every layer (logit lens)."""
import streamlit as st

from viz_app.place import contributions, ffn_norm as place
from viz_app.classroom import Latex
from viz_app import classroom, loaders, page, state
from viz_app.i18n import named, t
from viz_app.views import blocks
from viz_app.views import ffn_norm as view

cfg = page.start()
ss = st.session_state
st.title(t("page.ffn_norm"))
ffn_formula, norm_formula = view.formulas(cfg)
classroom.intro(t("ffn_norm.intro"), t("ffn_norm.formula.ffn"), Latex(ffn_formula),
                t(f"ffn_norm.formula.{cfg.norm_placement}") + " " + t(f"ffn_norm.formula.{cfg.norm}"),
                Latex(norm_formula))
if cfg.block != "sequential":  # attention and FFN side by side: the formula above is the whole layer
    st.caption(t(f"ffn_norm.block.{cfg.block}"))

stacks = blocks.stacks(cfg)
state.setting("ffn_norm.stack", stacks[0], ok=stacks.__contains__, say_stale=True)
run = page.current_run()
stack = st.radio(t("ffn_norm.stack"), stacks, key="ffn_norm.stack", horizontal=True, format_func=named("ffn_norm.stack"))
layer = page.layer(run.trace.n_layers(stack), "ffn_norm.layer_note")

st.subheader(t("ffn_norm.stream"))
st.write(t(f"ffn_norm.stream.about.{cfg.norm_placement}"))
stream = view.stream(run, stack, cfg.norm_placement == "pre")
place.stream(stream)

st.subheader(t("ffn_norm.ffn", layer=layer))
st.write(t(f"ffn_norm.ffn.about.{cfg.activation}", d_ff=cfg.d_ff))
place.hidden(view.hidden(run, stack, layer, cfg.activation), stream.labels, cfg.activation)

st.subheader(t("ffn_norm.hist", layer=layer))
st.write(t(f"ffn_norm.hist.about.{cfg.norm_placement}", d=cfg.d_model))
place.token_norm(stack, layer, cfg, tuple(stream.labels))

contributions.section(run, run.tgt_labels)

st.subheader(t("ffn_norm.lens"))
if not cfg.has_decoder:
    st.info(t("ffn_norm.lens.encoder"))
    st.stop()
st.write(t("ffn_norm.lens.about", final=t("ffn_norm.lens.final") if cfg.norm_placement == "pre" else ""))
place.lens(loaders.logit_lens(ss["model"], ss["src"], ss.get("tgt", "")), run.tgt_labels)
