"""Training: the learning-rate schedule, label smoothing and teacher forcing, with the sidebar model's real numbers."""
import streamlit as st

from viz_app import classroom, page
from viz_app.i18n import t
from viz_app.place import live_training as place_live
from viz_app.place import training as place

cfg = page.start()
name = st.session_state["model"]
st.title(t("page.training"))
classroom.intro(t("training.intro"))
place.card(name)
place.run_log(name)
place.forming(name)
place_live.live()  # a tiny model trained in this session, one run per server at a time (a fragment)

st.header(t("training.schedule.header"))
st.write(t("training.schedule.about"))
st.latex(r"lr = d_{\mathrm{model}}^{-0.5} \cdot \min\left(step^{-0.5},\ step \cdot warmup^{-1.5}\right)")
place.schedule(cfg)  # its sliders rerun only the schedule (a fragment)

st.header(t("training.smoothing.header"))
if not cfg.has_decoder:
    st.info(t("training.smoothing.none", model=place.shown_name(name)))
    st.stop()
st.write(t("training.smoothing.about"))
page.current_run()  # the sidebar's run, its notices said once; the fragment below reads it from the cache
place.smoothing()

st.header(t("training.teacher.header"))
st.write(t("training.teacher.about"))
place.teacher_forcing(name, cfg.pad_id)
