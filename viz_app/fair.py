"""Fair shares of the server between visitors (issue 37): no one address's runs can slow a class.

Streamlit runs each session's script in a thread of its own, all in one process, and a page's Python (Streamlit's,
plotly's, a model's between its matrix products) holds the interpreter's lock: threads that want it take turns
every few milliseconds, whatever the system's priority of each. One address pressing a button in 33 tabs, opening a
page again and again, or tracing a 96-layer model it brought took most of the interpreter from a class
(BENCHMARKS.md, section 9). So every script run (a fragment's included: `fair_runs` wraps Streamlit's
ScriptRunner._run_script, serving.close_to_visitors installs it) of a visitor with an address:

- waits for its address's run before it to end: one run at a time per address, however many tabs it opens (a run
  that waits on something else, its upload's check, steps aside meanwhile: `stepped_aside`);
- is charged the CPU seconds of its thread, as it goes, decayed with a half-life of HALF_LIFE_S;
- *gives way* while a run of a lighter address is under way, when its address's seconds are over HEAVY_S and over
  RATIO times the other's (the operator's runs count as lightest): before it starts, at most WAIT_S, and between
  two layers of its model or two charts of its page (core_model.trace.pace), at most PAUSE_S each time, so the
  longest run still moves. A run on a model a visitor brought gives way to every other address's run from its
  start: its size is its owner's choice (a 96-layer upload), bounded in memory and tokens (loaders/cost.py) but not
  in the seconds a layer takes.

With nobody else running nothing waits: a visitor alone on a server runs at full speed. (Running a heavy thread
nicer is no answer: a nicer thread that holds the interpreter's lock, taken off its core by the system, holds up
every other thread.)

The address is the connection's, or for a connection from this machine the X-Real-IP header deploy/nginx.conf sets
(a visitor cannot set it: nginx replaces it). A visitor on this machine itself (no address) is the operator: never
held back or charged. A class behind one NAT address is one address here: its runs take turns (deploy/README.md).
"""
from __future__ import annotations

import contextlib
import math
import threading
import time
from collections import Counter

import streamlit as st

from core_model.trace.pace import paced

HALF_LIFE_S = 10.0  # an address's CPU seconds count half as much this long after they were spent
HEAVY_S = 2.0  # below this, an address never gives way: a student of the load test, reruns back to back, spent 0.83
RATIO = 2.0  # an address gives way to one that has spent less than a RATIO-th of its seconds
WAIT_S = 2.0  # the longest a run waits before it starts
PAUSE_S = 1.0  # the longest a run under way stops between two layers, or two charts
POLL_S = 0.01


def address() -> str | None:
    """The visitor's address (see the module's doc), or None: on this machine, or outside a server."""
    try:
        return st.context.ip_address or st.context.headers.get("X-Real-Ip")
    except Exception:  # noqa: BLE001 - no session behind this thread (a bare script, a test's thread)
        return None


class Ledger:
    """Each address's CPU seconds, decayed, and the runs under way of each (None: the operator's)."""

    def __init__(self, clock=time.monotonic):
        self._clock, self._lock = clock, threading.Lock()
        self._spent: dict[str, tuple[float, float]] = {}  # address -> (seconds, when they were last decayed)
        self._running: Counter = Counter()
        self._turns: dict[str, list] = {}  # address -> [its lock, the runs holding or waiting for it]

    def spent(self, who: str) -> float:
        with self._lock:
            return self._decayed(who)

    def _decayed(self, who: str | None) -> float:
        if who is None:
            return 0.0
        seconds, then = self._spent.get(who, (0.0, self._clock()))
        return seconds * math.exp2(-(self._clock() - then) / HALF_LIFE_S)

    def charge(self, who: str, seconds: float) -> None:
        with self._lock:
            self._spent[who] = (self._decayed(who) + seconds, self._clock())
            if len(self._spent) > 4096:  # forget the addresses whose seconds are nearly gone
                self._spent = {k: v for k, v in self._spent.items() if self._decayed(k) > 0.01}

    def gives_way(self, who: str | None) -> bool:
        """`who` is heavy and a lighter address has a run under way (the module's doc)."""
        with self._lock:
            mine = self._decayed(who)
            return (who is not None and mine > HEAVY_S
                    and any(n and self._decayed(k) * RATIO < mine for k, n in self._running.items() if k != who))

    def others_running(self, who: str | None) -> bool:
        with self._lock:
            return any(n for k, n in self._running.items() if k != who)

    @contextlib.contextmanager
    def turn(self, who: str):
        """One run at a time for each address: the block waits for the address's run before it to end."""
        with self._lock:
            held = self._turns.setdefault(who, [threading.Lock(), 0])
            held[1] += 1
        held[0].acquire()
        _this_run.turn = held[0]
        try:
            yield
        finally:
            _this_run.turn = None
            held[0].release()
            with self._lock:
                held[1] -= 1
                if not held[1]:
                    del self._turns[who]

    def begin(self, who: str | None) -> None:
        with self._lock:
            self._running[who] += 1

    def end(self, who: str | None) -> None:
        with self._lock:
            self._running[who] -= 1
            if not self._running[who]:
                del self._running[who]


LEDGER = Ledger()
_this_run = threading.local()  # .turn: the address's turn the run in this thread holds


@contextlib.contextmanager
def stepped_aside():
    """Within the block this thread's run waits on something else (its upload's check, in a child process, after the
    uploads in line before it), computing nothing: its address's next run goes meanwhile, and it takes its turn back
    after. Without it, one visitor's upload waiting in line would hold up their other tabs, or a class behind one NAT
    address, for as long."""
    turn = getattr(_this_run, "turn", None)
    if turn is None:
        yield
        return
    turn.release()
    try:
        yield
    finally:
        turn.acquire()


def wait(until_free, most: float, sleep=None) -> float:
    """Sleep while `until_free()` is true, at most `most` seconds; the seconds slept."""
    sleep, slept = sleep or time.sleep, 0.0
    while slept < most and until_free():
        sleep(POLL_S)
        slept += POLL_S
    return slept


class Meter:
    """One run of `who`: its thread's CPU seconds charged as it goes, and its pauses."""

    def __init__(self, who: str, ledger: Ledger, brought: bool = False):
        self.who, self.ledger, self.brought = who, ledger, brought
        self.last = time.thread_time()

    def gives_way(self) -> bool:
        """The run lets others go first: on a model a visitor brought, whenever another address has a run under way;
        else when its address gives way (Ledger.gives_way)."""
        return (self.brought and self.ledger.others_running(self.who)) or self.ledger.gives_way(self.who)

    def charge(self) -> None:
        now = time.thread_time()
        self.ledger.charge(self.who, now - self.last)
        self.last = now

    def pause(self) -> float:
        """Between two layers: charge what the run spent so far, then wait while it gives way."""
        self.charge()
        return wait(self.gives_way, PAUSE_S)


def fair_runs(run_script, brought=lambda: False):
    """ScriptRunner._run_script, each run of a visitor with an address in its turn (the module's doc); `brought()`
    says whether the session's model is one a visitor brought (own_model.session_model_is_own)."""
    def run(runner, rerun_data):
        who = address()
        if who is None:
            return counted(run_script, runner, rerun_data)
        meter = Meter(who, LEDGER, brought())
        with LEDGER.turn(who):
            wait(meter.gives_way, WAIT_S)
            try:
                with paced(meter.pause):
                    return counted(run_script, runner, rerun_data, who)
            finally:
                meter.charge()
    run.fair = True
    return run


def counted(run_script, runner, rerun_data, who: str | None = None):
    """run_script's run, counted as under way for `who` meanwhile."""
    LEDGER.begin(who)
    try:
        return run_script(runner, rerun_data)
    finally:
        LEDGER.end(who)
