"""The browser benchmark (bench/browser.py) still drives the app: a change of the sidebar broke it once
(a second text box in the sidebar took the sentence), and bench.run only wrote "not measured"."""
import math

import pytest

from bench.browser import FRAGMENTS, first_chart_and_rerender, floor_first_chart, fragment_reruns, kept_alive


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The benchmark's own server: streamlit run through bench.served, which stamps every run; (base, stamps)."""
    from bench.browser import server

    stamps = str(tmp_path_factory.mktemp("served") / "stamps")
    with server(stamps) as (base, _):
        yield base, stamps


def test_first_chart_and_rerender_times_a_real_redraw(browser, served):
    base, stamps = served
    # Two sentences of one length: the change shows only in the heatmaps' values (z), not in their axes.
    r = first_chart_and_rerender(browser, base, "the old man sees the red car", ["the small girl sees the big dog"],
                                 stamps=stamps)
    assert r["checks"] == [True]  # the chart's data changed and the link carries the new sentence
    assert all(0 < s < 300 and math.isfinite(s) for s in r["first_all"] + r["rerender_all"])
    assert len(r["server_all"]) == 1 and 0 < r["server_all"][0] < 60  # the Enter's run, stamped by the server


def test_kept_alive_gets_fetch_a_script_of_streamlits_page_whole(served):
    r = kept_alive(served[0], n=3)
    assert r["ok"] and len(r["all"]) == 3  # each answer was the script's bytes on disk


def test_the_floor_is_timed_on_its_own_one_chart_app(browser):
    r = floor_first_chart(browser, repeats=1)
    assert r["ok"]  # the chart drawn is floor_app.py's: three bars 1, 3, 2
    assert len(r["first_all"]) == 1 and 0 < r["first_s"] < 120


# A page that adds a chart's SVG 600 ms after it starts, and notes when on its own clock.
LATE_CHART = """<html><body><script>setTimeout(() => {
  const chart = document.createElement("div"); chart.dataset.testid = "stPlotlyChart";
  chart.innerHTML = '<svg class="main-svg"></svg>'; document.body.append(chart); window.__added = performance.now();
}, 600);</script></body></html>"""


def test_the_first_chart_is_timed_when_the_page_adds_it_not_when_playwright_looks(browser):
    from bench.browser import first_chart

    ctx = browser.new_context()
    try:
        p = ctx.new_page()
        p.route("http://chart.test/", lambda route: route.fulfill(body=LATE_CHART, content_type="text/html"))
        first = first_chart(p, "http://chart.test/")
        added = p.evaluate("() => window.__added") / 1000
    finally:
        ctx.close()
    # playwright's wait checks at 0, 20, 70, 170 and 270 ms after it starts, then every 500 ms: it sees this chart
    # up to 0.5 s late (0.24 s late here, when it timed it).
    assert 0.6 <= added and abs(first - added) < 0.05, (first, added)


def test_fragment_reruns_time_a_fragment_run_and_check_it(browser, served):
    from bench.served import stamps as read_stamps

    # Two of the controls the benchmark drives, a checkbox and a slider (what each fragment resends:
    # tests/e2e/test_fragments.py)
    cases = [c for c in FRAGMENTS if c[1] in ("explorer.average", "positional.base")]
    base, stamps = served
    rows = fragment_reruns(browser, base, stamps, "the old man sees the red car", cases, repeats=2)
    assert [r["control"] for r in rows] == [c[1] for c in cases]
    for r in rows:
        assert r["ok"], (r["control"], r["why"])  # data changed, a fragment run, nothing outside it sent
        assert len(r["server_all"]) == len(r["browser_all"]) == 2
        assert all(0 < x < 60_000 and math.isfinite(x) for x in r["server_all"] + r["browser_all"])
    # the server stamped every change's fragment run, and the page's first full run before them
    stamped = read_stamps(stamps, since=0)
    finished = [what for kind, _, _, what in stamped if kind == "finished"]
    assert finished.count("FINISHED_FRAGMENT_RUN_SUCCESSFULLY") >= 2 * len(cases)
    assert "FINISHED_SUCCESSFULLY" in finished


def test_in_app_navigation_times_each_page_it_opens(browser, server):
    from bench.browser import in_app_navigation

    pages = [("explorer", "Attention explorer"), ("tokens", "Tokens & embeddings")]
    r = in_app_navigation(browser, server, "the old man sees the red car", pages, rounds=1)
    assert r["ok"] and set(r["pages"]) == {"explorer", "tokens"}
    assert all(0 < v < 60 and len(r["all"][name]) == 1 for name, v in r["pages"].items())


def test_a_cold_start_of_an_imported_folder_times_its_first_chart(browser, tmp_path):
    """bench/real_size.py's cold start, on a 2-layer Llama folder of SmolLM2's vocabulary: the server started as a
    user starts it, the explorer's first chart drawn, the server stopped afterwards."""
    import dataclasses

    pytest.importorskip("transformers")
    from bench import real_size as rs

    spec = dataclasses.replace(rs.BY_NAME["smollm2-135m-random"], name="tiny-smollm2", fields=dict(
        rs.BY_NAME["smollm2-135m-random"].fields, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2))
    path = rs.build(spec, tmp_path / spec.name)
    r = rs.cold_start(browser, spec, path, 24)
    assert r["why"] == "" and r["tokens"] == 24, r
    assert 0 < r["up_s"] <= r["navigation_s"] < r["first_s"] < rs.CHART_TIMEOUT_S  # server up, page opened, drawn
    assert r["peak_mb"] >= r["rss_mb"] > 100  # a streamlit server with torch and the model loaded
