"""viz_app.fair: each address's CPU seconds, decayed; one run at a time per address; a heavy address's run, and any
run on a model a visitor brought, gives way to lighter ones before it starts and between two layers."""
import threading
import time

import pytest

from core_model.trace import pace
from viz_app import fair


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


HOG, STUDENT = "203.0.113.7", "198.51.100.1"


def test_an_addresss_seconds_halve_every_half_life():
    clock = Clock()
    ledger = fair.Ledger(clock)
    ledger.charge(HOG, 4.0)
    assert ledger.spent(HOG) == pytest.approx(4.0)
    clock.now += fair.HALF_LIFE_S
    assert ledger.spent(HOG) == pytest.approx(2.0)
    ledger.charge(HOG, 1.5)  # added to what is left
    assert ledger.spent(HOG) == pytest.approx(3.5)
    assert ledger.spent(STUDENT) == 0


def test_a_heavy_address_gives_way_only_to_a_lighter_run_under_way():
    ledger = fair.Ledger(Clock())
    ledger.charge(HOG, fair.HEAVY_S * 3)
    assert not ledger.gives_way(HOG)  # nobody else is running
    ledger.begin(STUDENT)
    assert ledger.gives_way(HOG)
    ledger.charge(STUDENT, fair.HEAVY_S * 3 / fair.RATIO + 0.1)  # not light enough against it
    assert not ledger.gives_way(HOG)
    ledger.end(STUDENT)
    ledger.begin(None)  # the operator's run counts as the lightest
    assert ledger.gives_way(HOG)
    assert not ledger.gives_way(None)


def test_an_address_below_the_heavy_bound_never_gives_way():
    ledger = fair.Ledger(Clock())
    ledger.charge(STUDENT, fair.HEAVY_S * 0.9)
    ledger.begin("198.51.100.2")  # a run of an address that has spent nothing
    assert not ledger.gives_way(STUDENT)


def test_wait_sleeps_while_asked_and_at_most_its_bound():
    asked, slept = iter([True, True, True, False]), []
    assert fair.wait(lambda: next(asked), 1.0, slept.append) == pytest.approx(3 * fair.POLL_S)
    assert fair.wait(lambda: True, 0.05, lambda s: None) == pytest.approx(0.05)


def test_an_addresss_runs_take_turns_and_another_address_does_not_wait_for_them():
    ledger, order = fair.Ledger(), []
    first_in, release = threading.Event(), threading.Event()

    def one(who, name, hold):
        with ledger.turn(who):
            order.append(name)
            if hold:
                first_in.set()
                release.wait(5)
            order.append(name + " ends")

    first = threading.Thread(target=one, args=(HOG, "first", True))
    first.start()
    first_in.wait(5)
    second = threading.Thread(target=one, args=(HOG, "second", False))
    other = threading.Thread(target=one, args=(STUDENT, "other", False))
    second.start()
    other.start()
    other.join(5)
    assert order == ["first", "other", "other ends"]  # the other address went at once; the second waits
    release.set()
    first.join(5)
    second.join(5)
    assert order[3:] == ["first ends", "second", "second ends"]
    assert ledger._turns == {}  # nothing kept once nobody holds or waits


def test_a_run_on_a_brought_model_gives_way_to_any_other_address_from_its_start():
    ledger = fair.Ledger(Clock())
    brought, plain = fair.Meter(STUDENT, ledger, brought=True), fair.Meter(STUDENT, ledger)
    assert not brought.gives_way()
    ledger.begin("198.51.100.2")
    assert brought.gives_way() and not plain.gives_way()


def run_through(monkeypatch, who, ledger, brought=False, work_s=0.2):
    """fair_runs around a script that spends `work_s` of CPU in a layer loop of 5 pace points: (the ledger's runs
    under way seen inside, the pauses asked for)."""
    monkeypatch.setattr(fair, "LEDGER", ledger)
    monkeypatch.setattr(fair, "address", lambda: who)
    points = []

    def script(runner, rerun_data):
        for _ in range(5):
            pace.between()
            points.append(1)
            end = time.thread_time() + work_s / 5
            while time.thread_time() < end:
                pass
        return dict(ledger._running)

    return fair.fair_runs(script, lambda: brought)(None, None), points


def test_a_run_is_counted_under_way_and_charged_its_threads_cpu_seconds(monkeypatch):
    ledger = fair.Ledger(Clock())  # a clock standing still: nothing decays during the run
    running, points = run_through(monkeypatch, HOG, ledger)
    assert running == {HOG: 1} and ledger._running == {}
    assert len(points) == 5
    assert ledger.spent(HOG) == pytest.approx(0.2, abs=0.05)


def test_the_operators_run_is_counted_but_never_charged_or_paced(monkeypatch):
    ledger = fair.Ledger(Clock())
    monkeypatch.setattr(fair, "Meter", None)  # no meter may be made for it
    running, _ = run_through(monkeypatch, None, ledger)
    assert running == {None: 1} and ledger._spent == {}


def test_a_heavy_run_pauses_between_layers_while_a_lighter_one_is_under_way(monkeypatch):
    ledger, naps = fair.Ledger(Clock()), []
    ledger.charge(HOG, fair.HEAVY_S * 3)
    ledger.begin(STUDENT)
    monkeypatch.setattr(fair.time, "sleep", naps.append)  # the waits before the run and at its pace points
    run_through(monkeypatch, HOG, ledger, work_s=0.01)
    assert sum(naps) == pytest.approx(fair.WAIT_S + 5 * fair.PAUSE_S)  # each wait to its bound: the student never ends
    naps.clear()
    ledger.end(STUDENT)
    run_through(monkeypatch, HOG, ledger, work_s=0.01)
    assert naps == []  # alone, it never waits


def another_tab(ledger, order):
    """A run of HOG's other tab: it notes itself once it has the address's turn."""
    with ledger.turn(HOG):
        order.append("other tab")


def test_a_run_that_steps_aside_lets_its_addresss_next_run_go_then_holds_its_turn_again():
    ledger, order = fair.Ledger(), []
    aside, checked, back, go = (threading.Event() for _ in range(4))

    def uploading():
        with ledger.turn(HOG):
            with fair.stepped_aside():  # its upload waits in line to be checked
                aside.set()
                checked.wait(5)
            back.set()
            go.wait(5)
            order.append("upload done")

    upload = threading.Thread(target=uploading)
    upload.start()
    aside.wait(5)
    first_tab = threading.Thread(target=another_tab, args=(ledger, order))
    first_tab.start()
    first_tab.join(5)
    assert order == ["other tab"]  # it did not wait for the upload's check
    checked.set()
    back.wait(5)
    second_tab = threading.Thread(target=another_tab, args=(ledger, order))
    second_tab.start()
    second_tab.join(0.2)
    assert order == ["other tab"]  # the turn is the upload's again
    go.set()
    upload.join(5)
    second_tab.join(5)
    assert order == ["other tab", "upload done", "other tab"]
    with fair.stepped_aside():  # no run holds a turn in this thread: nothing to give
        pass
