"""The explorer's queries and keys of a corpus (streamlit): a switch kept in the link and, once it is on, the chosen
head's query and key vectors over held-out sentences on two shared principal axes (views/qk_space.py)."""
from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from .. import classroom, loaders, page, state
from ..figures.qk_space import qk_scatter
from ..i18n import t
from ..views import blocks
from ..views import qk_space as view

TOGGLE = "explorer.qk"  # off by default: the explorer opens without running the model over a corpus


def moved(bar, done: int, total: int) -> None:
    """loaders.qk_corpus's progress: `done` of `total` batches traced."""
    bar.progress(done / total, text=t("qk.progress", done=done, total=total))


def table_csv(space: view.QKSpace, columns: list[str], names: tuple[str, str]) -> str:
    """Every point as a row: query or key (`names`), its token, its sentence and its two coordinates."""
    points = space.points  # [n_q + n_k, 2]
    kinds = [names[0]] * len(space.queries) + [names[1]] * len(space.keys)
    values = (kinds, space.q_tokens + space.k_tokens, space.q_sentences + space.k_sentences, points[:, 0], points[:, 1])
    return pd.DataFrame(dict(zip(columns, values))).to_csv(index=False)


def caption(space: view.QKSpace, block: str, held: loaders.HeldOut) -> str:
    """What the axes show of the vectors' variance, where the sentences come from, and (cross-attention) which
    sentences give the queries and which the keys."""
    parts = [t("qk.caption", n_q=len(space.queries), n_k=len(space.keys), sentences=len(held.src),
               x=float(space.share[0]), y=float(space.share[1])),
             t("qk.source.own" if held.own else "qk.source.borrowed", task=held.task)]
    return " ".join(parts + ([t("qk.cross")] if blocks.SIDES[block][0] != blocks.SIDES[block][1] else []))


def section(cfg, block: str, hide: bool) -> None:
    """The switch and, when it is on, the explorer's head (the sidebar's layer and head in the page's `block`) over
    the model's held-out sentences: its queries and keys projected together, without [CLS] and [SEP] if `hide`."""
    st.subheader(t("qk.title"))
    with classroom.folded(t("qk.about")):  # in presenter mode, folded away under its own label
        st.write(t("qk.intro"))
    state.setting(TOGGLE, False, state.parse_bool, state.is_bool)
    page.show_noted()  # a link's value for the toggle, said even when it leaves the section closed
    if not st.toggle(t("qk.show"), key=TOGGLE, help=t("qk.show.help", n=loaders.QK_SENTENCES)):
        return
    ss = st.session_state
    stack, _ = blocks.split(block)
    layer = min(ss["layer"], (cfg.n_encoder_layers if stack == "encoder" else cfg.n_decoder_layers) - 1)
    bar = st.progress(0.0, text=t("qk.reading"))
    corpus = loaders.qk_corpus(ss["model"], block, layer, partial(moved, bar))
    bar.empty()
    space = view.space(corpus, ss["head"], hide)
    names, axes = (t("qk.queries"), t("qk.keys")), [t("qk.x"), t("qk.y")]
    fig = qk_scatter(space.queries, space.keys, (space.q_tokens, space.q_sentences),
                     (space.k_tokens, space.k_sentences), names, t("qk.chart", layer=layer, head=space.head), *axes)
    columns = [t(f"qk.col.{c}") for c in ("kind", "token", "sentence")] + axes
    page.chart(fig, "explorer.qk", partial(table_csv, space, columns, names))
    st.caption(caption(space, block, loaders.held_out(ss["model"])))
    found = loaders.head_detectors(ss["model"]) if block == "decoder.self_attn" else {}
    if found:  # what the head does on random tokens repeated once (the explorer's statistics hold every head's)
        st.caption(t("qk.detected", layer=layer, head=space.head,
                     **{kind: float(found[kind][layer, space.head]) for kind in found}))
    if space.hidden:
        st.caption(t("qk.hidden", n=space.hidden))
