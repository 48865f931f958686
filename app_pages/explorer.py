"""Attention explorer: every head at once, one enlarged, lines between tokens, head statistics, HTML export."""
from functools import partial

import streamlit as st

from viz_app.classroom import Latex
from viz_app import classroom, page, sidebar, state
from viz_app.export import grid_csv, to_csv
from viz_app.figures import attention as fa
from viz_app.i18n import named, t
from viz_app.place import compare, explorer as place, predict, qk_space
from viz_app.views import blocks, explorer as view, predict as asking

ss = st.session_state
cfg = page.start()
st.title(t("page.explorer"))
classroom.intro(t("explorer.intro"),
                Latex(r"A_{ij}=\mathrm{softmax}_j\!\left(\frac{q_i\cdot k_j}{\sqrt{d_k}}\right),\qquad \sum_j A_{ij}=1"))
run = page.current_run()
noted = st.container()  # what the link asked for and this page cannot show, said once its settings are read
kinds = blocks.blocks(cfg)
block = state.setting("explorer.kind", kinds[0], ok=kinds.__contains__)
st.selectbox(t("explorer.kind"), kinds, key="explorer.kind", format_func=named("explorer.kind"))
marks = sidebar.marks(page.loaded().tokenizers, run)  # the charts may hide [CLS] and [SEP]; statistics count all
grid = view.grid(run, block, marks, ss.get("hide_special", False), ss["layer"], ss["head"])
if grid.hidden:
    st.info(t("explorer.hidden"))
layers, heads, cells = place.names(grid)
stats = place.detected(view.stats(run, grid, marks), block)
context = "|".join(map(str, (ss["model"], ss["src"], ss.get("tgt", ""), block)))
if "previous" in stats.values and not predict.ask(asking.previous_token_head(stats.values["previous"], context)):
    with noted:
        page.show_noted()
    st.stop()  # the grid and the statistics would give the answer away

st.subheader(t("explorer.grid"))
st.caption(t("explorer.grid.help"))
grid_fig = fa.grid(grid.patterns, layers, heads, t("explorer.grid.hint"), selected=(grid.layer, grid.head),
                   pooled=grid.pooled)
pooled = grid_fig.layout.meta["block"]
if pooled > 1:
    st.caption(t("explorer.grid.pooled", b=pooled) + (t("explorer.grid.all") if grid.pooled > 1 else ""))
page.chart(grid_fig, "explorer.grid",
           select=partial(sidebar.pick_head, page.chart_key("explorer.grid"), "explorer.average"),
           csv=partial(grid_csv, grid.patterns, grid.q_labels, grid.k_labels, cells, pooled, grid.pooled))
place.knock_out(cfg, grid)

stat, titles, table = place.stat_choice(stats)
stat_fig = fa.stat_map(stats.values[stat], layers, heads, titles[stat], zrange=stats.zrange(stat))

st.subheader(t("explorer.focus"))
place.close_up(block, ss.get("hide_special", False), cfg.max_len, [(t("explorer.grid"), grid_fig),
                                                                  (titles[stat], stat_fig)], table)
place.statistics(stats, titles, table)
with noted:
    page.show_noted()
page.chart(stat_fig, "explorer.stats", csv=partial(to_csv, stats.values[stat], heads, layers))
compare.compare(run, cfg)
qk_space.section(cfg, block, ss.get("hide_special", False))
