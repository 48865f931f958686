"""bench/hostile.py's client against a real `streamlit run app.py` of its own: case 7 of issue 37, 33 sessions from one
address (the X-Real-IP header deploy/nginx.conf sets) pressing Start training, holds one place in the live-training
line; every other session is told why. One address's runs take turns, while another address's go at once
(viz_app/fair.py). The load row of BENCHMARKS.md runs the same client beside a class."""
import asyncio
import time
from collections import Counter
from urllib.parse import urlencode

from bench import browser as br
from bench import hostile
from bench.protocol import opened, warmed

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


SWEEP = {"model": "translate-en-fr", "src": "my sister gave her old books to the children in the big house",
         "knockout.sweep": "true"}


async def finish_order(base: str) -> dict[str, float]:
    """Three sessions open pages at once: A1, from one address, the decoding page scoring the output with each of
    its 36 heads removed in turn (a run of half a second here); 0.1 s later A2, from the same address, and B, from
    another, the overview's example (a run of a few hundredths). When each first run finished (monotonic seconds)."""
    done = {}

    async def one(name, delay, address, query, page_name=""):
        await asyncio.sleep(delay)
        async with opened(base, urlencode(query), headers={"X-Real-Ip": address}, page_name=page_name,
                          timeout_s=120) as c:
            assert not c.s.errors, c.s.errors
        done[name] = time.monotonic()

    await asyncio.gather(one("A1", 0, "203.0.113.7", SWEEP, "decoding"),
                         one("A2", 0.1, "203.0.113.7", {"model": "translate-en-fr"}),
                         one("B", 0.1, "198.51.100.1", {"model": "translate-en-fr"}))
    return done


def test_an_addresss_runs_take_turns_while_another_address_goes_at_once():
    with br.server() as (base, _):
        run(warmed(base))  # the example's run cached: B's and A2's runs take hundredths
        done = run(finish_order(base))
    assert done["B"] < done["A1"] < done["A2"], done  # B did not wait for A1; A2 did
