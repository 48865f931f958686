"""The explorer's comparison of two heads (streamlit): two pickers kept in the link, the two heads' weights, their
difference on one diverging scale, and the cells that differ most (views/compare.py)."""
from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from .. import page, state
from ..export import to_csv
from ..figures.heatmap import matrix
from ..i18n import t
from ..views import compare as view


def head_name(name: str) -> str:
    """A head as the pickers show it: its block, layer and head."""
    block, layer, head = view.parse_head(name)
    return t("explorer.compare.head", block=t(f"explorer.kind.{block}"), layer=layer, head=head)


def picker(column, key: str, ids, default: str) -> str:
    state.setting(key, default, ok=ids.__contains__, say_stale=True)
    return column.selectbox(t(key), ids, key=key, format_func=head_name)


def compare(run, cfg) -> None:
    """Two heads of the sidebar's run side by side, and their difference where they share queries and keys."""
    st.subheader(t("explorer.compare"))
    ids = view.head_ids(cfg, run.trace)
    left, right = st.columns(2)
    first = picker(left, "explorer.compare.a", ids, ids[0])
    second = picker(right, "explorer.compare.b", ids, ids[min(1, len(ids) - 1)])
    pair = view.pair(run, first, second)
    drawn = [(pair.a, head_name(first), "a", (0, 1), pair.labels[0]),
             (pair.b, head_name(second), "b", (0, 1), pair.labels[1])]
    if pair.diff is not None:
        bound = float(abs(pair.diff).max()) or 1.0  # one diverging scale, symmetric about 0
        drawn.append((pair.diff, t("explorer.compare.diff"), "diff", (-bound, bound), pair.labels[0]))
    for column, (values, title, which, zrange, (q, k)) in zip(st.columns(len(drawn)), drawn):
        with column:
            page.chart(matrix(values, k, q, title, zrange, x_title=t("explorer.key"), y_title=t("explorer.query")),
                       f"explorer.compare.{which}", partial(to_csv, values, k, q))
    if pair.diff is None:
        st.info(t("explorer.compare.unlike"))
        return
    columns = [t(f"explorer.compare.col.{c}") for c in ("query", "key", "a", "b", "diff")]
    st.dataframe(pd.DataFrame(list(pair.largest), columns=columns), hide_index=True,
                 column_config={c: st.column_config.NumberColumn(format="%.3f") for c in columns[2:]})
