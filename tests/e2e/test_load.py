"""Visitors on one server at once: no errors, and each one sees only its own sentence.

The sessions and their checks are bench/load.py's (`.venv/bin/python -m bench.load` runs more of them
and reports the timings, 30 sessions in BENCHMARKS.md); here six browsers, with one round of interactions each:
enough for their reruns to interleave on 2 cores (ten took 167 s in a full run of the suite, whose budget is 20
minutes; six took 63 s run alone). Then twelve clients of Streamlit's protocol (bench/protocol.py, the sessions
the class-of-30 goal is measured with) take the same round.
"""
import asyncio
from concurrent.futures import ThreadPoolExecutor

from bench.load import run_sessions, summary
from bench.protocol import run_clients

SESSIONS = 6
ACTIONS = ["first page", "page switch", "new sentence", "layer", "head", "decoding step"]


def test_concurrent_sessions_run_clean_and_each_sees_its_own_sentence(server):
    # playwright's async API on a loop of its own thread: this thread's may belong to the sync browser fixture
    with ThreadPoolExecutor(max_workers=1) as pool:
        sessions = pool.submit(asyncio.run, run_sessions(server, n=SESSIONS, rounds=1, timeout_ms=120_000)).result()
    result = summary(sessions)
    assert result["errors"] == []
    # the sidebar, the link and the decoding page's source axis each held the session's own sentence
    assert result["own_view"] == SESSIONS
    assert sorted(result["kinds"]) == sorted(ACTIONS)
    # one first page and seven reruns per session: explorer, sentence, layer, head, decoding, step, overview
    assert sum(n for _, _, n in result["kinds"].values()) == SESSIONS * 8


def test_protocol_clients_take_the_same_round_and_each_sees_its_own_sentence(server):
    with ThreadPoolExecutor(max_workers=1) as pool:  # as above: this thread's loop may be the sync browser's
        sessions, cpu = pool.submit(asyncio.run, run_clients(server, n=12, rounds=1, ramp_s=0.1, timeout_s=120)).result()
    result = summary(sessions)
    # no run failed or timed out, and the link showed every layer and head a client asked for
    assert result["errors"] == []
    # the overview's text, the link and the decoding page's source axis held the session's own sentence
    assert result["own_view"] == 12
    assert sorted(result["kinds"]) == sorted(ACTIONS)
    assert sum(n for _, _, n in result["kinds"].values()) == 12 * 8
    assert 0 < cpu < 60  # the clients are light: the server's time is what they measure
