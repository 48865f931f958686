"""Train one live, in a real browser: the button starts a run in the server, the loss chart grows as the model
learns, then the run ends (at its step budget, or at its 60 s bound on a busy machine) and the chart stops."""
from playwright.sync_api import expect

from viz_app.i18n import STRINGS, text

# The live loss chart's number of points, first and last loss, or null before it is drawn (plotly keeps the
# decoded arrays in _fullData; data holds what came over the wire, base64 included).
LOSS = """() => {
  const p = document.querySelector('.st-key-chart-training-live-loss .js-plotly-plot');
  if (!p || !p._fullData || !p._fullData[0]) return null;
  const y = Array.from(p._fullData[0].y);
  return [y.length, y[0], y[y.length - 1]];
}"""


def test_the_button_trains_and_the_loss_chart_grows_then_stops(open_page):
    page, rec = open_page("training?model=reverse&src=one%20two%20three")
    start = page.get_by_role("button", name=text("live.start", "en"))
    start.click()
    page.wait_for_function(f"() => {{ const s = ({LOSS})(); return s && s[0] >= 2; }}", timeout=90_000)
    first = page.evaluate(LOSS)
    page.wait_for_function(f"(n) => {{ const s = ({LOSS})(); return s && s[0] > n; }}", arg=first[0], timeout=90_000)
    expect(start).to_be_enabled(timeout=150_000)  # the run ended: Start is offered again
    ended = page.evaluate(LOSS)
    page.wait_for_timeout(3000)  # a finished run's fragment no longer polls: the chart stays as it is
    assert page.evaluate(LOSS) == ended
    assert ended[0] > first[0] and ended[2] < ended[1]  # more points, and the loss fell from the first
    finished = [STRINGS[f"live.ended.{how}"]["en"].split("{")[0] for how in ("steps", "time")]  # "Done: all "…
    body = page.locator('[data-testid="stMain"]').inner_text()
    assert any(f in body for f in finished), finished
    assert not rec.page_errors and not rec.foreign_requests()
