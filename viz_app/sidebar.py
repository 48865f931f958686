"""The shared sidebar: model, sentence, teacher-forcing target, layer, head, language."""
from __future__ import annotations

import numpy as np
import streamlit as st

from . import loaders, own_model, state
from .i18n import LANGUAGES, t

EXAMPLES = {  # a first sentence for each shipped model, in words it knows
    "translate-en-fr": "the small girl does not see the red car",
    "lm-en": "the old man",
    "reverse": "one two three four five",
    "all-MiniLM-L6-v2": "the animal didn't cross the street because it was too tired",
}


def on_model_change() -> None:
    """A shipped model gets its own example sentence (the old one may mean nothing to it); a user's keeps the text."""
    st.session_state["src"] = EXAMPLES.get(st.session_state["model"], st.session_state.get("src", ""))
    st.session_state["tgt"] = ""


def render():
    """Draw the sidebar and return the chosen model's config (None if no model loads)."""
    models = loaders.available_models() + own_model.models()
    sb = st.sidebar
    state.synced("lang", "en")
    if st.session_state["lang"] not in LANGUAGES:
        state.bad_link("lang", st.session_state["lang"], "en")
        st.session_state["lang"] = "en"
    sb.radio(t("sidebar.lang"), list(LANGUAGES), key="lang", format_func=LANGUAGES.get, horizontal=True)
    if not models:
        sb.error(t("load.none"))
        return None
    state.synced("model", models[0])
    if st.session_state["model"] not in models:
        state.bad_link("model", st.session_state["model"], models[0])
        st.session_state["model"] = models[0]
    sb.selectbox(t("sidebar.model"), models, key="model", on_change=on_model_change, format_func=own_model.labels())
    own_model.render(sb)
    try:
        with st.spinner(t("spinner.model")):
            cfg = loaders.load_model(st.session_state["model"]).config
    except ValueError as e:
        sb.error(t("load.failed", name=st.session_state["model"], reason=e))
        return None
    sb.caption(t("sidebar.arch", arch=t(f"arch.{cfg.architecture}"), d_model=cfg.d_model, heads=cfg.n_heads,
                 enc=cfg.n_encoder_layers, dec=cfg.n_decoder_layers))
    state.synced("src", EXAMPLES.get(st.session_state["model"], ""))
    state.drop_surrogates("src")
    sb.text_input(t("sidebar.src"), key="src", help=t("sidebar.src.help"), max_chars=2000)
    if not state.linkable("src"):
        sb.caption(t("input.unlinked", n=state.MAX_URL_TEXT))
    if cfg.architecture == "encoder-decoder":
        state.synced("tgt", "")
        state.drop_surrogates("tgt")
        sb.text_input(t("sidebar.tgt"), key="tgt", help=t("sidebar.tgt.help"), max_chars=2000)
        if not state.linkable("tgt"):
            sb.caption(t("input.unlinked", n=state.MAX_URL_TEXT))
    n_layers = max(cfg.n_encoder_layers, cfg.n_decoder_layers)
    state.synced("layer", 0, state.parse_int)
    state.clamp("layer", n_layers)
    sb.selectbox(t("sidebar.layer"), range(n_layers), key="layer")
    state.synced("head", 0, state.parse_int)
    state.clamp("head", cfg.n_heads)
    sb.selectbox(t("sidebar.head"), range(cfg.n_heads), key="head")
    if any(tok.frames_input for tok in loaders.load_model(st.session_state["model"]).tokenizers.values()):
        state.synced("hide_special", False, state.parse_bool)
        sb.toggle(t("sidebar.hide_special"), key="hide_special", help=t("sidebar.hide_special.help"))
    return cfg


def pick_head(chart: str, switch_off: str) -> None:
    """on_select of a chart of heads (customdata: layer, head): the clicked head becomes the sidebar's layer
    and head, and the page's `switch_off` toggle is turned off. A callback, so it runs before the widgets."""
    points = st.session_state[chart]["selection"]["points"]
    if points and "customdata" in points[0]:
        st.session_state["layer"], st.session_state["head"] = (int(v) for v in points[0]["customdata"])
        st.session_state[switch_off] = False


def shown(tokenizer, ids) -> np.ndarray:
    """The positions of `ids` the attention views draw: all, or all but [CLS] and [SEP] if the switch is on."""
    ids = np.asarray(ids)
    if st.session_state.get("hide_special") and tokenizer.frames_input:
        return np.flatnonzero((ids != tokenizer.bos_id) & (ids != tokenizer.eos_id))
    return np.arange(len(ids))
