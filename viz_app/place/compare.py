"""The explorer's comparison (streamlit): two heads of the sidebar's run, one head on the sidebar's sentence and a
second one, or the sidebar's model against a second model on one sentence. Every choice is kept in the link; the two
heads' weights are drawn side by side, their difference over the tokens both runs share on one diverging scale,
and the cells that differ most are listed (views/compare.py). The section is off until its switch is turned on, or a
link names a comparison: three charts fewer to redraw for every new sentence."""
from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from .. import loaders, own_model, page, state
from ..examples import SECOND_SENTENCES
from ..export import to_csv
from ..figures.heatmap import matrix
from ..i18n import named, t
from ..text import clean, literal
from ..views import compare as view
from . import patching

MODES = ("heads", "sentences", "models")
SHOW = "explorer.compare"  # off by default: three more charts for every new sentence to redraw (BENCHMARKS.md, 5)
MODE, FIRST, SECOND, TEXT, MODEL, MODEL_HEAD = (f"explorer.compare.{k}" for k in
                                                ("mode", "a", "b", "text", "model", "model_head"))
PARTNERS = {"lm-en": "lm-en-rope", "lm-en-rope": "lm-en", "translate-en-fr": "lm-en"}  # a second model to start from
LISTED = 12  # unmatched tokens named in the caption, at most, per sentence


def head_name(name: str) -> str:
    """A head as the pickers show it: its block, layer and head."""
    block, layer, head = view.parse_head(name)
    return t("explorer.compare.head", block=t(f"explorer.kind.{block}"), layer=layer, head=head)


def picker(column, key: str, ids, default: str, label: str | None = None) -> str:
    state.setting(key, default, ok=ids.__contains__, say_stale=True)
    return column.selectbox(t(label or key), ids, key=key, format_func=head_name)


def compare(run, cfg) -> None:
    """The sidebar's run against a second one (itself, another sentence's, another model's), head by head."""
    st.subheader(t("explorer.compare"))
    linked = any(key.startswith(f"{SHOW}.") for key in st.query_params)  # a link that names a comparison opens it
    state.setting(SHOW, linked, state.parse_bool, state.is_bool)
    page.show_noted()  # a link's value for the toggle, said even when it leaves the comparison closed
    if not st.toggle(t("explorer.compare.show"), key=SHOW, help=t("explorer.compare.show.help")):
        return
    state.setting(MODE, MODES[0], ok=MODES.__contains__)
    mode = st.radio(t(MODE), MODES, key=MODE, horizontal=True, format_func=named(MODE))
    chosen = {"heads": two_heads, "sentences": two_sentences, "models": two_models}[mode](run, cfg)
    page.show_noted()  # a link's compare settings are read after the page said what it noted
    if chosen is not None:
        first, other, second, titles = chosen
        draw(view.pair(run, first, other, second), titles, mode)
        if mode == "sentences":
            patching.section(st.session_state["model"], st.session_state["src"], st.session_state[TEXT])


def two_heads(run, cfg):
    ids = view.head_ids(cfg, run.trace)
    left, right = st.columns(2)
    first = picker(left, FIRST, ids, ids[0])
    second = picker(right, SECOND, ids, ids[min(1, len(ids) - 1)])
    return first, run, second, (head_name(first), head_name(second))


def two_sentences(run, cfg):
    """The same head on the sidebar's sentence and on a second one typed here (the sidebar's target is its own)."""
    ss = st.session_state
    ids = view.head_ids(cfg, run.trace)
    left, right = st.columns(2)
    first = picker(left, FIRST, ids, ids[0], "explorer.compare.a.both")
    state.follow_default(TEXT, SECOND_SENTENCES.get(ss["model"], ss.get("src", "")))  # the model's example
    state.drop_surrogates(TEXT)
    text = right.text_input(t(TEXT), key=TEXT, help=t(f"{TEXT}.help"), max_chars=2000)  # the sidebar's bound
    if state.link_note(TEXT):  # the link holds the text's fingerprint (state.publish)
        right.caption(t(state.link_note(TEXT), n=state.MAX_URL_TEXT))
    other = second_run(ss["model"], text, "explorer.compare.text.empty", run.notices)
    if other is None:
        return None
    return first, other, first, tuple(t(f"explorer.compare.title.{w}", head=head_name(first)) for w in ("a", "b"))


def two_models(run, cfg):
    """The sidebar's sentence read by its model and by a second one, a head of each."""
    ss = st.session_state
    ids = view.head_ids(cfg, run.trace)
    left, middle, right = st.columns(3)
    first = picker(left, FIRST, ids, ids[0])
    models = loaders.available_models()
    others = [m for m in models if m != ss["model"]] or models
    state.setting(MODEL, PARTNERS.get(ss["model"], others[0]), ok=models.__contains__, say_stale=True)
    name = middle.selectbox(t(MODEL), models, key=MODEL)
    other = second_run(name, ss.get("src", ""), "explorer.compare.model.unreadable", run.notices)
    if other is None:
        return None
    other_ids = view.head_ids(loaders.load_model(name).config, other.trace)
    second = picker(right, MODEL_HEAD, other_ids, first if first in other_ids else other_ids[0])
    label = own_model.labels()
    return first, other, second, (t("explorer.compare.title.model", model=label(ss["model"]), head=head_name(first)),
                                  t("explorer.compare.title.model", model=name, head=head_name(second)))


def second_run(name: str, text: str, unusable: str, said=()):
    """loaders.run as the page runs the sidebar's text (no forced target: that belongs to the sidebar's sentence and
    model) with its notices that the page has not `said` yet, or None after the message `unusable` if nothing in
    `text` is left to read."""
    try:
        if clean(text)[0].strip():
            with st.spinner(t("spinner.run")):
                other = loaders.run(name, text)
            page.show_notices([n for n in other.notices if n not in said])
            return other
    except ValueError:  # a model that does not load, or a text it cannot read
        pass
    st.info(t(unusable))
    return None


def draw(pair: view.Pair, titles, mode: str) -> None:
    """Both heads in full, their difference over the shared tokens, what is left out, and the largest changes."""
    drawn = [(pair.a, titles[0], "a", (0, 1), pair.labels[0]), (pair.b, titles[1], "b", (0, 1), pair.labels[1])]
    if pair.diff is not None:
        bound = float(abs(pair.diff).max()) or 1.0  # one diverging scale, symmetric about 0
        drawn.append((pair.diff, t("explorer.compare.diff"), "diff", (-bound, bound), pair.shared))
    for column, (values, title, which, zrange, (q, k)) in zip(st.columns(len(drawn)), drawn):
        with column:
            page.chart(matrix(values, k, q, title, zrange, x_title=t("explorer.key"), y_title=t("explorer.query")),
                       f"explorer.compare.{which}", partial(to_csv, values, k, q))
    if mode != "heads" and pair.why != "unlike":
        st.caption(matched_caption(pair))
    if pair.diff is None:
        st.info(t(f"explorer.compare.{pair.why}"))
        return
    columns = [t(f"explorer.compare.col.{c}") for c in ("query", "key", "a", "b", "diff")]
    st.dataframe(pd.DataFrame(list(pair.largest), columns=columns), hide_index=True,
                 column_config={c: st.column_config.NumberColumn(format="%.3f") for c in columns[2:]})


def matched_caption(pair: view.Pair) -> str:
    """How many tokens of each run the difference leaves out, and which."""
    if not any(pair.unmatched):
        return t("explorer.compare.matched.all")
    listed = [literal(", ".join(left[:LISTED]) + (" …" if len(left) > LISTED else "")) if left else "—"
              for left in pair.unmatched]
    return t("explorer.compare.matched", n_a=len(pair.unmatched[0]), a=listed[0], n_b=len(pair.unmatched[1]),
             b=listed[1])
