"""The Training page's live run, through AppTest: Start shows the progress and the charts hold the run's own numbers,
a second session waits in line, Stop stops, a session that goes quiet has its run stopped; the run trains in a
process of its own.

The section is run on its own (the one call the Training page makes), with a small step budget; training is real."""
from __future__ import annotations

import os
import time

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from viz_app import live_training
from viz_app.i18n import text
from viz_app.place.live_training import JOB

from .conftest import assert_clean, decode, named_chart, named_z


def section():
    from viz_app.place.live_training import live

    live()


def opened() -> AppTest:
    at = AppTest.from_function(section, default_timeout=60)
    at.run()
    assert_clean(at)
    return at


def press(at: AppTest, key: str) -> None:
    at.button(key=key).click().run()
    assert_clean(at)


def wait_done(at: AppTest, *others: AppTest, seconds: float = 60) -> None:
    """Rerun the section (as its fragment does; each rerun is the session's heartbeat) until the session's job is
    done, rerunning the `others` too (still there, waiting)."""
    deadline = time.monotonic() + seconds
    while at.session_state[JOB].active:
        assert time.monotonic() < deadline, "the live run did not end"
        time.sleep(0.2)
        for session in (at, *others):
            session.run()
    at.run()  # once more, as the section draws a finished run
    assert_clean(at)


@pytest.fixture
def steps(monkeypatch):
    monkeypatch.setattr(live_training, "STEPS", 40)
    monkeypatch.setattr(live_training, "EVERY", 10)
    return 40


def test_start_shows_progress_and_the_charts_hold_the_runs_numbers(steps):
    at = opened()
    assert not at.get("plotly_chart") and not at.button(key="live.start").disabled
    press(at, "live.start")
    job = at.session_state[JOB]
    assert at.get("progress") and not at.button(key="live.stop").disabled
    wait_done(at)
    records = job.records
    assert records[-1].ended == "steps" and records[-1].step == steps
    loss = named_chart(at, "training.live.loss")["data"][0]
    np.testing.assert_array_equal(decode(loss["x"]), [r.step for r in records])
    np.testing.assert_array_equal(decode(loss["y"]), [r.loss for r in records])
    np.testing.assert_allclose(named_z(at, "training.live.cross"), records[-1].cross[-1].mean(0), atol=1e-6)
    assert at.get("progress")[0].proto.value == 100
    assert at.success and f"{steps}" in at.success[0].value
    # the run trained in a process of its own, which has ended: its model and optimizer are not the server's
    assert job.pid not in (None, os.getpid()) and job.exitcode == 0


def test_a_second_session_waits_in_line_and_stop_stops(monkeypatch):
    monkeypatch.setattr(live_training, "STEPS", 100_000)  # the first run goes on until stopped
    first, second = opened(), opened()
    press(first, "live.start")
    press(second, "live.start")
    assert first.session_state[JOB].state == "running"
    assert [i.value for i in second.info] == [text("live.queued", "en", place=1)]
    press(first, "live.stop")
    wait_done(first, second)
    assert first.session_state[JOB].records[-1].ended == "stopped"
    assert "Stopped after" in first.success[0].value
    second.run()
    assert second.session_state[JOB].state == "running" and not second.info  # its turn now
    press(second, "live.stop")
    wait_done(second)
    assert second.session_state[JOB].records[-1].ended == "stopped"


def test_a_session_that_goes_quiet_has_its_run_stopped(monkeypatch):
    monkeypatch.setattr(live_training, "STEPS", 100_000)
    monkeypatch.setattr(live_training, "HEARTBEAT_SECONDS", 1.0)
    at = opened()
    press(at, "live.start")
    job = at.session_state[JOB]
    deadline = time.monotonic() + 60
    while job.active:  # nobody reruns the section: no heartbeat
        assert time.monotonic() < deadline, "a run nobody watches was not stopped"
        time.sleep(0.2)
    assert job.records[-1].ended == "stopped" and job.records[-1].step < 100_000


def test_a_full_line_is_said_and_nothing_is_queued(monkeypatch):
    monkeypatch.setattr(live_training, "MAX_WAITING", 0)  # as if MAX_WAITING sessions waited already
    at = opened()
    press(at, "live.start")
    assert [w.value for w in at.warning] == [text("live.full", "en", n=0)]
    assert JOB not in at.session_state and not at.get("plotly_chart")
    assert live_training._line.waiting == []
