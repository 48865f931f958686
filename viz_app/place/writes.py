"""The decoding page's "what each head writes" (streamlit): the chosen token's logit split into what each head, each
FFN and the embedding add to the stream (core_model.logit_attribution, through loaders.logit_parts)."""
from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from .. import loaders, page
from ..export import to_csv
from ..figures.heatmap import matrix
from ..i18n import t
from ..text import literal, markdown_text, piece


def section(step, tokenizer) -> None:
    """The step's chosen token's logit, split; a post-norm model is said to have no such split."""
    ss = st.session_state
    st.subheader(t("writes.title", token=markdown_text(piece(tokenizer, step.chosen))))
    if not loaders.writes_directly(ss["model"]):
        st.info(t("writes.post_norm"))
        return
    found = loaders.logit_parts(ss["model"], ss["src"], tuple(step.prefix), step.chosen)
    st.write(t("writes.intro"))
    for block, heads in found.heads.items():
        layers = [t("explorer.layer_n", n=i) for i in range(heads.shape[0])]
        names = [t("explorer.head_n", n=h) for h in range(heads.shape[1])]
        title = t("writes.heads", block=t(f"knockout.block.{block}"), token=piece(tokenizer, step.chosen))
        page.chart(matrix(heads, names, layers, title, x_title=t("decoding.heads"), y_title=t("sidebar.layer")),
                   f"writes.{block}", csv=partial(to_csv, heads, names, layers))
    st.dataframe(pd.DataFrame({t("writes.part"): [part_name(*key) for key in found.rest],
                               t("writes.logit"): list(found.rest.values())}), hide_index=True)
    heads_sum = sum(float(h.sum()) for h in found.heads.values())
    st.caption(t("writes.sum", heads=heads_sum, rest=sum(found.rest.values()), total=found.total, logit=found.logit,
                 token=literal(piece(tokenizer, step.chosen))))


def part_name(kind: str, block: str, layer: int) -> str:
    """A part of the stream besides the heads (logit_attribution.Attribution.rest's key) in words."""
    block_name = t(f"knockout.block.{block}") if block else ""
    return t(f"writes.part.{kind}", block=block_name, layer=layer)
