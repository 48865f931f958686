"""The FFN & residual page's contribution graph: its edges are the paths views.contributions finds in
core_model.contributions' shares of the run (both checked on their own: tests/core/test_contributions.py,
tests/viz/test_views_contributions.py); a click on a head's point makes it the sidebar's head; a post-norm model
is told why it has none."""
from __future__ import annotations

from core_model import contributions, run_with_trace
from tests.app.conftest import assert_clean, named_chart, open_page
from viz_app import loaders, sidebar
from viz_app.i18n import text
from viz_app.page import chart_key
from viz_app.views.contributions import paths

SENTENCE = "the old man sees the red car"


def drawn(at) -> list[tuple]:
    """(legend name, share) of every edge point the graph draws."""
    out = []
    for trace in named_chart(at, "graph")["data"]:
        if trace.get("mode") == "markers" and "text" in trace:
            out += [(trace["name"], round(float(t.rsplit(" ", 1)[1]), 3)) for t in trace["text"]]
    return sorted(out)


def expected(threshold: float) -> list[tuple]:
    model = loaders.load_model("lm-en")
    ids = loaders.run("lm-en", SENTENCE).tgt_ids
    _, trace = run_with_trace(model.model, None, list(ids))
    edges = paths(contributions.shares(model.model, trace), len(ids) - 1, threshold)
    names = {"residual": "residual", "ffn": "FFN"}
    return sorted((names.get(e.kind) or f"head {e.head}", round(e.share, 3)) for e in edges)


def test_the_graph_draws_the_paths_of_the_last_tokens_state_and_the_threshold_prunes_them():
    at = open_page("ffn_norm", model="lm-en", src=SENTENCE)
    assert_clean(at)
    assert drawn(at) == expected(0.04)
    at.slider(key="graph.threshold").set_value(0.2).run()
    assert_clean(at)
    assert drawn(at) == expected(0.2) and len(expected(0.2)) < len(expected(0.04))


def test_a_click_on_a_heads_point_makes_it_the_sidebars_head():
    """Each attention edge's point carries its (layer, head), the customdata sidebar.pick_head reads on a click; a
    click the browser would send for one of them makes it the sidebar's head."""
    at = open_page("ffn_norm", model="lm-en", src=SENTENCE)
    points = [(t["name"], c) for t in named_chart(at, "graph")["data"] if t.get("mode") == "markers" and "text" in t
              for c in t["customdata"]]
    heads = [(name, c) for name, c in points if name.startswith("head ")]
    assert heads and all(name == f"head {c[1]}" for name, c in heads)
    model = loaders.load_model("lm-en")
    _, trace = run_with_trace(model.model, None, list(loaders.run("lm-en", SENTENCE).tgt_ids))
    edges = paths(contributions.shares(model.model, trace), len(loaders.run("lm-en", SENTENCE).tgt_ids) - 1, 0.04)
    assert sorted(c for _, c in heads) == sorted([e.layer, e.head] for e in edges if e.kind == "attention")
    import streamlit as st

    layer, head = heads[0][1]
    point = {"curve_number": 1, "point_number": 0, "point_index": 0, "customdata": [layer, head]}
    st.session_state.clear()
    st.session_state.update({chart_key("graph"): {"selection": {"points": [point]}}, "layer": -1, "head": -1})
    sidebar.pick_head(chart_key("graph"), "graph.picked")  # the chart's on_select (page.chart's select)
    assert (st.session_state["layer"], st.session_state["head"]) == (layer, head)


def test_a_post_norm_model_is_told_why_it_has_no_graph():
    at = open_page("ffn_norm", src="the small girl does not see the red car")
    assert_clean(at)
    assert text("graph.not_applicable", "en") in [i.value for i in at.info]
