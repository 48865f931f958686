"""Self-attention step by step: one head of one block, from the block's input X to its output."""
import streamlit as st

from viz_app.classroom import Latex
from viz_app import classroom, loaders, page, state
from viz_app.place import self_attention as place
from viz_app.i18n import named, t
from viz_app.views import blocks
from viz_app.views import predict as asking
from viz_app.views import self_attention as view

cfg = page.start()
ss = st.session_state
st.title(t("page.self_attention"))
about = classroom.intro(t("self_attention.intro"), Latex(
    r"\mathrm{head}_h = \mathrm{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}} + M\right) V,"
    r"\quad Q = X W_Q,\ K = X W_K,\ V = X W_V"))

block = view.pick_block(cfg, state.synced("self_attention.kind", blocks.blocks(cfg)[0]))
if block.missing:  # e.g. cross-attention chosen, then a decoder-only model
    st.info(t("self_attention.kind_missing", block=t(f"self_attention.kind.{block.missing}"),
              shown=t(f"self_attention.kind.{block.block}")))
state.setting("self_attention.kind", block.block, ok=blocks.blocks(cfg).__contains__, say_stale=not block.missing)
unscaled = state.setting("self_attention.unscaled", False, state.parse_bool, state.is_bool)
run = page.current_run(scale=not unscaled)
pick_block, pick_query, pick_scale = st.columns(3)
pick_block.selectbox(t("self_attention.kind"), blocks.blocks(cfg), key="self_attention.kind",
                     format_func=named("self_attention.kind"))
pick_scale.toggle(t("self_attention.unscaled"), key="self_attention.unscaled", help=t("self_attention.unscaled.help"))
layer, head = page.layer(run.trace.n_layers(block.stack), "self_attention.layer_clipped"), ss["head"]
q_labels = view.query_labels(block.block, run.src_labels, run.tgt_labels)
query = state.setting("self_attention.query", 0, state.parse_int, range(len(q_labels)).__contains__)
page.show_noted()  # a link's query, read only now that the number of queries is known
pick_query.selectbox(t("self_attention.query"), range(len(q_labels)), key="self_attention.query",
                     format_func=q_labels.__getitem__)
hs = view.head_steps(run.trace, loaders.block_weights(run.model, block.block, layer, head), cfg, block.block,
                     layer, head, run.src_labels, run.tgt_labels, scale=not unscaled, query=query)
where = t("self_attention.where", layer=layer, head=head, block=t(f"self_attention.kind.{block.block}"))
classroom.note(about, " ".join([where] + [t(f"self_attention.{note}") for note in view.notes(cfg, block.kind)]))
place.window(hs, len(q_labels), len(run.src_labels if block.kind == "cross_attn" else q_labels))
context = "|".join(map(str, (ss["model"], ss["src"], ss.get("tgt", ""), block.block, layer, head, query, unscaled)))
question = asking.strongest_key(view.query_rows(hs)[2], q_labels[query], hs.k_labels, context)
if place.sections(hs, q_labels[query], unscaled, question) and unscaled:
    # the model as trained beside the run without the division, for the same query
    trained = loaders.run(run.model, ss["src"], ss.get("tgt", ""), True, True).trace
    place.saturation(view.saturation(trained, hs, block.block, layer, head), cfg.d_head, hs)
