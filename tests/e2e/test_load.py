"""Six visitors on one server at once: no errors, and each one sees only its own sentence.

The sessions and their checks are bench/load.py's (`.venv/bin/python -m bench.load` runs more of them
and reports the timings, 30 sessions in BENCHMARKS.md); here six, with one round of interactions each: enough for
their reruns to interleave on 2 cores (ten took 167 s in a full run of the suite, whose budget is 20 minutes;
six took 63 s run alone).
"""
import asyncio
from concurrent.futures import ThreadPoolExecutor

from bench.load import run_sessions, summary

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
