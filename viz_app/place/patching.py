"""The explorer's comparison of two sentences, taken one step further (streamlit): copy each head of the sidebar's
sentence's run into the second sentence's alone, and see which heads carry the difference between their outputs
(loaders.patched: core_model.interventions.patching)."""
from __future__ import annotations

from functools import partial

import numpy as np

import streamlit as st

from .. import loaders, page, state
from ..errors import message
from ..export import to_csv
from ..figures.heatmap import matrix
from ..i18n import t
from ..text import literal, piece

SHOW = "explorer.compare.patch"


def section(name: str, text_a: str, text_b: str) -> None:
    """The switch, then each attention block's grid of how far each head moves B's prediction toward A's."""
    if not loaders.decoding_applies(loaders.load_model(name).config.architecture):
        return
    state.setting(SHOW, False, state.parse_bool, state.is_bool)
    page.show_noted()
    if not st.toggle(t("patch.show"), key=SHOW, help=t("patch.show.help")):
        return
    try:
        with st.spinner(t("patch.running")):
            found = loaders.patched(name, text_a, text_b)
    except ValueError as e:
        st.info(message(e))
        return
    tokenizer = loaders.load_model(name).tokenizers["tgt"]
    a, b = (literal(piece(tokenizer, i)) for i in (found.token_a, found.token_b))
    st.write(t("patch.intro", step=found.step, a=a, b=b))
    if not found.done:
        st.warning(t("patch.cut", seconds=loaders.PATCH_SECONDS))
    whole = np.stack([np.pad(v, (0, max(map(len, found.whole.values())) - len(v)), constant_values=np.nan)
                      for v in found.whole.values()])  # [blocks, layers]
    layers = [t("explorer.layer_n", n=i) for i in range(whole.shape[1])]
    rows = [part_name(name) for name in found.whole]
    page.chart(matrix(whole, layers, rows, t("patch.whole.title"), (-1, 1), x_title=t("sidebar.layer")),
               "patch.whole", csv=partial(to_csv, whole, layers, rows))
    for block, moved in found.moved.items():
        layers = [t("explorer.layer_n", n=i) for i in range(moved.shape[0])]
        heads = [t("explorer.head_n", n=h) for h in range(moved.shape[1])]
        title = t("patch.title", block=t(f"knockout.block.{block}"))
        page.chart(matrix(moved, heads, layers, title, (-1, 1), x_title=t("decoding.heads"),
                          y_title=t("sidebar.layer")), f"patch.{block}", csv=partial(to_csv, moved, heads, layers))


def part_name(name: str) -> str:
    """An attention block's name, or "<stack> FFN"."""
    stack, kind = name.split(".")
    return t("patch.whole.ffn", stack=t(f"ffn_norm.stack.{stack}")) if kind == "ffn" else t(f"knockout.block.{name}")
