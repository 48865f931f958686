"""The browser benchmark (bench/browser.py) still drives the app: a change of the sidebar broke it once
(a second text box in the sidebar took the sentence), and bench.run only wrote "not measured"."""
import math

from bench.browser import first_chart_and_rerender


def test_first_chart_and_rerender_times_a_real_redraw(browser, server):
    # Two sentences of one length: the change shows only in the heatmaps' values (z), not in their axes.
    r = first_chart_and_rerender(browser, server, "the old man sees the red car", ["the small girl sees the big dog"])
    assert r["checks"] == [True]  # the chart's data changed and the link carries the new sentence
    assert all(0 < s < 300 and math.isfinite(s) for s in r["first_all"] + r["rerender_all"])
