"""The FFN & normalization page's charts (streamlit): each takes a view and places its figure."""
from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from .. import page, state
from ..export import to_csv
from ..figures import layers as figs
from ..figures.heatmap import matrix
from ..i18n import t
from ..views import ffn_norm as view


def stream(s: view.Stream) -> None:
    steps = [t(f"ffn_norm.stage.{leaf}") if i is None else t("ffn_norm.stage", layer=i, leaf=leaf) for i, leaf in s.stages]
    page.chart(figs.norm_lines(s.norms, steps, s.labels, t("ffn_norm.stream.chart"), t("ffn_norm.stream.axis"),
                               t("ffn_norm.norm_axis")), "ffn_norm.stream", partial(to_csv, s.norms.T, steps, s.labels))


def hidden(h: view.Hidden, labels, activation: str) -> None:
    left, right = st.columns([3, 1])
    with left:
        page.chart(matrix(h.values, None, labels, t("ffn_norm.ffn.chart"), x_title=t("ffn_norm.unit"),
                          y_title=t("ffn_norm.token")), "ffn_norm.hidden", partial(to_csv, h.values, None, labels))
    with right:
        page.chart(figs.fraction_bars(h.inactive, labels, t(f"ffn_norm.inactive.{activation}"), t("ffn_norm.share")),
                   "ffn_norm.inactive", partial(to_csv, h.inactive[:, None], [t("ffn_norm.share")], labels))


@st.fragment
def token_norm(stack: str, layer: int, cfg, labels: tuple[str, ...]) -> None:
    """The token picker and what the norm does to that token's vector: a fragment, so picking another token
    reruns only this part of the page."""
    token = state.setting("ffn_norm.token", 0, state.parse_int, range(len(labels)).__contains__)
    page.show_noted()  # a link's token, read only now that the sentence's length is known
    st.selectbox(t("ffn_norm.token"), range(len(labels)), key="ffn_norm.token", format_func=labels.__getitem__)
    norm(view.norm(page.cached_run(), stack, layer, token, cfg), labels[token], cfg.norm)


def norm(n: view.Norm, token: str, kind: str) -> None:
    names = [t("ffn_norm.before", name=n.source), t("ffn_norm.after")]
    page.chart(figs.norm_histograms(n.before, n.after, names, t("ffn_norm.hist.chart", token=token),
                                    t("ffn_norm.value"), t("ffn_norm.count")),
               "ffn_norm.hist", partial(to_csv, np.stack([n.before, n.after], 1), names, range(len(n.before))))
    fields = {f"{short}_{m}": n.moments[which][m] for short, which in (("b", "before"), ("a", "after"), ("z", "standardized"))
              for m in ("mean", "std", "rms")}
    st.write(t(f"ffn_norm.stats.{kind}", before=n.source, **fields))


def lens(lens, labels) -> None:
    rows = [t("ffn_norm.lens.layer", layer=i) for i in range(len(lens.top_pieces))]
    page.chart(figs.lens_figure(lens.probs_of_final, [[top[0] for top in pos] for pos in lens.top_pieces], labels,
                                rows, t("ffn_norm.lens.chart"), t("ffn_norm.lens.position")),
               "ffn_norm.lens", partial(to_csv, lens.probs_of_final, labels, rows))
    st.caption(t("ffn_norm.lens.table", k=len(lens.top_pieces[0][0])))
    st.dataframe(pd.DataFrame(view.lens_cells(lens), index=labels, columns=rows))
