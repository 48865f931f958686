"""The positional page's four encodings side by side (streamlit): behind a toggle kept in the link and off by
default (it loads four models), one cell per shipped model, two to a row (one in presenter mode), each with its
position signal on the sentence, one head of layer 0 from position alone, and that head's real attention
(views/encodings.py)."""
from __future__ import annotations

import math
from functools import partial

import streamlit as st

from .. import classroom, loaders, page, state
from ..export import to_csv
from ..figures.heatmap import matrix
from ..figures.positional import CYCLIC_SCALE
from ..i18n import t
from ..views import encodings as views, positional as lab_views, predict as asking
from . import predict
from .positional import ASKED

TOGGLE = "positional.encodings"
# Cells to a row: four columns left each heatmap ~20 px wide at 1440 px (its labels and colour bar take the rest);
# two leave it ~280 px, and a projector's 1024 px gets one, at its 18 px labels.
PER_ROW = 2


def lab_answered() -> bool:
    """Whether the lab's question (place/positional.lab) is answered, or not asked: these charts show which
    positions are alike, so they wait for the guess as the lab's own similarity does (the same question, rebuilt
    from the lab's settings)."""
    if not classroom.predicting():
        return True
    ss = st.session_state
    d_model, length, base = (ss.get(f"positional.{key}", default)
                             for key, default in (("d_model", 128), ("length", 100), ("base", 10000)))
    sim = lab_views.similarity(loaders.sinusoid(length, d_model, base))
    return predict.revealed(asking.most_similar_position(sim, ASKED, f"{d_model}|{length}|{base}"))


def head_name(h: int) -> str:
    return t("encodings.head", h=h)


def runs(text: str) -> dict:
    """kind -> the cached EncodingRun of the model that uses it, or the i18n key saying why there is none."""
    available, out = loaders.available_models(), {}
    with st.spinner(t("encodings.spinner")):
        for kind, name in loaders.ENCODING_MODELS.items():
            try:
                out[kind] = loaders.encoding_run(name, text) if name in available else "encodings.missing"
            except ValueError:  # nothing left for this tokenizer once unusable characters are removed
                out[kind] = "encodings.unreadable"
    return out


def heading(kind: str, run) -> int | None:
    """A column's title, what its encoding does with its caveat, and its head picker (kept in the link)."""
    name = loaders.ENCODING_MODELS[kind]
    st.subheader(t("encodings.column", kind=t(f"encodings.kind.{kind}"), model=name))
    if isinstance(run, str):
        st.info(t(run, model=name))
        return None
    max_len = loaders.load_model(name).config.max_len
    st.caption(t(f"encodings.what.{kind}", max_len=max_len, last=max_len - 1))
    n_heads, key = run.pattern.shape[0], f"{TOGGLE}.head.{kind}"
    state.setting(key, 0, state.parse_int, range(n_heads).__contains__, say_stale=True)
    return st.selectbox(t("encodings.head.label"), range(n_heads), key=key, format_func=head_name)


def signal(e: views.Encoding) -> None:
    """The position signal itself: vectors added, RoPE's angles, or ALiBi's bias of the head."""
    name = f"encodings.{e.kind}.signal"
    if e.kind in views.ADDED:
        fig = matrix(e.signal, None, e.labels, t("encodings.signal.added"), (-e.bound, e.bound),
                     x_title=t("positional.axis.dim"), y_title=t("positional.axis.token"))
        page.chart(fig, name, partial(to_csv, e.raw, None, e.labels))
        st.caption(t("encodings.signal.range", bound=e.bound, peak=e.peak, p=views.PERCENTILE))
    elif e.kind == "rope":
        fig = matrix(e.signal, None, e.labels, t("encodings.signal.rope"), (0, 2 * math.pi), CYCLIC_SCALE,
                     x_title=t("positional.axis.pair"), y_title=t("positional.axis.token"))
        page.chart(fig, name, partial(to_csv, e.raw, None, e.labels))
    else:
        fig = matrix(e.signal, e.labels, e.labels, t("encodings.signal.alibi", h=e.head, slope=e.slope),
                     x_title=t("encodings.axis.key"), y_title=t("encodings.axis.query"))
        page.chart(fig, name, partial(to_csv, e.raw, e.labels, e.labels))


def weights(e: views.Encoding, which: str) -> None:
    """One head's attention weights: from position alone ("alone") or on the sentence ("real")."""
    values = e.alone if which == "alone" else e.pattern
    fig = matrix(values, e.labels, e.labels, t(f"encodings.{which}", h=e.head), (0, 1),
                 x_title=t("encodings.axis.key"), y_title=t("encodings.axis.query"))
    page.chart(fig, f"encodings.{e.kind}.{which}", partial(to_csv, values, e.labels, e.labels))
    if which == "alone":
        st.caption(t(f"encodings.alone.{e.kind}"))


def section() -> None:
    """The toggle, and when it is on (and the lab's question, if asked, is answered) the four encodings."""
    st.header(t("encodings.header"))
    state.setting(TOGGLE, False, state.parse_bool, state.is_bool)
    page.show_noted()  # a link's value for the toggle, said even when it leaves the section closed
    if not st.toggle(t("encodings.toggle"), key=TOGGLE, help=t("encodings.toggle.help")):
        return
    if not lab_answered():  # the lab is a fragment: its answer reruns only the lab, so a button reruns the page
        st.info(t("encodings.wait"))
        st.button(t("encodings.show"), key=f"{TOGGLE}.show")
        return
    st.write(t("encodings.intro", n=loaders.ENCODING_TOKENS))
    found = runs(st.session_state["src"])
    shown = {}
    for cell, (kind, run) in zip(cells(len(found)), found.items()):
        with cell:
            head = heading(kind, run)
            if head is not None:
                shown[kind] = views.encoding(run, head)
    page.show_noted()  # a head the link asked for that its model lacks
    for draw in (signal, partial(weights, which="alone"), partial(weights, which="real")):
        for cell, e in zip(cells(len(found)), (shown.get(k) for k in found)):
            if e is not None:
                with cell:
                    draw(e)


def cells(n: int) -> list:
    """n containers in reading order, PER_ROW to a row, or one to a row in presenter mode."""
    per_row = 1 if classroom.presenting() else PER_ROW
    out = []
    for start in range(0, n, per_row):
        out += st.columns(per_row)[:n - start]
    return out
