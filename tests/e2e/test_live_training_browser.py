"""Train one live, in a real browser: the button starts a run in the server, the loss chart grows as the model
learns, then the run ends (at its step budget, or at its 60 s bound on a busy machine) and the chart stops.

The steps are the live-training benchmark's own (bench.browser.press_live), so this one run also shows that
the benchmark times a real run and reads the serving process's memory."""
from bench.browser import press_live
from viz_app.i18n import STRINGS


def test_the_button_trains_and_the_loss_chart_grows_then_stops(open_page, server_process):
    page, rec = open_page("training?model=reverse&src=one%20two%20three")
    r = press_live(page, server_process[1])
    # drawn, redrawn longer during the run, the last loss below the first, unchanged 3 s after the end
    assert r["ok"] and r["points"] >= 2, r
    assert 0 < r["wall_s"] < 180 and len(r["lengths"]) >= 2  # the server's RSS sampled during the run
    # a real server's memory, read by PID; the run trains in a process of its own, so the server's RSS may as well
    # fall while it waits (seen: 483 MiB before, 477 at its highest during the run) as rise
    assert 100 < r["before_mb"] and 100 < r["peak_mb"] and 100 < r["after_mb"]
    finished = [STRINGS[f"live.ended.{how}"]["en"].split("{")[0] for how in ("steps", "time")]  # "Done: all "…
    body = page.locator('[data-testid="stMain"]').inner_text()
    assert any(f in body for f in finished), finished
    assert not rec.page_errors and not rec.foreign_requests()
