"""Positional encoding lab: sinusoid curves, heatmap and similarity; the model's own encoding; the sentence's sum."""
import streamlit as st

from viz_app.classroom import Latex
from viz_app import classroom, page
from viz_app.i18n import t
from viz_app.place import positional as place
from viz_app.place import encodings

cfg = page.start()
st.title(t("page.positional"))
classroom.intro(t("positional.intro"), t("positional.formula"),
                Latex(r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{base^{2i/d_{\mathrm{model}}}}\right),\quad "
                      r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{base^{2i/d_{\mathrm{model}}}}\right)"))
place.lab(cfg)  # the sliders rerun only the lab and the model's own encoding (a fragment)
place.sentence_section(cfg)
encodings.section()  # all four encodings side by side, behind a toggle (it loads four models)
