"""`streamlit run` with the server's own clock on every rerun: `python -m bench.served LOG streamlit-run-args…`.

A benchmark run starts the app through this module when it needs the server's share of a rerun apart from the
browser's. The DevTools protocol stamps a websocket frame when the page's main thread takes it in: while chromium
draws the charts of a run's first messages, the run's script-finished message waits there (on 2 cores, 40–200 ms
after the server sent it). Here the server stamps both ends itself, on CLOCK_MONOTONIC (`time.monotonic()`, the
clock every process on the machine shares): a line `request <t> <session> <fragment id or ->` when a rerun
request reaches the runtime, and `finished <t> <session> <status>` when the runtime hands the run's
script-finished message to the websocket. Nothing else in the server changes: the two Runtime methods are
wrapped, then Streamlit's own command line runs as `streamlit run` would.
"""
from __future__ import annotations

import sys
import threading
import time

from streamlit.runtime import runtime

_lock = threading.Lock()


def _stamp(path: str, line: str) -> None:
    with _lock, open(path, "a", encoding="utf-8") as f:
        f.write(f"{line}\n")


def wrap(path: str) -> None:
    """Stamp rerun requests and script-finished messages into `path`."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    handle, send = runtime.Runtime.handle_backmsg, runtime.Runtime._send_message

    def handle_backmsg(self, session_id, msg, **kwargs):
        if msg.WhichOneof("type") == "rerun_script":
            _stamp(path, f"request {time.monotonic():.6f} {session_id} {msg.rerun_script.fragment_id or '-'}")
        return handle(self, session_id, msg, **kwargs)

    def send_message(self, session_info, msg):
        out = send(self, session_info, msg)
        if msg.WhichOneof("type") == "script_finished":
            status = ForwardMsg.ScriptFinishedStatus.Name(msg.script_finished)
            _stamp(path, f"finished {time.monotonic():.6f} {session_info.session.id} {status}")
        return out

    runtime.Runtime.handle_backmsg, runtime.Runtime._send_message = handle_backmsg, send_message


def stamps(path: str, since: float = 0.0) -> list[tuple[str, float, str, str]]:
    """The (kind, monotonic seconds, session, fragment id or status) lines stamped at or after `since`."""
    try:
        with open(path, encoding="utf-8") as f:
            rows = [line.split() for line in f if line.strip()]
    except FileNotFoundError:
        return []
    return [(kind, float(t), session, what) for kind, t, session, what in rows if float(t) >= since]


def server_runs(rows) -> list[dict]:
    """Each session's runs, from `stamps` rows in order: a run starts at the first request after the last run
    ended and ends at the next script-finished message that ends a run (a run cut short by a later request
    does not: a slider's second request, a click during a run), so its time holds every request it took in."""
    runs, open_at = [], {}
    for kind, t, session, what in rows:
        if kind == "request":
            opened = open_at.setdefault(session, dict(session=session, start=t, fragment_id=what, requests=0))
            opened["requests"] += 1
        elif session in open_at and what != "FINISHED_EARLY_FOR_RERUN":
            run = open_at.pop(session)
            runs.append(dict(run, server_s=t - run["start"], status=what))
    return runs


def server_run(path: str, since: float) -> dict | None:
    """The first run requested at or after `since` on the server's clock (server_runs); None while it has not
    finished."""
    runs = server_runs(stamps(path, since))
    return min(runs, key=lambda r: r["start"]) if runs else None


if __name__ == "__main__":
    wrap(sys.argv[1])
    from streamlit.web.cli import main

    sys.argv = ["streamlit", "run", *sys.argv[2:]]
    main()
