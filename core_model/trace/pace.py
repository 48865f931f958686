"""A point between a model's layers where a long run can let others go first.

A server that runs many people's forward passes in one process (the app) may want a long one, on a very deep model,
to stop for a moment while shorter ones run: the interpreter's lock is shared, so a deep model's Python between its
matrix products slows every other thread. Every Stack calls `between()` before each of its layers (and the app
before each chart it draws); inside `paced(wait)` that calls `wait()` in this thread or task (a ContextVar), outside
it is one lookup. The model's arithmetic is the same either way: `wait` can only take time.
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable
from contextvars import ContextVar

_WAIT: ContextVar[Callable[[], None] | None] = ContextVar("core_model_pace", default=None)


def between() -> None:
    """Between two layers: the wait of the `paced` block this runs in, if any."""
    wait = _WAIT.get()
    if wait is not None:
        wait()


@contextlib.contextmanager
def paced(wait: Callable[[], None]):
    """Within the block, every layer of every model run in this thread or task first calls `wait()`."""
    token = _WAIT.set(wait)
    try:
        yield
    finally:
        _WAIT.reset(token)
