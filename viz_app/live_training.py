"""One live training run per server process at a time (the Training page's "Train one live"), in a process of its own.

A session asks with its own token (`start`) and gets a Job; the first job runs, the others wait in line and are
told their place. A client address (where the server sees one) holds one place, waiting or running: 33 sessions of
one client once held the run and all 32 places, and a real student read "32 visitors are already waiting". The run
itself is a fresh Python process (core_model.training.live_train.main: no copy of the server's threads or memory); a thread of the server sends it the task and reads its records into the Job. So the run's
model, optimizer and the ~120,000 objects of the modules an optimizer imports (torch._dynamo, sympy) never enter
the server, whose collection after every script run would walk them for the rest of its life (50-90 ms more a
rerun: RELIABILITY.md), and the run's Python holds the child's interpreter lock, not the one every session's rerun
needs. The session's fragment polls its job (`Job.records`) and calls `Job.heartbeat()` on every rerun: a job whose
session has gone quiet for HEARTBEAT_SECONDS (the visitor left, or opened another page) is stopped at its next
step, or leaves the line. The Job keeps its small records, for as long as its session keeps it. No page code here:
viz_app/place/live_training.py draws it.
"""
from __future__ import annotations

import dataclasses
import pickle
import queue
import subprocess
import sys
import threading
import time

from core_model.training.live_train import EVERY, SECONDS, TINY, Probe, Record

from .registry import ROOT  # the checkout: the run's process imports core_model from it

STEPS = TINY.steps  # a run's step budget (tests set fewer)
HEARTBEAT_SECONDS = 5.0  # a job whose session has not polled for this long is stopped
MAX_WAITING = 32  # sessions in line at once: one more is told the line is full (start returns None)
POLL_SECONDS = 0.5  # the watching thread looks at the run's process and its session this often between records
ENDING_SECONDS = 10.0  # a stopped run's process ends at its next step; past this it is killed
CHILD = "from core_model.training.live_train import main; main()"  # the run's process


class Line:
    """The jobs waiting, the next first (at most MAX_WAITING), and the one running; read and changed under _lock."""

    def __init__(self):
        self.waiting: list[Job] = []
        self.running: Job | None = None


_lock = threading.Lock()
_line = Line()


class Refused(Exception):
    """`start` gave no place: `reason` is "full" (MAX_WAITING wait already) or "address" (the client has one)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class Job:
    """One session's request for a live run: queued, then running, then done (its records kept)."""

    def __init__(self, token: str, client: str | None = None):
        self.token, self.client = token, client
        self.task, self.every = dataclasses.replace(TINY, steps=STEPS), EVERY
        self.records: list[Record] = []  # appended by the watching thread only
        self.probe: Probe | None = None  # set with the first record
        self.state = "queued"  # "running", "done"
        self.error: str | None = None
        self.pid: int | None = None  # the run's process, once started
        self.exitcode: int | None = None  # how that process ended, once it has
        self._stop = threading.Event()  # the watching thread tells the run's process
        self._seen = time.monotonic()

    @property
    def steps(self) -> int:
        return self.task.steps

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
        self._stop.set()


def start(token: str, client: str | None = None) -> Job:
    """The session's job: the one it has queued or running, else a new one at the end of the line. Refused when
    MAX_WAITING sessions wait already, or another session of the same `client` (its address; None: unknown, the
    server's own machine) has a job queued or running."""
    with _lock:
        _drop_gone()
        jobs = ([_line.running] if _line.running else []) + _line.waiting
        for job in jobs:
            if job.token == token:
                return job
        if client is not None and any(job.client == client for job in jobs):
            raise Refused("address")
        if len(_line.waiting) >= MAX_WAITING:
            raise Refused("full")
        job = Job(token, client)
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
    """The watching thread: start the run's process, collect its records, stop it if its session has gone, then
    start the next job. Whatever happens the process ends: stopped, then killed past ENDING_SECONDS."""
    process = None
    try:
        process = subprocess.Popen([sys.executable, "-c", CHILD], cwd=ROOT, stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE)
        job.pid = process.pid
        pickle.dump((job.task, job.every, SECONDS), process.stdin)
        process.stdin.flush()
        _collect(job, process)
    except Exception as error:  # shown to the session, never a dead thread holding the line
        job.error = f"{type(error).__name__}: {error}"
    finally:
        if process is not None:
            _end(job, process)
        with _lock:
            job.state = "done"
            _line.running = None
            _next()


def _collect(job: Job, process: subprocess.Popen) -> None:
    """Records from the run's process into the job until its last word (None); a stop is passed on as a line."""
    items: queue.Queue = queue.Queue()
    threading.Thread(target=_read, args=(process.stdout, items), name="live-training-reader", daemon=True).start()
    asked = False
    while True:
        if (job._stop.is_set() or job.gone()) and not asked:
            process.stdin.write(b"stop\n")
            process.stdin.flush()
            asked = True
        try:
            item = items.get(timeout=POLL_SECONDS)
        except queue.Empty:
            continue
        if isinstance(item, Exception):  # ended without its last word: killed, or out of memory
            raise RuntimeError(f"the training process ended early (exit code {process.poll()})") from item
        if item is None:
            return
        if item[0] == "error":
            job.error = item[1]
        else:
            job.probe = item[1]
            job.records.append(item[2])


def _read(stream, items: queue.Queue) -> None:
    """What the run's process writes, unpickled onto `items`, up to its last word (None) or what stopped it."""
    while True:
        try:
            item = pickle.load(stream)
        except Exception as error:  # noqa: BLE001 - the end of the stream, or a broken one: the watcher says so
            items.put(error)
            return
        items.put(item)
        if item is None:
            return


def _end(job: Job, process: subprocess.Popen) -> None:
    """Close the run's stdin (its stop, if it still runs), wait for it, kill it past ENDING_SECONDS."""
    try:
        process.stdin.close()
    except OSError:
        pass
    try:
        job.exitcode = process.wait(ENDING_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        job.exitcode = process.wait()
    process.stdout.close()
