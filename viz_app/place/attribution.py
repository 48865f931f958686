"""The attribution page's output picker and its side-by-side of the four methods (streamlit; views/attribution.py)."""
from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from core_model.attribution import COMPLETE

from .. import page, state
from ..export import to_csv
from ..figures.heatmap import matrix
from ..i18n import t
from ..views import attribution as view

KEY = "attribution.output"


def output_choice(choices: tuple[str, ...], default: int) -> int:
    """The output position to explain, picked by its label and kept in the link as a number."""
    positions = range(len(choices))
    state.setting(KEY, default, parse=state.parse_int, ok=positions.__contains__, say_stale=True)
    page.show_noted()  # a link's output the sentence has not got, or no number
    return st.selectbox(t(KEY), positions, key=KEY, format_func=choices.__getitem__)


def side_by_side(side: view.SideBySide, explained: str) -> None:
    """The methods as rows of one heatmap over the input tokens, each row on its own scale, and their numbers."""
    names = [t(f"attribution.method.{m}") for m in side.methods]
    title = t("attribution.chart", token=explained) if explained else t("attribution.chart.cls")
    fig = matrix(side.scaled, side.labels, names, title, (-1.0, 1.0), x_title=t("attribution.inputs"))
    page.chart(fig, "attribution.methods", csv=partial(to_csv, side.values, side.labels, names))
    st.caption(t("attribution.scaled"))
    table = pd.DataFrame(side.values.T, columns=names)
    table.insert(0, t("attribution.token"), side.labels)
    st.dataframe(table, hide_index=True, column_config={n: st.column_config.NumberColumn(format="%.4f") for n in names})


def completeness(found: view.Completeness, steps: int) -> None:
    """Whether integrated gradients added up: Σ attributions against f(input) − f(baseline)."""
    say = "attribution.complete" if found.gap <= COMPLETE else "attribution.incomplete"
    st.caption(t(say, total=found.total, change=found.change, gap=100 * found.gap, steps=steps))


def about(methods: tuple[str, ...], flow_left_out: bool, flow_tokens: int, cross: bool) -> None:
    """What each method means and its known caveats, one sentence each."""
    lines = [f"- **{t(f'attribution.method.{m}')}**: {t(f'attribution.about.{m}')}" for m in methods]
    if flow_left_out:
        lines.append(f"- {t('attribution.flow_left_out', n=flow_tokens)}")
    if cross:
        lines.append(f"- {t('attribution.cross')}")
    st.markdown("\n".join(lines))
