"""While a model's weights are read, a bar naming the file and the bytes (issue 36): checkpoints.load's progress.

The load runs inside st.cache_resource (loaders/models.py), and maybe inside another cached function that asked for
the model. A cached function's elements are recorded and replayed on every later hit: a bar drawn there would come
back on each rerun, and an update to a bar drawn outside it cannot be replayed at all (CacheReplayClosureError).
Every st call of the script's thread is also where Streamlit stops a run for a rerun, which would throw a half-read
model away. So the callback only notes how far the read is, and a thread of its own (add_script_run_ctx, as
st.spinner's timer) draws the bar: a new thread starts outside every cached function, and is never stopped.
"""
from __future__ import annotations

import contextlib
import threading

import streamlit as st
from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx

from .i18n import lang, text

MB = 2**20  # as size_text counts them, in the cache's list of models
EVERY = 0.25  # seconds: a load shorter than this draws no bar; a longer one's bar moves this often


def label(file: str, done: int, total: int, language: str) -> str:
    """'model-00001-of-00002.safetensors — 412 / 988 MB read', in `language`."""
    digits = 0 if total >= 10 * MB else 1  # a shipped model of a few MB still shows its bytes move
    return text("load.progress", language, file=file, done=f"{done / MB:,.{digits}f}",
                total=f"{total / MB:,.{digits}f}")


@contextlib.contextmanager
def bar():
    """A progress callback for checkpoints.load inside the block (None outside a script run): once a load has read for
    EVERY seconds, a bar below what the page has drawn so far, gone when the block ends. A model already loaded
    (the cache's hit) tells nothing, so nothing is started or drawn."""
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:
        yield None
        return
    latest, finished, painter = [None], threading.Event(), []

    def progress(file: str, done: int, total: int) -> None:
        latest[0] = (file, done, total)
        if not painter:
            # the language read here: the painter must not wait for the session state, which a widget's callback
            # (an upload's load) holds until the load, and so the painter, is done
            painter.append(threading.Thread(target=paint, args=(latest, finished, lang()), daemon=True))
            add_script_run_ctx(painter[0], ctx).start()
    try:
        yield progress
    finally:
        finished.set()
        for thread in painter:
            thread.join()


def paint(latest: list, finished: threading.Event, language: str) -> None:
    """The painter's thread: the bar at the latest progress every EVERY seconds until the load is finished, then
    none."""
    slot, shown = None, None
    while not finished.wait(EVERY):
        if latest[0] == shown:  # read, the model is being built: the bar stays as it is
            continue
        slot, shown = st.empty() if slot is None else slot, latest[0]
        file, done, total = shown
        slot.progress(done / total if total else 1.0, text=label(file, done, total, language))
    if slot is not None:
        slot.empty()
