"""Once per server process: every app module imported, then moved out of the garbage collector's sight.

Streamlit runs a full garbage collection after every script run (its `runner.postScriptGC` option), a
fragment's included. With torch, plotly and pandas imported, a full collection walks about 250,000
long-lived objects: 170–210 ms on a 2-core machine (BENCHMARKS.md, "Where a warm rerun's time goes"),
holding the GIL, so the server sends nothing meanwhile and every other session's rerun waits.
`gc.freeze()` puts the objects alive at that moment (modules, classes, functions: they live as long as
the process) in a generation no collection visits; a collection then walks only what the runs made.
Objects that are not cyclic are still freed by reference counting when they are frozen.

Even so, what the runs made grows with the sessions: with a class of 10 and one busy visitor's 33 more, a full
collection took about 12 ms, and one after each of some 20 runs a second held the GIL a quarter of the time (a
GIL profile of the load test). So Streamlit's own collection after each run is off (`runner.postScriptGC`), and
`collected_now_and_then` makes one full collection after a run at most every FULL_COLLECTION_S seconds: what
Streamlit's option is for (memory in garbage cycles given back, not left to build up) at a bounded cost. Python's
own collections of the young generations go on as always.

numpy's OpenBLAS is held to one thread. The views multiply small matrices (a 100 × 128 table by its
transpose), where a second thread gains nothing, and OpenBLAS's idle threads spin on a core before they sleep:
with chromium drawing on the other core, a positional-lab fragment's script run took 26–104 ms with two
threads and 20–29 ms with one (timed around Streamlit's ScriptRunner in a real server, 2 cores).

torch leaves one core to the rest: the server's event loop sending the run, the visitor's browser (on a laptop,
the same machine) and the other sessions' runs, each in a thread of its own. Its OpenMP threads spin too: on
2 cores, with chromium redrawing, a new sentence's run on the explorer took 0.16–0.54 s (median 0.35) with
torch's two threads and 0.11–0.18 s (median 0.13) with one, on the server's own clock (bench/served.py).
A real-size run is another matter (seconds of matrix products, not milliseconds of overhead): `large_run` gives
it all of them (GPT-2 small at 512 tokens: the explorer's run and continuation took 16 s on one thread).

Responses are sent at once. Streamlit 1.67 binds its listening socket as `socket.socket(family)`, protocol 0, and
asyncio turns Nagle's algorithm off only on sockets whose protocol is IPPROTO_TCP: on every kept-alive connection a
response's body (written after its headers) then waited for the browser's delayed acknowledgement, 40 ms. A fresh
explorer fetches 134 scripts over chromium's 6 connections to the server; one small script, GET after GET on one
connection, took 44 ms each before and 1.0 ms after (`bench.browser.kept_alive`). A listening socket passes
TCP_NODELAY on to the connections it accepts.
"""
from __future__ import annotations

import contextlib
import gc
import importlib
import os
import pkgutil
import socket
import stat
import threading
import time
from urllib.parse import urlencode

import torch

from threadpoolctl import threadpool_limits

import viz_app
from core_model.trace import heap

from . import fair, own_model

DROPPED_LINK = "link.dropped"  # what a link Streamlit ignored becomes (close_to_visitors)
FULL_COLLECTION_S = 5.0  # a full garbage collection after a run at most this often (the module's doc)
_lock = threading.Lock()
_settled = False
_threads = 1  # torch's threads for a run, set by the first settle()
_cores = torch.get_num_threads()  # torch's own default: one per core


def settle() -> None:
    """Import every module under viz_app (what the pages import, torch, plotly and pandas with them), hold
    numpy's BLAS to one thread, send responses at once, collect, then freeze: the first call in a process does it.
    Every call (app.py makes one per run) holds torch to one thread fewer than its default of one per core, in the
    calling thread: OpenMP counts threads per thread, and Streamlit starts each run in a thread of its own."""
    global _settled, _threads
    with _lock:
        if not _settled:
            for module in pkgutil.walk_packages(viz_app.__path__, "viz_app."):
                importlib.import_module(module.name)
            threadpool_limits(1, user_api="blas")
            send_at_once()
            close_to_visitors()
            _threads = max(1, torch.get_num_threads() - 1)
            gc.collect()  # garbage now is freed, not frozen
            gc.freeze()
            _settled = True
    torch.set_num_threads(_threads)


def close_to_visitors() -> None:
    """What Streamlit lets any client do to every session, taken away (the cli does it before the server starts).

    - `clear_cache`: a message any client may send on its websocket (the toolbar's "Clear cache", which the viewer's
      toolbar only hides) empties every cache of the process, every visitor's models and runs. Here it empties only
      the sender's own session state, as Streamlit's handler does besides.
    - `/_stcore/metrics`: Streamlit serves its sessions, cache sizes and compute times to anyone who asks, and has no
      setting to turn it off. A server started by the cli (`attention-viz`, `./dev.sh app`) answers it 404;
      one started as `streamlit run app.py` builds its routes before this runs, and deploy/nginx.conf blocks the path.
    - `/_stcore/upload_file/<session>/<file id>`: any client may send files under ids it makes up, and Streamlit
      keeps them all until the session ends (six of 100 MB held 600 MB for minutes). The app's one uploader reads one
      zip at a time and lets it go (own_model.forget), so a session keeps only its newest file (keep_newest_upload).
    - Every session's runs share one process and its interpreter lock as they come (share_fairly).
    - A link of over 512 Ki characters or 1,000 parameters: Streamlit ignores it whole and only logs it, so the page
      opened with its defaults and said nothing. It is replaced by DROPPED_LINK=<its length>, which the page says
      (state.note_dropped_link).
    """
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route
    from streamlit.runtime import app_session
    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
    from streamlit.web.server.starlette import starlette_app, starlette_routes

    async def not_found(request):
        return PlainTextResponse("Not Found", status_code=404)

    def no_metrics(runtime, base_url):  # the path answered 404, not left to the app's page (which answers 200)
        return [Route(starlette_routes._with_base(starlette_routes.ROUTE_METRICS, base_url), not_found)]

    AppSession._handle_clear_cache_request = lambda session: session._session_state.clear()
    starlette_app.create_metrics_routes = no_metrics
    if not getattr(MemoryUploadedFileManager.add_file, "keeps_newest", False):
        MemoryUploadedFileManager.add_file = keep_newest_upload(MemoryUploadedFileManager.add_file)
    share_fairly()
    if not getattr(app_session.sanitize_query_string, "says_dropped", False):
        app_session.sanitize_query_string = said_when_dropped(app_session.sanitize_query_string)


def share_fairly() -> None:
    """Every session's runs share one process and its interpreter lock, as they come: one address's 33 tabs, or a
    page it opened again and again, took most of it from a class. Each run now takes its address's turn and gives way
    when its visitor has spent more than their share (viz_app/fair.py); Streamlit's full garbage collection after every
    run becomes one at most every FULL_COLLECTION_S (collected_now_and_then, the module's doc)."""
    from streamlit import config
    from streamlit.runtime.scriptrunner.script_runner import ScriptRunner

    if not getattr(ScriptRunner._run_script, "fair", False):
        ScriptRunner._run_script = fair.fair_runs(collected_now_and_then(ScriptRunner._run_script),
                                                  own_model.session_model_is_own)
        config.set_option("runner.postScriptGC", False, "viz_app.serving")


_last_collection = 0.0  # time.monotonic() of the last full collection


def collected_now_and_then(run_script, every_s: float = FULL_COLLECTION_S, clock=time.monotonic, collect=gc.collect):
    """ScriptRunner._run_script, a full garbage collection after a run when the last was `every_s` or more ago."""
    def run(runner, rerun_data):
        global _last_collection
        try:
            return run_script(runner, rerun_data)
        finally:
            if clock() - _last_collection >= every_s:
                _last_collection = clock()
                collect(2)
    return run


def said_when_dropped(sanitize):
    """Streamlit's sanitize_query_string, a link it drops replaced by DROPPED_LINK=<the link's length>."""
    def kept(query_string: str) -> str:
        sane = sanitize(query_string)
        return urlencode({DROPPED_LINK: len(query_string)}) if query_string and not sane else sane
    kept.says_dropped = True
    return kept


def keep_newest_upload(add_file):
    """MemoryUploadedFileManager.add_file that then drops the session's older files."""
    def add(manager, session_id, file):
        add_file(manager, session_id, file)
        with manager._lock:
            older = [file_id for file_id in manager.file_storage.get(session_id, {}) if file_id != file.file_id]
        for file_id in older:
            manager.remove_file(session_id, file_id)
    add.keeps_newest = True
    return add


def send_at_once() -> None:
    """Turn Nagle's algorithm off on every TCP socket this process holds: Streamlit's listening socket, and through
    it every connection it accepts later, and the connections already open."""
    try:
        fds = [int(name) for name in os.listdir("/dev/fd")]
    except OSError:  # no /dev/fd (Windows)
        return
    for fd in fds:
        try:
            if not stat.S_ISSOCK(os.fstat(fd).st_mode):
                continue
            with socket.socket(fileno=os.dup(fd)) as sock:  # a copy of the descriptor: closing it leaves the socket
                if sock.type == socket.SOCK_STREAM and sock.family in (socket.AF_INET, socket.AF_INET6):
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:  # closed since it was listed
            continue


@contextlib.contextmanager
def large_run():
    """torch on every core in this thread for the block (a real-size run), then back to what it had, and the memory
    the run's working arrays took given back to the system (give_back)."""
    before = torch.get_num_threads()
    torch.set_num_threads(_cores)
    try:
        yield
    finally:
        torch.set_num_threads(before)
        give_back()


def give_back() -> None:
    """Return the free memory malloc holds to the system (core_model/trace/heap.py). An array under 32 MiB (one head's
    weights at 2,048 tokens) comes from malloc's arenas, one per thread, and stays there once freed: after three
    2,048-token runs of a 4-layer model the server held 415-813 MB more than its caches, and 7 MB with this
    (tests/app/test_real_size.py). It takes 20-40 ms after a 1,024-token run of SmolLM2-135M, which gave back 330 MB."""
    heap.give_back()
