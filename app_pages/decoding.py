"""Decoding: step through generation — the decoder input, the top next tokens, that step's attention rows."""
import streamlit as st

from viz_app import decoding_view as view
from viz_app import loaders, page
from viz_app.i18n import t

cfg = page.start()
st.title(t("page.decoding"))
st.write(t("decoding.intro"))
if not loaders.decoding_applies(cfg.architecture):
    st.info(t("decoding.no_decoder"))
    st.stop()
method, params = view.controls()
view.formulas(method)

run = page.current_run()  # the source labels, and the page's notices about the text
if st.session_state.get("tgt", "").strip() and cfg.architecture == "encoder-decoder":
    st.caption(t("decoding.ignores_tgt"))
try:
    with st.spinner(t("spinner.run")):
        decoded = loaders.decode(st.session_state["model"], st.session_state["src"], method, **params)
except ValueError as e:  # e.g. a prompt that leaves no room to generate
    st.error(t("decoding.failed", reason=e))
    st.stop()
tokenizer = page.loaded().tokenizers["tgt"]
final = decoded.steps[-1]
labels = loaders.token_labels(tokenizer, final.prefix + (final.chosen,))  # every position, "3·chat"
layer = min(st.session_state["layer"], cfg.n_decoder_layers - 1)
heads = [t("decoding.head", h=h) for h in range(cfg.n_heads)]

k = view.step_control(len(decoded.steps))
step = decoded.steps[k]
left, right = st.columns(2)
with left:
    view.summary(decoded, k, labels, tokenizer)
with right:
    view.top_chart(step, tokenizer, method)
if layer != st.session_state["layer"]:
    st.caption(t("decoding.layer_note", n=cfg.n_decoder_layers, layer=layer))

st.subheader(t("decoding.cross"))
if step.cross_attn is None:
    st.info(t("decoding.no_cross"))
else:
    view.cross_view(step, layer, run.src_labels, heads)
st.subheader(t("decoding.self"))
view.attention_rows(step.self_attn[layer], labels[:len(step.prefix)], heads, "decoding.self",
                    t("decoding.self.title", layer=layer), t("decoding.input"))

st.subheader(t("decoding.all"))
table, alignment = st.columns([1, 2])
with table:
    view.steps_table(decoded, labels)
with alignment:
    view.all_steps(decoded, labels, run.src_labels, layer, k)
if decoded.beams is not None:
    st.subheader(t("decoding.beam"))
    st.write(t("decoding.beam.about"))
    view.beam_view(decoded, tokenizer, params["width"])
