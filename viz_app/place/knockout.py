"""The decoding page's knock-out section (streamlit): heads removed and the output decoded again beside the original,
and the sweep that removes each head alone. The numbers are loaders.knocked_out's and loaders.output_score's."""
from __future__ import annotations

import time
from functools import partial

import streamlit as st

from .. import loaders, page, state
from ..export import to_csv
from ..figures import attention as fa
from ..i18n import t
from ..text import markdown_text, piece
from ..views import interventions as view
from ..views import predict as asking
from . import predict

KEY, SWEEP = "knockout.heads", "knockout.sweep"
SWEEP_SECONDS = 30.0  # a sweep stops trying heads after this; what it tried is kept (loaders.output_score)


def head_name(head: view.Head) -> str:
    block, layer, h = head
    return t("knockout.head", block=t(f"knockout.block.{block}"), layer=layer, head=h)


def choose(heads) -> None:
    """on_click: remove exactly these heads."""
    st.session_state[KEY] = list(heads)


def section(cfg, tokenizer) -> None:
    ss = st.session_state
    st.subheader(t("knockout.title"))
    st.write(t("knockout.intro"))
    every = view.heads(cfg)
    # in the link, as every setting; another model's heads are not this one's
    state.setting(KEY, [], view.parse_heads, lambda chosen: all(h in every for h in chosen))
    chosen = st.multiselect(t("knockout.heads"), every, key=KEY, format_func=head_name)
    name, src = ss["model"], ss["src"]
    if chosen:
        compare(loaders.decode(name, src), loaders.knocked_out(name, src, tuple(chosen)),
                (loaders.output_score(name, src), loaders.output_score(name, src, tuple(chosen))), tokenizer)
    state.setting(SWEEP, False, state.parse_bool, state.is_bool)
    page.show_noted()  # a link's knock-out settings are read after the page said what it noted
    if st.toggle(t("knockout.sweep"), key=SWEEP, help=t("knockout.sweep.help")):
        sweep(name, src, every)


def chips(tokenizer, ids, marks) -> str:
    """The output's tokens as badges, the changed ones red, each escaped."""
    return " ".join(f":{'red' if mark else 'gray'}-badge[{markdown_text(piece(tokenizer, i))}]"
                    for i, mark in zip(ids, marks)) or '""'


def compare(original, knocked: tuple[int, ...], scores: tuple[float, float], tokenizer) -> None:
    """The output and the output without the heads (its ids), side by side, the changed tokens marked; log P before
    and after."""
    left, right = st.columns(2)
    left.markdown(f"**{t('knockout.original')}**")
    left.markdown(chips(tokenizer, original.ids, [False] * len(original.ids)))
    left.metric(t("knockout.logp"), f"{scores[0]:.3f}")
    marks = view.changed(original.ids, knocked)
    right.markdown(f"**{t('knockout.without')}**")
    right.markdown(chips(tokenizer, knocked, marks))
    right.metric(t("knockout.logp.without"), f"{scores[1]:.3f}", delta=f"{scores[1] - scores[0]:.3f}")
    same = tuple(original.ids) == knocked
    right.caption(t("knockout.same") if same else t("knockout.changed"))


def sweep(name: str, src: str, every) -> None:
    """Each head removed alone, within SWEEP_SECONDS; predict-then-reveal asks which matters before the grids."""
    bar, scores, deadline = st.progress(0.0, text=t("knockout.sweep.running")), {}, time.monotonic() + SWEEP_SECONDS
    base = loaders.output_score(name, src)
    for i, head in enumerate(every):
        if time.monotonic() > deadline:
            break
        scores[head] = loaders.output_score(name, src, (head,))
        bar.progress((i + 1) / len(every), text=t("knockout.sweep.running"))
    bar.empty()
    found = view.sweep(every, scores, base)
    if not found.done:
        st.warning(t("knockout.sweep.cut", tried=found.tried, total=found.total, seconds=SWEEP_SECONDS))
    short = {b: t(f"knockout.short.{b}") for b in found.drops}
    if not found.tried or not predict.ask(asking.head_that_matters(found.drops, short, f"{name}|{src}")):
        return
    st.caption(t("knockout.sweep.caption"))
    for block, drops in found.drops.items():
        layers = [t("explorer.layer_n", n=i) for i in range(drops.shape[0])]
        heads = [t("explorer.head_n", n=h) for h in range(drops.shape[1])]
        title = t("knockout.sweep.title", block=t(f"knockout.block.{block}"))
        page.chart(fa.stat_map(drops, layers, heads, title), f"knockout.sweep.{block}",
                   csv=partial(to_csv, drops, heads, layers))
    strongest = found.strongest()
    st.button(t("knockout.strongest", head=head_name(strongest)), on_click=choose, args=([strongest],),
              key="knockout.strongest")
