"""Attention explorer: every head at once, one enlarged, lines between tokens, head statistics, HTML export."""
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from viz_app import head_stats, page, sidebar, state
from viz_app.figures import attention as fa
from viz_app.figures.export import page_html
from viz_app.figures.heatmap import to_csv
from viz_app.i18n import lang, named, t

KINDS = {"encoder-decoder": ["encoder.self_attn", "decoder.self_attn", "decoder.cross_attn"],
         "encoder": ["encoder.self_attn"], "decoder": ["decoder.self_attn"]}
WINDOW = 64  # query rows shown at first: a long input opens on a slice that stays readable
ss = st.session_state


def setting(key, default, parse, ok):
    """A URL-synced page setting: a link's unusable value is said (page.show_noted), one that a new
    sentence made unusable is put back to its default quietly."""
    if not ok(state.synced(key, default, parse, ok)):
        ss[key] = default
        state.publish(key)
    return ss[key]


cfg = page.start()
st.title(t("page.explorer"))
st.write(t("explorer.intro"))
st.latex(r"A_{ij}=\mathrm{softmax}_j\!\left(\frac{q_i\cdot k_j}{\sqrt{d_k}}\right),\qquad \sum_j A_{ij}=1")
run = page.current_run()
noted = st.container()  # what the link asked for and this page cannot show, said once its settings are read

kinds = KINDS[cfg.architecture]
setting("explorer.kind", kinds[0], str, kinds.__contains__)
st.selectbox(t("explorer.kind"), kinds, key="explorer.kind", format_func=named("explorer.kind"))
stack, kind = ss["explorer.kind"].split(".")
q_side = "src" if stack == "encoder" else "tgt"
key_side = "tgt" if stack == "decoder" and kind == "self_attn" else "src"
q_ids, key_ids = (run.src_ids if side == "src" else run.tgt_ids for side in (q_side, key_side))
tokenizers = page.loaded().tokenizers
n_layers, layer, head = run.trace.n_layers(stack), min(ss["layer"], run.trace.n_layers(stack) - 1), ss["head"]
every = np.stack([run.trace.attn(stack, i, kind).pattern[0] for i in range(n_layers)])  # [layers, heads, q, k]
# The views draw the positions the sidebar's switch keeps ([CLS] and [SEP] may be hidden); statistics use all.
qi, ki = sidebar.shown(tokenizers[q_side], q_ids), sidebar.shown(tokenizers[key_side], key_ids)
patterns = every[:, :, qi][..., ki]  # [layers, heads, shown q, shown k]
all_k_labels = run.src_labels if key_side == "src" else run.tgt_labels
q_labels = [(run.src_labels if q_side == "src" else run.tgt_labels)[i] for i in qi]
k_labels = [all_k_labels[i] for i in ki]
n_q = len(q_labels)
if len(qi) < len(q_ids):
    st.info(t("explorer.hidden"))
layer_names = [t("explorer.layer_n", n=i) for i in range(n_layers)]
head_names = [t("explorer.head_n", n=h) for h in range(cfg.n_heads)]

st.subheader(t("explorer.grid"))
st.caption(t("explorer.grid.help"))
grid = fa.grid(patterns, layer_names, head_names, t("explorer.grid.hint"), selected=(layer, head))
if grid.layout.meta["block"] > 1:
    st.caption(t("explorer.grid.pooled", b=grid.layout.meta["block"]))
cells = [t("sidebar.layer"), t("sidebar.head"), t("explorer.query"), t("explorer.key"), t("explorer.weight")]
page.chart(grid, "explorer.grid", select=partial(sidebar.pick_head, "chart.explorer.grid", "explorer.average"),
           csv=partial(fa.grid_csv, patterns, q_labels, k_labels, cells, grid.layout.meta["block"]))

st.subheader(t("explorer.focus"))
c1, c2, c3, c4 = st.columns([2, 2, 3, 4])
setting("explorer.average", False, state.parse_bool, lambda v: isinstance(v, bool))
average = c1.checkbox(t("explorer.average"), key="explorer.average", help=t("explorer.average.help"))
setting("explorer.top_k", 0, state.parse_int, lambda v: isinstance(v, int) and 0 <= v <= cfg.max_len)  # max_len: all
top_k = c2.number_input(t("explorer.top_k"), min_value=0, max_value=cfg.max_len, step=1, key="explorer.top_k",
                        help=t("explorer.top_k.help"))
setting("explorer.threshold", 0.0, float, lambda v: isinstance(v, float) and 0 <= v <= 1)
threshold = c3.slider(t("explorer.threshold"), 0.0, 1.0, step=0.01, key="explorer.threshold",
                      help=t("explorer.threshold.help"))
full = (0, min(n_q, WINDOW) - 1)
if ss.setdefault("explorer._n", n_q) != n_q:  # another sentence or kind: its first rows, not a stale slice
    ss["explorer._n"], ss["explorer.window"] = n_q, full
lo, hi = setting("explorer.window", full, lambda raw: tuple(int(v) for v in raw.strip("()").split(",")),
                 lambda v: isinstance(v, tuple) and len(v) == 2 and 0 <= v[0] <= v[1] < n_q)
if n_q > 1:
    lo, hi = c4.slider(t("explorer.window"), 0, n_q - 1, key="explorer.window", help=t("explorer.window.help"))

blocked = np.isneginf(run.trace.attn(stack, layer, kind).scores_masked[0])[:, qi][..., ki]  # [heads, q, k]
weights = (patterns[layer].mean(0) if average else patterns[layer, head])[lo:hi + 1]  # [window, k]
masked = (blocked.all(0) if average else blocked[head])[lo:hi + 1]
kept = fa.filter_mask(weights, top_k, threshold, allowed=~masked)
values, rows = fa.shown_values(weights, masked, kept), q_labels[lo:hi + 1]
title = t("explorer.mean_title", layer=layer) if average else t("explorer.head_title", layer=layer, head=head)
left, right = st.columns([3, 2])
with left:
    focus = fa.head_view(values, k_labels, rows, title, x_title=t("explorer.keys"), y_title=t("explorer.queries"))
    page.chart(focus, "explorer.head", csv=to_csv(values, k_labels, rows))
with right:
    lines = fa.lines(weights, kept, rows, k_labels, lo, t("explorer.lines_title"))
    page.chart(lines, "explorer.lines", csv=fa.lines_csv(weights, kept, rows, k_labels, cells[2:]))
st.caption(t("explorer.empty_cells"))

st.subheader(t("explorer.stats"))
st.write(t("explorer.stats.intro"))
st.latex(r"H=-\sum_j A_{ij}\log A_{ij},\quad D=\sum_j A_{ij}\,|i-j|,"
         r"\quad S=\sum_{j\,\mathrm{special}} A_{ij},\quad P=A_{i,i-1}")
tokenizer = tokenizers[key_side]
special = np.array([tokenizer.is_special(i) for i in key_ids], dtype=bool)
ids = np.asarray(key_ids)
frame = (ids == tokenizer.bos_id, ids == tokenizer.eos_id) if tokenizer.frames_input else None
stats = head_stats.table(every, special, cross=kind == "cross_attn", frame=frame)
names = {s: t(f"explorer.stat.{s}" + (".cross" if kind == "cross_attn" and s == "distance" else "")) for s in stats}
table = pd.DataFrame({t("sidebar.layer"): np.repeat(np.arange(n_layers), cfg.n_heads),
                      t("sidebar.head"): np.tile(np.arange(cfg.n_heads), n_layers),
                      **{names[s]: v.ravel() for s, v in stats.items()}})
st.dataframe(table, hide_index=True,
             column_config={c: st.column_config.NumberColumn(format="%.3f") for c in names.values()})
peaks = [f"{names[s]}: " + ", ".join(t("explorer.top_head", layer=l, head=h, value=v) for l, h, v in head_stats.top(stats[s]))
         for s in head_stats.PEAK_STATS if s in stats]
st.caption(t("explorer.top_heads", items="; ".join(peaks)))
found = [all_k_labels[j] for j in np.flatnonzero(special)]
st.caption(t("explorer.special", tokens=", ".join(found)) if found else t("explorer.special.none"))
st.caption(t("explorer.stats.cross" if kind == "cross_attn" else "explorer.stats.self"))
setting("explorer.stat", "previous" if "previous" in stats else "entropy", str, stats.__contains__)
stat = st.selectbox(t("explorer.stat"), list(stats), key="explorer.stat", format_func=names.get)
with noted:
    page.show_noted()
stat_fig = fa.stat_map(stats[stat], layer_names, head_names, names[stat],
                       zrange=(0, 1) if stat in head_stats.PEAK_STATS else None)  # weights share the 0..1 scale
page.chart(stat_fig, "explorer.stats", csv=to_csv(stats[stat], head_names, layer_names))

# Everything the file needs is made now: the button's callable runs later, in a thread without a session.
settings = [(t("sidebar.model"), ss["model"]), (t("explorer.sentence"), ss["src"]),
            (t("explorer.target"), ss.get("tgt", "")),
            (t("explorer.kind"), t(f"explorer.kind.{stack}.{kind}")), (t("explorer.focus"), title),
            (t("explorer.top_k"), top_k), (t("explorer.threshold"), threshold), (t("explorer.window"), f"{lo}–{hi}")]
figures = [(t("explorer.grid"), grid), (title, focus), (t("explorer.lines_title"), lines), (names[stat], stat_fig)]
tables = [(t("explorer.stats"), list(table.columns), [list(r) for r in table.round(4).itertuples(index=False)])]
html_args = (t("page.explorer"), settings, figures, tables, lang())
st.download_button(t("export.html"), partial(page_html, *html_args), file_name="attention-explorer.html",
                   mime="text/html", key="explorer.html", help=t("explorer.html.help"))
