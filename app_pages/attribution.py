"""Attribution: which input tokens one output depends on — attention rollout and flow, gradient × input and
integrated gradients (Captum) — side by side, with what each means and its caveats."""
import streamlit as st

from viz_app import classroom, loaders, page
from viz_app.i18n import t
from viz_app.place import attribution as place, predict
from viz_app.views import attribution as view, predict as asking

ss = st.session_state
cfg = page.start()
st.title(t("page.attribution"))
classroom.intro(t("attribution.intro"))
run = page.current_run()
position = 0
if cfg.has_decoder:
    choices = view.outputs(loaders.read_and_next(run), loaders.ATTRIBUTED_TOKENS)
    position = place.output_choice(choices, len(choices) - 1 if cfg.architecture == "decoder" else 0)
else:
    st.caption(t("attribution.cls"))
if cfg.has_encoder and len(run.src_labels) > loaders.ATTRIBUTED_TOKENS:
    st.info(t("attribution.too_long", n=len(run.src_labels), max=loaders.ATTRIBUTED_TOKENS))
    st.stop()
with st.spinner(t("attribution.spinner")):
    found = loaders.attribution(ss["model"], ss["src"], ss.get("tgt", ""), position)
grads = found.gradients
context = "|".join(map(str, (ss["model"], ss["src"], ss.get("tgt", ""), position)))
if not predict.ask(asking.most_credited(grads.integrated, found.labels, found.explained, context)):
    st.stop()  # every chart below answers it
side = view.side_by_side(found.methods, found.labels)
place.side_by_side(side, found.explained)
place.completeness(view.completeness(grads.integrated, grads.f_input, grads.f_baseline), grads.steps)
place.about(side.methods, "flow" not in found.methods, loaders.FLOW_TOKENS, cfg.architecture == "encoder-decoder")
