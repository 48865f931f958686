"""Decoding: step through generation — the decoder input, the top next tokens, that step's attention rows."""
import streamlit as st

from viz_app.place import decoding as place, knockout, writes
from viz_app import classroom, loaders, page
from viz_app.errors import message
from viz_app.i18n import t
from viz_app.views import decoding as view

cfg = page.start()
st.title(t("page.decoding"))
if not loaders.decoding_applies(cfg.architecture):
    classroom.intro(t("decoding.intro"))
    st.info(t("decoding.no_decoder"))
    st.stop()
method, params, note = place.controls()  # with the page's explanation above them
run = page.current_run()  # the source labels, and the page's notices about the text
if st.session_state.get("tgt", "").strip() and cfg.architecture == "encoder-decoder":
    st.caption(t("decoding.ignores_tgt"))
try:
    with st.spinner(t("spinner.run")):
        decoded = loaders.decode(st.session_state["model"], st.session_state["src"], method, **params)
except ValueError as e:  # e.g. a prompt that leaves no room to generate
    st.error(t("decoding.failed", reason=message(e)))
    st.stop()
tokenizer = page.loaded().tokenizers["tgt"]
labels = view.positions(decoded, tokenizer)
heads = [t("decoding.head", h=h) for h in range(cfg.n_heads)]

k = place.step_control(len(decoded.steps))
step = decoded.steps[k]
if not place.guess_first(decoded, k, labels, tokenizer, method, params):
    st.stop()  # every chart below shows the chosen token
place.sampling_notes(note, decoded, k, params)
left, right = st.columns(2)
with left:
    place.summary(decoded, k, labels, tokenizer)
with right:
    place.next_tokens(step, tokenizer, method, params)
layer = page.layer(cfg.n_decoder_layers, "decoding.layer_note")

st.subheader(t("decoding.cross"))
if step.cross_attn is None:
    st.info(t("decoding.no_cross"))
else:
    place.cross_view(view.cross_rows(step, layer, run.src_labels), view.cross_mean(step, layer), layer, heads)
st.subheader(t("decoding.self"))
place.attention_rows(view.self_rows(step, layer, labels), heads, "decoding.self", t("decoding.self.title", layer=layer),
                     t("decoding.input"))
writes.section(step, tokenizer)

st.subheader(t("decoding.all"))
table, alignment = st.columns([1, 2])
with table:
    place.steps_table(decoded, labels)
with alignment:
    place.all_steps(decoded, labels, run.src_labels, layer, k)
if decoded.beams is not None:
    place.beam_view(decoded, tokenizer, params["width"])
knockout.section(cfg, tokenizer)
