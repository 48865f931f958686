"""bench/hostile.py's client against a real `streamlit run app.py` of its own: case 7 of issue 37, 33 sessions from one
address (the X-Real-IP header deploy/nginx.conf sets) pressing Start training, holds one place in the live-training
line; every other session is told why. The load row of BENCHMARKS.md runs the same client beside a class."""
import asyncio
import time
from collections import Counter

from bench import browser as br
from bench import hostile
from bench.protocol import opened

from .test_load import run

PRESSES = hostile.SESSIONS + 10  # every session has pressed at least once, some twice


async def case_seven(base: str, timeout_s: float = 120) -> dict:
    """The hostile client's case 7 until its sessions have pressed Start training PRESSES times."""
    async with opened(base, "", page_name="training"):  # the page's first run, which loads what it needs
        pass
    stop, ready, told = asyncio.Event(), asyncio.Event(), Counter()
    client = asyncio.create_task(hostile.visit(base, stop, ready, {}, cases=("7",), seen=told))
    started = time.monotonic()
    while time.monotonic() - started < timeout_s and not client.done():
        await asyncio.sleep(0.2)
        if told["live: places given"] + told["live: another tab has the place"] >= PRESSES:
            break
    stop.set()
    return await client


def test_one_address_holds_one_live_training_place_however_many_sessions_it_opens():
    with br.server() as (base, _):
        told = run(case_seven(base))
    assert told["errors"] == []
    seen = told["seen"]
    assert seen["live: places given"] + seen["live: another tab has the place"] >= PRESSES, seen
    # one place at a time: a session got the next only once the run before had ended (a run takes ~13 s)
    assert seen["live: places given"] - seen.get("live: runs ended", 0) in (0, 1), seen
    assert seen["live: another tab has the place"] >= hostile.SESSIONS - 1, seen
