"""Visitors on one server at once: no errors, and each one sees only its own sentence.

The sessions and their checks are bench/load.py's (`.venv/bin/python -m bench.load` runs more of them
and reports the timings, 30 sessions in BENCHMARKS.md); here three browsers, with one round of interactions each:
enough for their reruns to interleave on 2 cores (ten took 167 s in a full run of the suite, whose budget is 20
minutes, and six 97 s). Then twelve clients of Streamlit's protocol (bench/protocol.py, the sessions
the class-of-30 goal is measured with) take the same round, each after fetching what a fresh browser fetches.
"""
import asyncio
from concurrent.futures import ThreadPoolExecutor

from bench.load import run_sessions, summary
from bench.protocol import fetch_frontend, frontend, run_clients
from bench.visitor import FRONTEND, Session

SESSIONS = 3
ACTIONS = ["first page", "page switch", "new sentence", "layer", "head", "decoding step"]


def run(coroutine):
    """playwright's async API and the clients on a loop of their own thread: this thread's may be the sync browser's."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def test_concurrent_sessions_run_clean_and_each_sees_its_own_sentence(server):
    sessions = run(run_sessions(server, n=SESSIONS, rounds=1, timeout_ms=120_000))
    result = summary(sessions)
    assert result["errors"] == []
    # the sidebar, the link and the decoding page's source axis each held the session's own sentence
    assert result["own_view"] == SESSIONS
    assert sorted(result["kinds"]) == sorted(ACTIONS)
    # one first page and seven reruns per session: explorer, sentence, layer, head, decoding, step, overview
    assert sum(n for _, _, n in result["kinds"].values()) == SESSIONS * 8


def test_protocol_clients_take_the_same_round_and_each_sees_its_own_sentence(server, browser):
    files = frontend(server, browser)
    # a fresh browser's link: Streamlit's page, then its scripts, and plotly's bundle once the explorer is opened
    assert files[0].startswith("/?") and any(f.startswith("/static/js/PlotlyChart.") for f in files)
    sessions, cpu = run(run_clients(server, n=12, rounds=1, ramp_s=0.1, timeout_s=120, files=files))
    result = summary(sessions)
    # no file was missing or other than on disk, no run failed or timed out, and the link showed every layer and
    # head a client asked for
    assert result["errors"] == []
    # the overview's text, the link and the decoding page's source axis held the session's own sentence
    assert result["own_view"] == 12
    assert sorted(result["kinds"]) == sorted(ACTIONS + [FRONTEND])
    assert sum(n for _, _, n in result["kinds"].values()) == 12 * 9
    assert 0 < cpu < 60  # the clients are light: the server's time is what they measure


def test_a_frontend_file_the_server_does_not_hold_is_an_error_of_the_session(server):
    s = Session(0, ["a sentence"])
    run(fetch_frontend(server, ["/favicon.png", "/static/js/index.none.js"], s, timeout_s=60))
    # Streamlit answers a missing script with its page (200): not the file on disk, so an error
    assert [name for name, _ in s.times] == [FRONTEND] and len(s.errors) == 1 and "index.none.js" in s.errors[0]
