"""The Attention explorer's controls, statistics table and HTML export (streamlit); app_pages/explorer.py
places them and draws the charts.

Numbers come from viz_app.views.explorer; here they only get their widgets and translated names.
"""
from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from .. import classroom, loaders, page, sidebar, state
from ..export import lines_csv, page_html, to_csv
from ..figures import attention as fa
from ..figures.head_lines import page as head_lines_page
from ..i18n import lang, t
from ..views import explorer as view
from . import knockout


HEADS_FONT_PX = {False: 14, True: 18}  # the heads' lines' tokens, on a screen and projected


def names(grid: view.Grid) -> tuple[list[str], list[str], list[str]]:
    """The grid's layer names and head names, and the CSV columns of a grid cell: layer, head, query, key,
    weight (the lines' CSV takes the last three)."""
    n_layers, n_heads = grid.patterns.shape[:2]
    cells = [t("sidebar.layer"), t("sidebar.head"), t("explorer.query"), t("explorer.key"), t("explorer.weight")]
    return ([t("explorer.layer_n", n=i) for i in range(n_layers)], [t("explorer.head_n", n=h) for h in range(n_heads)],
            cells)


def _top_k_ok(max_len: int, value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= max_len  # max_len: all


def _threshold_ok(value) -> bool:
    return isinstance(value, float) and 0 <= value <= 1


def controls(n_q: int, max_len: int) -> tuple[bool, int, float, tuple[int, int]]:
    """Mean over heads, top-k, threshold and the query window: (average, top_k, threshold, (first, last))."""
    ss = st.session_state
    c1, c2, c3, c4 = st.columns([2, 2, 3, 4])
    state.setting("explorer.average", False, state.parse_bool, state.is_bool)
    average = c1.checkbox(t("explorer.average"), key="explorer.average", help=t("explorer.average.help"))
    state.setting("explorer.top_k", 0, state.parse_int, partial(_top_k_ok, max_len))
    top_k = c2.number_input(t("explorer.top_k"), min_value=0, max_value=max_len, step=1, key="explorer.top_k",
                            help=t("explorer.top_k.help"))
    state.setting("explorer.threshold", 0.0, float, _threshold_ok)
    threshold = c3.slider(t("explorer.threshold"), 0.0, 1.0, step=0.01, key="explorer.threshold",
                          help=t("explorer.threshold.help"))
    full = view.first_window(n_q)
    if ss.setdefault("explorer._n", n_q) != n_q:  # another sentence or kind: its first rows, not a stale slice
        ss["explorer._n"], ss["explorer.window"] = n_q, full
    window = state.setting("explorer.window", full, view.parse_window, partial(view.window_ok, n_q))
    if n_q > 1:
        window = c4.slider(t("explorer.window"), 0, n_q - 1, key="explorer.window", help=t("explorer.window.help"))
    return average, top_k, threshold, tuple(window)


def stat_choice(stats: view.Stats) -> tuple[str, dict, pd.DataFrame]:
    """The statistic to map (the picker is drawn later, by `statistics`), every statistic's title, and the table."""
    titles = {s: t(key) for s, key in stats.label_keys.items()}
    table = pd.DataFrame({t("sidebar.layer"): stats.layer, t("sidebar.head"): stats.head,
                          **{titles[s]: stats.column(s) for s in stats.values}})
    return state.setting("explorer.stat", stats.default, str, stats.values.__contains__), titles, table


def statistics(stats: view.Stats, titles: dict, table: pd.DataFrame) -> None:
    """The statistics table, what stands out, and the picker of the statistic to map."""
    st.subheader(t("explorer.stats"))
    st.write(t("explorer.stats.intro"))
    st.latex(r"H=-\sum_j A_{ij}\log A_{ij},\quad D=\sum_j A_{ij}\,|i-j|,"
             r"\quad S=\sum_{j\in\mathcal{S}} A_{ij},\quad P=A_{i,i-1}")
    st.dataframe(table, hide_index=True,
                 column_config={c: st.column_config.NumberColumn(format="%.3f") for c in titles.values()})
    peaks = [f"{titles[s]}: " + ", ".join(t("explorer.top_head", layer=l, head=h, value=v) for l, h, v in top)
             for s, top in stats.peaks]
    st.caption(t("explorer.top_heads", items="; ".join(peaks)))
    found = ", ".join(stats.special)
    st.caption(t("explorer.special", tokens=found) if found else t("explorer.special.none"))
    st.caption(t("explorer.stats.cross" if stats.cross else "explorer.stats.self"))
    if any(name.startswith(view.DETECTED) for name in stats.values):
        st.caption(t("explorer.stats.detected"))
    st.selectbox(t("explorer.stat"), list(stats.values), key="explorer.stat", format_func=titles.get)


@st.fragment
def close_up(block: str, hide: bool, max_len: int, figures, table: pd.DataFrame) -> None:
    """One head (or the mean) up close with its lines, and the page's HTML export: a fragment, so its own
    controls (mean, top-k, threshold, rows) rerun only this part. `figures` are the grid's and the statistics
    map's [(heading, figure)], made by the page's full run; the run is read again from the shared cache."""
    ss, run = st.session_state, page.cached_run()
    grid = view.grid(run, block, sidebar.marks(page.loaded().tokenizers, run), hide, ss["layer"], ss["head"])
    chosen = controls(grid.n_q, max_len)
    focus = view.focus(grid, *chosen)
    title = t(focus.title_key, layer=focus.layer, head=focus.head)
    axes = dict(x_title=t("explorer.keys"), y_title=t("explorer.queries"))
    if focus.k_labels != grid.k_labels:
        st.caption(t("explorer.key_window", k0=focus.keys.start, k1=focus.keys.stop - 1, n=len(grid.k_labels),
                     outside=focus.outside))
    left, right = st.columns([3, 2])
    with left:
        head_fig = fa.head_view(focus.values, focus.k_labels, focus.rows, title, **axes)
        page.chart(head_fig, "explorer.head", csv=partial(to_csv, focus.values, focus.k_labels, focus.rows))
    with right:
        lines_fig = fa.lines(focus.weights, focus.kept, focus.rows, focus.k_labels, focus.start,
                             t("explorer.lines_title"), k_start=focus.keys.start)
        page.chart(lines_fig, "explorer.lines",
                   partial(lines_csv, focus.weights, focus.kept, focus.rows, focus.k_labels, names(grid)[2][2:]))
    st.caption(t("explorer.empty_cells"))
    head_lines(grid, chosen)
    shown = [figures[0], (title, head_fig), (t("explorer.lines_title"), lines_fig), *figures[1:]]
    download(block, title, chosen, shown, table)


def head_lines(grid: view.Grid, chosen) -> None:
    """Every head of the layer as coloured lines over the close-up's rows and keys (BertViz's head view): hovering a
    token keeps only its lines, clicking a head's name hides or shows it (in the browser, no rerun)."""
    _, top_k, threshold, window = chosen
    lines = view.head_lines(grid, top_k, threshold, window)
    st.subheader(t("explorer.heads_lines"))
    heading = t("explorer.heads_lines.title", layer=grid.layer)
    st.iframe(head_lines_page(lines, names(grid)[1], heading, t("explorer.heads_lines.hint"),
                              HEADS_FONT_PX[classroom.presenting()]), height="content", alt=heading)
    if lines.left_out:
        st.caption(t("explorer.heads_lines.left_out", n=lines.left_out, kept=len(lines.weight)))


def detected(stats: view.Stats, block: str) -> view.Stats:
    """A decoder-only model's self-attention statistics with its head detectors' scores (loaders.head_detectors)."""
    if block != "decoder.self_attn":
        return stats
    return view.with_detected(stats, loaders.head_detectors(st.session_state["model"]))


def knock_out(cfg, grid: view.Grid) -> None:
    """A button that takes the head shown up close to the decoding page, removed there (place/knockout.py); only a
    model that decodes has an output to compare."""
    if not loaders.decoding_applies(cfg.architecture):
        return
    head = (grid.block, grid.layer, grid.head)
    if st.button(t("explorer.knock_out", head=knockout.head_name(head)), key="explorer.knock_out",
                 help=t("explorer.knock_out.help")):
        st.session_state[knockout.KEY] = [head]
        st.switch_page("app_pages/decoding.py")


def download(block: str, title: str, chosen, figures, table: pd.DataFrame) -> None:
    """The button that saves the page as one HTML file; `chosen` is what `controls` returned, `figures`
    [(heading, figure)] the charts in page order."""
    st.download_button(t("export.html"), partial(page_html, *_html_args(block, title, chosen, figures, table)),
                       file_name="attention-explorer.html", mime="text/html", key="explorer.html",
                       help=t("explorer.html.help"))


def _html_args(block: str, title: str, chosen, figures, table: pd.DataFrame) -> tuple:
    """page_html's arguments, made now: the download's callable runs later, in a thread without a session."""
    ss = st.session_state
    _, top_k, threshold, (lo, hi) = chosen
    settings = [(t("sidebar.model"), ss["model"]), (t("explorer.sentence"), ss["src"]),
                (t("explorer.target"), ss.get("tgt", "")), (t("explorer.kind"), t(f"explorer.kind.{block}")),
                (t("explorer.focus"), title), (t("explorer.top_k"), top_k), (t("explorer.threshold"), threshold),
                (t("explorer.window"), f"{lo}–{hi}")]
    rows = [list(r) for r in table.round(4).itertuples(index=False)]
    return t("page.explorer"), settings, figures, [(t("explorer.stats"), list(table.columns), rows)], lang()
