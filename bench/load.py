"""Load test: one `streamlit run` server, many browser sessions at once, each clicking through the app.

`.venv/bin/python -m bench.load [--sessions 12] [--rounds 2]` prints each kind of rerun's p50/p95 and
every error seen. Every session is its own browser context (so its own Streamlit session) in one
headless Debian chromium, driven by playwright's async API (its sync objects belong to one thread).
A round: open the explorer from the sidebar, type a sentence of its own and press Enter, change the
layer and the head, open the decoding page, step once, and back to the overview.

A rerun is timed from the action until the page has settled: the script is not running, nothing
is stale, the expected charts are drawn, and what the page shows (titles, texts, every chart's
data) has changed and then stayed the same for 300 ms; the time is taken when it first showed
that final state. Errors: console errors, uncaught page errors, failed requests and HTTP ≥ 400,
websocket errors, Streamlit exception boxes, a lost connection, and timeouts.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import sys
import time
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlencode, urlparse

import numpy as np
from streamlit import logger as streamlit_logger

from . import browser as br
from .core import load

MODEL = "translate-en-fr"
MIB = 2**20  # rss_mb reads MiB; the goal is in MB
SIDEBAR = '[data-testid="stSidebar"]'
CROSS = "every head's row over the source"  # the decoding page's cross-attention chart, x = source labels

# What the page shows, as one string; a change means the page has redrawn.
DIGEST = """window.__digest = () => {
  const sum = v => { let t = 0;
    if (typeof v === 'number') return Number.isFinite(v) ? v : 0;
    if (v && (ArrayBuffer.isView(v) || Array.isArray(v))) for (const a of v) t += sum(a);
    return t; };
  const axis = v => Array.isArray(v) && typeof v[0] === 'string' ? v.join('|') : String(sum(v));
  const plots = [...document.querySelectorAll('.js-plotly-plot')].map(p =>
    ((p.layout && p.layout.title && p.layout.title.text) || '') + ':' +
    (p.data || []).map(t => [t.type, axis(t.x), axis(t.y), sum(t.z)].join(';')).join('/'));
  const texts = [...document.querySelectorAll('h1, [data-testid="stText"], [data-testid="stMetricValue"]')]
    .map(e => e.innerText);
  return JSON.stringify([texts, plots]);
};"""

SETTLED = """([before, charts]) => {
  const app = document.querySelector('[data-testid="stApp"]');
  const idle = app && app.getAttribute('data-test-script-state') !== 'running'
    && !document.querySelector('[data-testid="stStatusWidget"]') && !document.querySelector('[data-stale="true"]')
    && document.querySelector('h1') && document.querySelectorAll('.js-plotly-plot').length >= charts;
  const shown = window.__digest(), now = performance.now();
  if (!idle || shown === before) { window.__last = null; return false; }
  if (shown !== window.__last) { window.__last = shown; window.__since = now; return false; }
  return now - window.__since >= 300 ? window.__since : false;
}"""


@dataclass
class Session:
    """One simulated visitor: its sentences, its rerun times and every error it saw."""
    index: int
    sentences: list[str]
    times: list[tuple[str, float]] = field(default_factory=list)  # (action, seconds)
    errors: list[str] = field(default_factory=list)
    own_view: list[bool] = field(default_factory=list)  # each check that it saw its own sentence
    layer: int = 0
    head: int = 0


def expected_labels(sentences: list[str]) -> dict[str, list[str]]:
    """The source-token labels ("3·car") each sentence must show, made as the app makes them."""
    from viz_app.loaders import prepare, token_labels  # imports streamlit: only when measuring

    loaded = load(MODEL)
    tok = loaded.tokenizers["src"]
    return {s: list(token_labels(tok, prepare(tok, s, loaded.config.max_len - 1).ids)) for s in sentences}


def listen(page, s: Session) -> None:
    """Record everything that counts as an error on this page."""
    page.on("console", lambda m: s.errors.append(f"console: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: s.errors.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: s.errors.append(f"request failed: {r.url} {r.failure}"))
    page.on("response", lambda r: s.errors.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
    page.on("websocket", lambda ws: ws.on("socketerror", lambda e: s.errors.append(f"websocket: {e}")))


async def timed(page, s: Session, name: str, action, charts: int, timeout_ms: float) -> None:
    """Run `action`, wait for the page to settle, note the time and any exception box or lost connection."""
    before = await page.evaluate("() => window.__digest()")
    await page.evaluate("() => { window.__t0 = performance.now(); window.__last = null; }")
    await action()
    handle = await page.wait_for_function(SETTLED, arg=[before, charts], timeout=timeout_ms, polling=50)
    since = await handle.json_value()
    s.times.append((name, (since - await page.evaluate("() => window.__t0")) / 1000))
    boxes = page.locator('[data-testid="stException"]')
    if await boxes.count():
        s.errors.append(f"exception box after {name}: {(await boxes.first.inner_text())[:300]}")
    state = await page.locator('[data-testid="stApp"]').get_attribute("data-test-connection-state")
    if state != "CONNECTED":
        s.errors.append(f"connection {state} after {name}")


def go_to(page, title: str):
    """Click a page's link in the sidebar navigation (the same session goes on)."""
    return page.locator('[data-testid="stSidebarNav"]').get_by_text(title, exact=True).click()


async def open_menu(page, label: str, option: int):
    """Open a sidebar selectbox's menu (not timed: no rerun yet); returns the option to click.

    Just after a rerun, a click on a selectbox sometimes only focuses it and its menu stays shut
    (Streamlit is still settling the sidebar it re-drew), so the click is repeated until the menu shows.
    """
    from playwright.async_api import TimeoutError as PlaywrightTimeout  # a test requirement: imported only when measuring

    box = page.locator(f'{SIDEBAR} [data-testid="stSelectbox"]').filter(has_text=label)
    choice = page.get_by_role("option", name=str(option), exact=True)
    for _ in range(5):
        await box.locator("input").click()
        try:
            await choice.wait_for(timeout=5000)
            break
        except PlaywrightTimeout:
            await page.keyboard.press("Escape")
    return choice


async def one_round(page, s: Session, sentence: str, labels: list[str], timeout_ms: float) -> None:
    """Explorer, a new sentence, layer, head, decoding and a step, back to the overview; checks the view is its own."""
    box = page.locator(SIDEBAR).get_by_label("Sentence (press Enter)", exact=True)

    async def enter():
        await box.fill(sentence)
        await box.press("Enter")

    s.layer, s.head = (s.layer + 1) % 3, (s.head + 1) % 4
    await timed(page, s, "page switch", lambda: go_to(page, "Attention explorer"), 1, timeout_ms)
    await timed(page, s, "new sentence", enter, 1, timeout_ms)
    for label, option in (("Layer", s.layer), ("Head", s.head)):
        choice = await open_menu(page, label, option)
        await timed(page, s, label.lower(), choice.click, 1, timeout_ms)
    await timed(page, s, "page switch", lambda: go_to(page, "Decoding"), 1, timeout_ms)
    step = page.get_by_role("button", name="next ▶", exact=True)
    if await step.is_disabled():  # the last step of the previous round's output
        step = page.get_by_role("button", name="◀ previous", exact=True)
    await timed(page, s, "decoding step", step.click, 1, timeout_ms)
    s.own_view.append(await shows_own(page, sentence, labels))
    await timed(page, s, "page switch", lambda: go_to(page, "Overview"), 0, timeout_ms)


async def shows_own(page, sentence: str, labels: list[str]) -> bool:
    """The sidebar, the link and the cross-attention chart's source axis all hold this session's sentence."""
    box = page.locator(SIDEBAR).get_by_label("Sentence (press Enter)", exact=True)
    axis = await page.evaluate("""(name) => {
        const p = [...document.querySelectorAll('.js-plotly-plot')]
          .find(p => ((p.layout && p.layout.title && p.layout.title.text) || '').includes(name));
        return p ? Array.from(p.data[0].x) : null; }""", CROSS)
    src = parse_qs(urlparse(page.url).query).get("src")
    return await box.input_value() == sentence and src == [sentence] and axis == labels


async def first_page(context, base: str, s: Session, timeout_ms: float):
    """The overview with the session's first sentence, in a new context (so a new Streamlit session)."""
    await context.add_init_script(DIGEST)
    page = await context.new_page()
    page.set_default_timeout(timeout_ms)
    listen(page, s)
    t0 = time.perf_counter()
    await page.goto(f"{base}/?" + urlencode({"model": MODEL, "src": s.sentences[0]}))
    await page.wait_for_function(SETTLED, arg=[None, 0], timeout=timeout_ms, polling=50)
    s.times.append(("first page", time.perf_counter() - t0))
    # the overview repeats the sentence it was opened with
    s.own_view.append(s.sentences[0] in await page.locator('[data-testid="stText"]').all_inner_texts())
    return page


async def visit(b, base: str, s: Session, labels: dict | None, rounds: int, timeout_ms: float) -> None:
    """One session from its first page to its context closing; a timeout ends it and counts as an error.

    With rounds=0 the visitor only looks: the overview, then the explorer, then it leaves.
    """
    context = await b.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    try:
        page = await first_page(context, base, s, timeout_ms)
        for sentence in s.sentences[1:rounds + 1]:
            await one_round(page, s, sentence, labels[sentence], timeout_ms)
        if not rounds:
            await timed(page, s, "page switch", lambda: go_to(page, "Attention explorer"), 1, timeout_ms)
    except Exception as e:  # noqa: BLE001 - a timeout or a missing element ends this session, counted
        s.errors.append(f"{type(e).__name__}: {str(e).splitlines()[0][:300]}")
    finally:
        await context.close()


async def run_sessions(base: str, n: int = 12, rounds: int = 2, timeout_ms: float = 120_000,
                       seed: int = 11) -> list[Session]:
    """n sessions at once against the server at `base`; each gets rounds + 1 sentences no other session has."""
    from playwright.async_api import async_playwright

    from core_model.data import english_sentences

    pool = english_sentences(seed, n * (rounds + 1))
    sessions = [Session(i, pool[i * (rounds + 1):(i + 1) * (rounds + 1)]) for i in range(n)]
    labels = expected_labels(pool)
    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=br.CHROMIUM, args=br.FLAGS, headless=True)
        try:
            await asyncio.gather(*(visit(b, base, s, labels, rounds, timeout_ms) for s in sessions))
        finally:
            await b.close()
    return sessions


async def churn(b, base: str, sessions: list[Session], at_once: int, timeout_ms: float = 120_000) -> None:
    """Every session looks at two pages and leaves (visit with rounds=0), `at_once` of them at a time."""
    gate = asyncio.Semaphore(at_once)

    async def one(s):
        async with gate:
            await visit(b, base, s, None, 0, timeout_ms)
    await asyncio.gather(*(one(s) for s in sessions))


async def memory_growth(base: str, pid: int, marks=(10, 25, 40, 55, 70, 85, 100), at_once: int = 4,
                        settle_s: float = 3, gone_s: float = 0, seed: int = 23) -> dict:
    """Server RSS after each mark's number of sessions came and went; each has a sentence of its own.

    A closed session stays on the server for server.disconnectedSessionTTL (120 s) in case its browser
    reconnects, and is dropped when a later session closes. With gone_s past that, each reading waits
    gone_s, lets one more visitor come and go, and so counts only sessions the server has dropped.
    """
    from playwright.async_api import async_playwright

    from core_model.data import english_sentences

    pool = english_sentences(seed, marks[-1] + len(marks))
    sessions = [Session(i, [text]) for i, text in enumerate(pool)]
    rss, done = {}, 0
    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=br.CHROMIUM, args=br.FLAGS, headless=True)
        try:
            for i, mark in enumerate(marks):
                await churn(b, base, sessions[done:mark], at_once)
                done = mark
                if gone_s:
                    await asyncio.sleep(gone_s)
                    await churn(b, base, [sessions[marks[-1] + i]], 1)  # its close drops the expired ones
                await asyncio.sleep(settle_s)  # let the server finish with the last closed sessions
                rss[mark] = br.rss_mb(pid)
        finally:
            await b.close()
    used = sessions[:done] + (sessions[marks[-1]:] if gone_s else [])
    errors = [f"session {s.index}: {e}" for s in used for e in s.errors]
    return dict(rss=rss, growth_mb=(rss[marks[-1]] - rss[marks[0]]) * MIB / 1e6, errors=errors,
                own_view=sum(all(s.own_view) and bool(s.own_view) for s in used), visitors=len(used))


def summary(sessions: list[Session]) -> dict:
    """p50/p95 of the reruns by kind and together (the first page load is kept apart), and the errors."""
    by_kind: dict[str, list[float]] = {}
    for s in sessions:
        for name, secs in s.times:
            by_kind.setdefault(name, []).append(secs)
    pct = lambda xs: (float(np.percentile(xs, 50)), float(np.percentile(xs, 95)), len(xs))  # noqa: E731
    reruns = [x for k, xs in by_kind.items() if k != "first page" for x in xs]
    return dict(sessions=len(sessions), reruns=pct(reruns) if reruns else None,
                kinds={k: pct(xs) for k, xs in by_kind.items()},
                errors=[f"session {s.index}: {e}" for s in sessions for e in s.errors],
                own_view=sum(all(s.own_view) and bool(s.own_view) for s in sessions))


def report(r: dict, wall: float) -> str:
    rows = [f"| {k} | {n} | {p50:.2f} | {p95:.2f} |" for k, (p50, p95, n) in r["kinds"].items()]
    p50, p95, n = r["reruns"] or (float("nan"), float("nan"), 0)
    return "\n".join([
        f"{r['sessions']} concurrent sessions, {wall:.0f} s wall; reruns: {n}, p50 {p50:.2f} s, p95 {p95:.2f} s; "
        f"errors: {len(r['errors'])}; sessions that saw only their own sentence: {r['own_view']}/{r['sessions']}",
        "", "| action | count | p50 s | p95 s |", "|---|---|---|---|", *rows, "",
        *(f"- {e}" for e in r["errors"][:30])])


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far, from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=12, help="concurrent sessions of the load test")
    ap.add_argument("--rounds", type=int, default=2, help="rounds of interactions per session")
    ap.add_argument("--memory", type=int, default=0, metavar="N",
                    help="instead: server RSS after 10, 25, 40, … and N sessions came and went")
    ap.add_argument("--gone", type=float, default=0, metavar="S",
                    help="with --memory: wait S seconds before each reading (130: past the 120 s reconnect window)")
    args = ap.parse_args(argv)
    why = br.missing()
    if why:
        print(f"not measured: {why}")
        return 1
    streamlit_logger.set_log_level("error")  # the "no runtime" warnings of viz_app.loaders outside a server
    with br.server() as (base, pid):
        t0 = time.perf_counter()
        if args.memory:
            m = asyncio.run(memory_growth(base, pid, marks=(10, *range(25, args.memory, 15), args.memory),
                                          gone_s=args.gone))
            first, last = min(m["rss"]), max(m["rss"])
            print(f"server RSS after {first} sessions {m['rss'][first]:.0f} MiB, after {last} {m['rss'][last]:.0f} MiB: "
                  f"growth {m['growth_mb']:+.1f} MB (goal ≤ 50 MB); errors: {len(m['errors'])}; sessions that saw "
                  f"their sentence: {m['own_view']}/{m['visitors']}; {time.perf_counter() - t0:.0f} s wall")
            print("RSS MiB by sessions so far: " + ", ".join(f"{k}: {v:.1f}" for k, v in m["rss"].items()))
            print("\n".join(f"- {e}" for e in m["errors"][:30]))
            return 0 if m["growth_mb"] <= 50 and not m["errors"] else 1
        server_cpu, browser_cpu = cpu_seconds(pid), resource.getrusage(resource.RUSAGE_CHILDREN)
        sessions = asyncio.run(run_sessions(base, args.sessions, args.rounds))
        result = summary(sessions)
        print(report(result, time.perf_counter() - t0))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)  # chromium and playwright's driver, now ended
        print(f"CPU seconds: server {cpu_seconds(pid) - server_cpu:.0f}, browser "
              f"{after.ru_utime + after.ru_stime - browser_cpu.ru_utime - browser_cpu.ru_stime:.0f}; "
              f"load average at the end {os.getloadavg()[0]:.1f} (on {os.cpu_count()} cores)")
    return 0 if not result["errors"] and result["own_view"] == args.sessions else 1


if __name__ == "__main__":
    sys.exit(main())
