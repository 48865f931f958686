"""The Masks page's input, controls and tables (streamlit); app_pages/masks.py places them and draws
the charts.

Numbers come from viz_app.views.masks; here they only get their widgets and translated names.
"""
from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from .. import loaders, page, state
from ..export import to_csv
from ..figures.masks import mask_figure, pad_weight_bars, padded_table
from ..i18n import named, t
from ..views import blocks
from ..views import masks as view


def batch_input() -> tuple[str, ...]:
    """The batch's text area; its sentences, or the page stops with what is wrong with them."""
    ss = st.session_state
    state.follow_default("masks.batch", view.default_batch(ss["model"], ss.get("src", "")))  # the sidebar's sentence
    state.drop_surrogates("masks.batch")
    lines, problem = view.batch_lines(st.text_area(t("masks.batch.label"), key="masks.batch", height=130,
                                                   help=t("masks.batch.help"), max_chars=2000))
    if state.link_note("masks.batch"):  # the link holds the text's fingerprint (state.publish)
        st.caption(t(state.link_note("masks.batch"), n=state.MAX_URL_TEXT))
    page.show_noted()
    if problem:
        page.show_notices([problem])
        st.stop()
    return lines


def controls(cfg, lines) -> tuple[str, bool, int, object, view.Padded]:
    """Block, sentence and padding-mask switch, and the batch they ask for: (block, no_pad, row, batch, padded)."""
    ss = st.session_state
    kinds = blocks.blocks(cfg)
    state.setting("masks.block", kinds[0], ok=kinds.__contains__, say_stale=True)
    state.setting("masks.no_pad_mask", False, state.parse_bool)
    left, middle, right = st.columns(3)
    block = left.selectbox(t("masks.block"), kinds, key="masks.block", format_func=named("masks.block"))
    no_pad = right.toggle(t("masks.no_pad_mask"), key="masks.no_pad_mask", help=t("masks.no_pad_mask.help"))
    try:
        with st.spinner(t("spinner.run")):
            batch = loaders.padded_batch(ss["model"], lines, not no_pad)
    except loaders.SentenceError as e:
        st.warning(t("masks.bad.sentence", line=e.line))
        st.stop()
    table = view.padded(batch)
    rows = range(len(lines))
    state.setting("masks.row", table.first_row, state.parse_int, rows.__contains__)  # most padding first
    names = [f"{t('masks.row_name', i=i + 1)}: {line}" for i, line in enumerate(lines)]
    row = middle.selectbox(t("masks.row"), rows, key="masks.row", format_func=names.__getitem__)
    page.show_noted()
    page.show_notices(batch.notices)
    return block, no_pad, row, batch, table


def tables(table: view.Padded, cfg) -> None:
    """The padded ids of each side, padding greyed, and whether this model masks its padding at all."""
    st.subheader(t("masks.table"))
    names = [t("masks.row_name", i=i + 1) for i in range(len(table.ids[0]))]
    for column, key, ids, pads in zip(st.columns(len(table.ids)), table.caption_keys, table.ids, table.pads):
        column.caption(t(key))
        column.dataframe(padded_table(ids, pads, names))
    st.caption(t("masks.table.caption", pad=cfg.pad_id, b=len(names)))
    if not cfg.mask_padding:
        st.info(t("masks.unmasked_padding", pad=cfg.pad_id))
    if not table.any_pad:
        st.info(t("masks.same_length"))


def mask_charts(one: view.Sentence, block: str, row: int, no_pad: bool) -> None:
    """The sentence's masks side by side (in a local layer, its window's), and what applies where."""
    st.subheader(t("masks.masks", i=row + 1))
    st.write(t("masks.masks.about") + (" " + t("masks.off") if no_pad else ""))
    k, q, axes = one.k_labels, one.q_labels, dict(x_title=t("masks.key"), y_title=t("masks.query"))
    for column, (name, mask) in zip(st.columns(len(one.masks)), one.masks):
        with column:
            title = t(f"masks.kind.{name}", w=one.window)
            page.chart(mask_figure(mask, k, q, title, t("masks.allowed"), t("masks.blocked"), **axes),
                       f"masks.mask.{name}", partial(to_csv, mask, k, q))
    window = view.window_note(one)
    if window:
        st.caption(t(window[0], **window[1]))
    if view.padding_note(block):
        st.caption(t(view.padding_note(block)))
    st.info(t("masks.fill"))


def invariance(lines, batch) -> None:
    """Each sentence's largest difference, batched against alone."""
    st.subheader(t("masks.invariance"))
    st.write(t("masks.invariance.about"))
    diff = t("masks.invariance.diff")
    st.dataframe(pd.DataFrame({t("masks.invariance.sentence"): lines, diff: batch.invariance}), hide_index=True,
                 column_config={diff: st.column_config.NumberColumn(format="%.2e")})


def leak(one: view.Sentence) -> None:
    """The weight each query row puts on padding, and the largest of it (or why there is none)."""
    if one.leak is None:
        st.info(t("masks.leak.no_pad"))
        return
    title, axis = t("masks.leak.chart", layer=one.layer, head=one.head), t("masks.leak.axis")
    page.chart(pad_weight_bars(one.leak, one.q_labels, one.query_pad, title, axis, t("masks.query")), "masks.leak",
               partial(to_csv, one.leak_column, [axis], one.q_labels))
    st.write(t("masks.leak.max", real=one.leak_real, all=one.leak_all))
    if one.causal:
        st.caption(t("masks.leak.causal"))
