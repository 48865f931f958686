"""A hostile visitor beside a class (issue 37's load row): while bench.load's protocol clients take their rounds, one
client runs four of the cases that once slowed everyone, over and over until the class is done:

1. it uploads a tiny BERT whose tokenizer splits on `(?:a|a){1,22}b` and types 1,000 "a"s and more, a new text each
   time (each once froze the server for minutes; now stopped after 5 s in a child process);
2. it uploads a decoder of 96 layers × 8 heads with 8,192 positions and types a text of 1,000 one-letter words, a new
   one each time, on the overview (its trace, then its greedy output);
6. it opens the positional page with a 100 KB link naming dimension 0 50,000 times, again and again;
7. it opens the Training page in 33 sessions and presses Start training in each, again every 5 s; a session that
   got the place keeps its run going (its fragment's reruns, as a browser's timer sends them).

Every one of its sessions comes from one address (ADDRESS, in the X-Real-IP header nginx sets), as each student of
the class comes from their own (protocol.student).

It speaks Streamlit's websocket protocol (bench/protocol.py), in the load test's own event loop, and counts what the
server answered each case (`seen`) and every error. The hostile files are the tests' own (tests/bad_checkpoints.py).
"""
from __future__ import annotations

import asyncio
import tempfile
from collections import Counter
from pathlib import Path
from urllib.parse import urlencode

from viz_app.i18n import text

from .protocol import opened

SENTENCE = text("sidebar.src", "en")
UPLOAD = text("own.upload", "en")  # the widgets' labels, as the page draws them in English
START = text("live.start", "en")
ADDRESS = "203.0.113.7"  # the hostile client's address, as nginx would forward it (the class's: protocol.student)
FROM = {"X-Real-Ip": ADDRESS}  # every one of its sessions' handshakes
SESSIONS = 33  # case 7's sessions from that address
RETRY_S = 5.0  # case 7: a refused session presses again this often
# what the page says for each case (English), counted in `seen`
SAID = {"tokenizer stopped": "tokenizer took over", "text cut to fit": "a model you brought reads at most",
        "link value said": "The link asked for `positional.dims",
        "live: another tab has the place": "Another tab or device"}


def files(folder: Path) -> dict[str, bytes]:
    """The zips of cases 1 and 2, made in `folder` (before the clock starts: transformers builds the BERT)."""
    from tests.bad_checkpoints import deep_model, files_of, split_regex, tiny_bert, zip_of

    return {"slow.zip": zip_of(files_of(tiny_bert(folder / "bert", split_regex("(?:a|a){1,22}b")))),
            "deep.zip": zip_of(files_of(deep_model(folder / "deep", layers=96, heads=8)))}


def count(seen: Counter, alerts: list[str]) -> None:
    for what, words in SAID.items():
        seen[what] += any(words in a for a in alerts)


async def typing(base: str, stop: asyncio.Event, seen: Counter, errors: list, name: str, data: bytes, texts,
                 loaded: asyncio.Event) -> None:
    """Cases 1 and 2: upload `data` (`loaded` set once it is), then type each of `texts` (an endless iterator) until
    `stop`."""
    async with opened(base, urlencode({"model": "reverse"}), headers=FROM, timeout_s=300) as c:
        await c.upload(base, UPLOAD, name, data, timeout_s=300)
        seen["models loaded"] += any("is loaded and selected" in a for a in c.alerts)
        loaded.set()
        while not stop.is_set():
            await c.rerun(name, c.state(SENTENCE, string_value=next(texts)), timeout_s=300)
            seen[f"{name}: texts"] += 1
            count(seen, c.alerts)
        errors += c.s.errors


def slow_texts():
    n = 1000
    while True:
        yield "a" * n
        n += 1


def long_texts():
    letters, k = "abcdefghilmnoprstuvwy", 0  # each a word of the reverse model's vocabulary
    while True:
        yield " ".join(letters[(i * 5 + k) % len(letters)] for i in range(1000))  # 1,999 characters, 1,000 words
        k += 1


async def long_links(base: str, stop: asyncio.Event, seen: Counter, errors: list) -> None:
    """Case 6: a fresh session opens the positional page with the 100 KB link, until `stop`."""
    query = urlencode({"model": "translate-en-fr", "positional.dims": ",".join(["0"] * 50_000)})
    while not stop.is_set():
        async with opened(base, query, headers=FROM, page_name="positional", timeout_s=300) as c:
            seen["link opened"] += 1
            count(seen, c.alerts)
            errors += c.s.errors


async def one_trainer(base: str, stop: asyncio.Event, seen: Counter, errors: list) -> None:
    """Case 7, one of the address's sessions: press Start training; with a place, keep the run polled (a fragment
    rerun a second, as the page's timer asks) until it is done, then press again; refused, press again in RETRY_S."""
    async with opened(base, "", headers=FROM, page_name="training", timeout_s=300) as c:
        while not stop.is_set():
            await c.rerun("start", c.state(START, trigger_value=True), timeout_s=300)
            count(seen, c.alerts)
            if any("Another tab or device" in a for a in c.alerts):
                await asyncio.sleep(RETRY_S)
                continue
            seen["live: places given"] += 1
            while not stop.is_set() and c.widgets[START][0].disabled:  # queued or running: the page polls
                await asyncio.sleep(1)
                await c.rerun(None, (None, c.widgets[START][1]), timeout_s=300)
            seen["live: runs ended"] += not c.widgets[START][0].disabled
        errors += c.s.errors


CASES = ("1", "2", "6", "7")  # the numbers


async def visit(base: str, stop: asyncio.Event, ready: asyncio.Event, zips: dict[str, bytes],
                cases: tuple[str, ...] = CASES, seen: Counter | None = None) -> dict:
    """The hostile client's `cases` at once until `stop` (`ready` set once its models are in); what it was told
    (`seen`, counted as it goes into the Counter given) and its errors."""
    seen, errors = Counter() if seen is None else seen, []
    loaded = {k: asyncio.Event() for k in ("1", "2")}

    async def all_loaded():
        for k in set(cases) & set(loaded):
            await loaded[k].wait()
        ready.set()

    async def case(coroutine):
        try:
            await coroutine
        except Exception as e:  # noqa: BLE001 - a timeout or a lost socket is the hostile client's error, counted
            errors.append(f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")

    runs = {"1": lambda: [typing(base, stop, seen, errors, "slow.zip", zips["slow.zip"], slow_texts(), loaded["1"])],
            "2": lambda: [typing(base, stop, seen, errors, "deep.zip", zips["deep.zip"], long_texts(), loaded["2"])],
            "6": lambda: [long_links(base, stop, seen, errors)],
            "7": lambda: [one_trainer(base, stop, seen, errors) for _ in range(SESSIONS)]}
    await asyncio.gather(all_loaded(), *(case(c) for k in cases for c in runs[k]()))
    return dict(seen=dict(seen), errors=errors)


def made() -> dict[str, bytes]:
    """files() in a folder of its own."""
    return files(Path(tempfile.mkdtemp(prefix="bench-hostile-")))


async def beside(base: str, zips: dict[str, bytes] | None, cases: tuple[str, ...], clients, head_start_s: float = 120):
    """Await the coroutine `clients`; with `cases`, while the hostile client runs them (`zips`: made()'s), started
    first and given until its models are loaded (at most `head_start_s`). Returns (clients' result, visit()'s or
    None)."""
    if not cases:
        return await clients, None
    stop, ready = asyncio.Event(), asyncio.Event()
    hostile = asyncio.create_task(visit(base, stop, ready, zips, cases))
    try:
        await asyncio.wait_for(ready.wait(), head_start_s)
    except asyncio.TimeoutError:
        pass  # an upload failed or is slow: its error is counted; the class starts anyway
    try:
        result = await clients
    finally:
        stop.set()
    return result, await hostile
