"""One live training run per server process at a time (the Training page's "Train one live"), in a background thread.

A session asks with its own token (`start`) and gets a Job; the first job runs, the others wait in line and
are told their place. The session's fragment polls its job (`Job.records`) and calls `Job.heartbeat()` on every
rerun: a job whose session has gone quiet for HEARTBEAT_SECONDS (the visitor left, or opened another page) is
stopped at its next record, or leaves the line. When a run ends its model and optimizer are gone (they live in
core_model.live_train's generator only); the Job keeps its small records, for as long as its session keeps it.
No page code here: viz_app/place/live_training.py draws it.
"""
from __future__ import annotations

import dataclasses
import threading
import time

from core_model.live_train import EVERY, SECONDS, TINY, LiveRun, Probe, Record

STEPS = TINY.steps  # a run's step budget (tests set fewer)
HEARTBEAT_SECONDS = 5.0  # a job whose session has not polled for this long is stopped
MAX_WAITING = 32  # sessions in line at once: one more is told the line is full (start returns None)


class Line:
    """The jobs waiting, the next first (at most MAX_WAITING), and the one running; read and changed under _lock."""

    def __init__(self):
        self.waiting: list[Job] = []
        self.running: Job | None = None


_lock = threading.Lock()
_line = Line()


class Job:
    """One session's request for a live run: queued, then running, then done (its records kept)."""

    def __init__(self, token: str):
        self.token = token
        self.run = LiveRun(dataclasses.replace(TINY, steps=STEPS), every=EVERY, seconds=SECONDS)
        self.records: list[Record] = []  # appended by the training thread only
        self.state = "queued"  # "running", "done"
        self.error: str | None = None
        self._seen = time.monotonic()

    @property
    def steps(self) -> int:
        return self.run.steps

    @property
    def probe(self) -> Probe | None:
        return self.run.probe

    @property
    def active(self) -> bool:
        return self.state != "done"

    def heartbeat(self) -> None:
        """The session is still here (its fragment reran)."""
        self._seen = time.monotonic()

    def gone(self) -> bool:
        return time.monotonic() - self._seen > HEARTBEAT_SECONDS

    def place(self) -> int:
        """1-based place in the line of a waiting job; 0 once it runs or is done."""
        with _lock:
            _drop_gone()
            return _line.waiting.index(self) + 1 if self in _line.waiting else 0

    def stop(self) -> None:
        """Leave the line, or end the run at its next step (its last record says "stopped")."""
        with _lock:
            if self in _line.waiting:
                _line.waiting.remove(self)
                self.state = "done"
        self.run.stop()


def start(token: str) -> Job | None:
    """The session's job: the one it has queued or running, else a new one at the end of the line; None when
    MAX_WAITING sessions wait already."""
    with _lock:
        for job in ([_line.running] if _line.running else []) + _line.waiting:
            if job.token == token:
                return job
        _drop_gone()
        if len(_line.waiting) >= MAX_WAITING:
            return None
        job = Job(token)
        _line.waiting.append(job)
        _next()
    return job


def _drop_gone() -> None:
    """Jobs whose sessions left leave the line (under _lock)."""
    for job in [j for j in _line.waiting if j.gone()]:
        _line.waiting.remove(job)
        job.state = "done"


def _next() -> None:
    """Start the first waiting job if nothing runs (under _lock)."""
    _drop_gone()
    if _line.running is None and _line.waiting:
        _line.running = _line.waiting.pop(0)
        _line.running.state = "running"
        threading.Thread(target=_train, args=(_line.running,), name="live-training", daemon=True).start()


def _train(job: Job) -> None:
    """The training thread: collect the run's records, stop it if its session has gone, then start the next job."""
    try:
        for record in job.run:
            job.records.append(record)
            if job.gone():
                job.run.stop()
    except Exception as error:  # shown to the session, never a dead thread holding the line
        job.error = f"{type(error).__name__}: {error}"
    finally:
        with _lock:
            job.state = "done"
            _line.running = None
            _next()
