"""The shared sidebar: model, sentence, teacher-forcing target, layer, head, language."""
from __future__ import annotations

import streamlit as st

from . import known_words, loaders, long_text, own_model, state
from .errors import message
from .examples import EXAMPLES, FIRST_SENTENCE
from .i18n import LANGUAGES, default_lang, t
from .text import MAX_TEXT_CHARS, literal
from .views import blocks
from .views.explorer import Marks, marks_of


def on_model_change() -> None:
    """A shipped model gets its own example sentence (the old one may mean nothing to it); a user's keeps the text."""
    st.session_state["src"] = EXAMPLES.get(st.session_state["model"], st.session_state.get("src", ""))
    st.session_state["tgt"] = ""


def render():
    """Draw the sidebar and return the chosen model's config (None if no model loads). The language comes last:
    on a 1024×768 screen the sentence box is then in view under the pages' list."""
    state.setting("lang", default_lang(), ok=LANGUAGES.__contains__, say_stale=True)
    cfg = model_and_texts(st.sidebar)
    st.sidebar.radio(t("sidebar.lang"), list(LANGUAGES), key="lang", format_func=LANGUAGES.get, horizontal=True)
    return cfg


def model_and_texts(sb):
    """The model, its own-model and cache choices, the texts, the layer and head; the model's config or None."""
    models = loaders.available_models() + own_model.models()
    if not models:
        sb.error(t("load.none"))
        return None
    first = loaders.first_model()
    state.setting("model", first if first in models else models[0], ok=models.__contains__, say_stale=True)
    sb.selectbox(t("sidebar.model"), models, key="model", on_change=on_model_change, format_func=own_model.labels())
    own_model.render(sb, loaders.load_model)  # a model brought in is loaded into the loaders' cache
    cache_list(sb)
    try:
        with st.spinner(t("spinner.model")):
            cfg = loaders.load_model(st.session_state["model"]).config
    except ValueError as e:
        sb.error(t("load.failed", name=st.session_state["model"], reason=message(e, literal)))
        return None
    texts(sb, cfg)
    sb.caption(t("sidebar.arch", arch=t(f"arch.{cfg.architecture}"), d_model=cfg.d_model, heads=cfg.n_heads,
                 enc=cfg.n_encoder_layers, dec=cfg.n_decoder_layers))
    positions(sb, cfg)
    return cfg


def cache_list(sb) -> None:
    """On a local run, the models of this computer's Hugging Face cache an importer reads, each one click to open."""
    cached = loaders.cached_models()
    if not cached:
        return
    with sb.expander(t("sidebar.cache", n=len(cached))):
        st.caption(t("sidebar.cache.help"))
        for i, model in enumerate(cached):
            row = st.columns([3, 1])
            row[0].markdown(t("sidebar.cache.row", name=literal(model.name), family=model.family, size=model.size))
            row[1].button(t("sidebar.cache.open"), key=f"sidebar.cache.{i}", on_click=open_cached, args=(model.name,))


def open_cached(name: str) -> None:
    st.session_state["model"] = name  # one of the models offered on a local run (loaders.operator_models)
    on_model_change()


def text_box(sb, key: str, default: str) -> None:
    """A text the link keeps (by its fingerprint past state.MAX_URL_TEXT characters), within MAX_TEXT_CHARS."""
    state.synced(key, default)
    state.drop_surrogates(key)
    state.cap_text(key, MAX_TEXT_CHARS)
    sb.text_input(t(f"sidebar.{key}"), key=key, help=t(f"sidebar.{key}.help"), max_chars=MAX_TEXT_CHARS)
    link_caption(sb, key)


def link_caption(box, key: str) -> None:
    """Under a text box: what the page's link keeps of a text too long to hold (state.link_note)."""
    note = state.link_note(key)
    if note:
        box.caption(t(note, n=state.MAX_URL_TEXT))


def texts(sb, cfg) -> None:
    """The sentence, with its longer form (a text area, a .txt file), and for a translator the target to force on
    the decoder."""
    text_box(sb, "src", EXAMPLES.get(st.session_state["model"], FIRST_SENTENCE))
    known_words.render(sb, st.session_state["model"])
    long_text.render(sb, literal(own_model.labels()(st.session_state["model"])), loaders.readable(cfg))
    if cfg.architecture == "encoder-decoder":
        text_box(sb, "tgt", "")


def positions(sb, cfg) -> None:
    """Layer, head, and for a tokenizer that frames its input, the switch that hides [CLS] and [SEP]."""
    state.synced("layer", 0, state.parse_int)
    state.clamp("layer", max(cfg.n_encoder_layers, cfg.n_decoder_layers))
    sb.selectbox(t("sidebar.layer"), range(max(cfg.n_encoder_layers, cfg.n_decoder_layers)), key="layer")
    state.synced("head", 0, state.parse_int)
    state.clamp("head", cfg.n_heads)
    sb.selectbox(t("sidebar.head"), range(cfg.n_heads), key="head")
    if any(tok.frames_input for tok in loaders.load_model(st.session_state["model"]).tokenizers.values()):
        state.setting("hide_special", False, state.parse_bool, state.is_bool)
        sb.toggle(t("sidebar.hide_special"), key="hide_special", help=t("sidebar.hide_special.help"))
    state.setting("half", False, state.parse_bool, state.is_bool)
    sb.toggle(t("sidebar.half"), key="half", help=t("sidebar.half.help"))


def pick_head(chart: str, switch_off: str) -> None:
    """on_select of a chart of heads (customdata: layer, head): the clicked head becomes the sidebar's layer
    and head, and the page's `switch_off` toggle is turned off. A callback, so it runs before the widgets."""
    points = st.session_state[chart]["selection"]["points"]
    if points and "customdata" in points[0]:
        st.session_state["layer"], st.session_state["head"] = (int(v) for v in points[0]["customdata"])
        st.session_state[switch_off] = False


def marks(tokenizers, run) -> dict[str, Marks]:
    """By side, which tokens of the run the tokenizer calls special and which frame it ([CLS] … [SEP]): the
    plain booleans the attention views take instead of a tokenizer."""
    return {side: marks_of(tokenizer, blocks.ids(run, side)) for side, tokenizer in tokenizers.items()}
