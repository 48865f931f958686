"""The Training page's live run, through AppTest: Start shows the progress and the charts hold the run's own numbers,
a second session waits in line, Stop stops, a session that goes quiet has its run stopped; the run trains in a
process of its own.

The section is run on its own (the one call the Training page makes), with a small step budget; training is real."""
from __future__ import annotations

import contextlib
import os
import time

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from core_model.checkpoints.probe import NICE
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


def test_the_run_yields_the_cpu_to_the_servers_sessions(steps):
    at = opened()
    press(at, "live.start")
    job, nicer, seen = at.session_state[JOB], min(19, os.getpriority(os.PRIO_PROCESS, 0) + NICE), None
    deadline = time.monotonic() + 30
    while seen != nicer and job.active and time.monotonic() < deadline:  # the run's process lowers itself first
        time.sleep(0.02)
        if job.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                seen = os.getpriority(os.PRIO_PROCESS, job.pid)
    assert seen == nicer > os.getpriority(os.PRIO_PROCESS, 0)
    wait_done(at)


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


@pytest.fixture
def line(monkeypatch):
    """live_training's line, with nothing started (each job stays where start put it); emptied afterwards."""
    monkeypatch.setattr(live_training, "_line", live_training.Line())
    monkeypatch.setattr(live_training, "_next", lambda: None)
    return live_training._line


def test_a_client_address_holds_one_place_however_many_sessions_it_opens(line):
    first = live_training.start("tab 1", "203.0.113.7")
    assert live_training.start("tab 1", "203.0.113.7") is first  # the same session gets its own job back
    for tab in range(2, 34):  # 33 sessions of one client, as in the issue: one place, the others refused
        with pytest.raises(live_training.Refused) as refused:
            live_training.start(f"tab {tab}", "203.0.113.7")
        assert refused.value.reason == "address"
    other = live_training.start("a student", "203.0.113.8")
    assert line.waiting == [first, other] and other.place() == 2
    first.stop()  # once its job has left the line, the address may ask again
    assert live_training.start("tab 2", "203.0.113.7") in line.waiting


def test_sessions_of_an_unknown_address_each_get_a_place_until_the_line_is_full(line, monkeypatch):
    monkeypatch.setattr(live_training, "MAX_WAITING", 3)
    jobs = [live_training.start(f"tab {i}") for i in range(3)]  # the server's own machine: the operator's tabs
    assert line.waiting == jobs
    with pytest.raises(live_training.Refused) as refused:
        live_training.start("tab 4")
    assert refused.value.reason == "full"


def test_a_refused_address_is_told_why_in_its_language(line, monkeypatch):
    live_training.start("another tab", "203.0.113.7")
    monkeypatch.setattr("viz_app.fair.address", lambda: "203.0.113.7")
    at = opened()
    press(at, "live.start")
    assert [w.value for w in at.warning] == [text("live.address", "en")]
    assert JOB not in at.session_state and len(line.waiting) == 1
