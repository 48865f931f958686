"""Browser benchmarks: a real `streamlit run` server driven by Debian's chromium through playwright.

Measures websocket bytes per page, time to the first chart and to the re-render after Enter,
and the server's resident memory. Never downloads a browser: without /usr/bin/chromium (or
the playwright package) the caller writes "not measured".
"""
from __future__ import annotations

import functools
import http.client
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlparse

from .core import ROOT
from .served import server_run

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
CHART = '[data-testid="stPlotlyChart"] .main-svg'


def missing() -> str | None:
    """Why the browser benchmarks cannot run here, or None."""
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        return "chromium missing"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright missing"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def server(stamps: str | None = None, app: Path = ROOT / "app.py"):
    """A headless streamlit server of `app` on a free port; yields (base url, pid); stopped by its PID. With `stamps`
    (a file's path) it runs through bench.served, which stamps each rerun's request and end on the server's clock."""
    port = free_port()
    runner = ["-m", "bench.served", stamps] if stamps else ["-m", "streamlit", "run"]
    proc = subprocess.Popen(
        [sys.executable, *runner, str(app), "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, proc)
        yield base, proc.pid
    finally:
        stop(proc)


def wait_healthy(base: str, proc: subprocess.Popen, timeout_s: float = 90) -> None:
    """Returns once the streamlit server at `base` answers its health check; RuntimeError if it exits first or
    does not answer within `timeout_s`."""
    deadline = time.time() + timeout_s
    while True:
        try:
            if urllib.request.urlopen(base + "/_stcore/health", timeout=2).status == 200:
                return
        except OSError:
            pass
        if proc.poll() is not None or time.time() > deadline:
            raise RuntimeError("the streamlit server did not become healthy")
        time.sleep(0.3)


def stop(proc: subprocess.Popen) -> None:
    """Stop a server we started, by its PID: terminate, then kill if it is still there after 10 s."""
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def rss_mb(pid: int, key: str = "VmRSS") -> float:
    """VmRSS of a process in MiB, from /proc/PID/status (key="VmHWM": its peak so far)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {key} line")


@contextmanager
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            yield b
        finally:
            b.close()


def url(base: str, page: str, model: str, src: str) -> str:
    """The page's link with the model and the text; `page` may carry settings of its own ("decoding?a=1")."""
    path, _, query = page.partition("?")
    return f"{base}/{path}?" + urlencode({"model": model, "src": src}) + (f"&{query}" if query else "")


def wire_bytes(b, address: str, quiet_s: float = 2.5, timeout_s: float = 120) -> dict:
    """Open a page in a fresh context, sum websocket frames received until the page goes quiet."""
    frames: list[int] = []
    last = [time.time()]
    largest = [b""]

    def on_ws(ws):
        def got(payload):
            data = payload if isinstance(payload, (bytes, bytearray)) else payload.encode()
            frames.append(len(data))
            if len(data) > len(largest[0]):
                largest[0] = bytes(data)
            last[0] = time.time()
        ws.on("framereceived", got)

    ctx = b.new_context()
    try:
        page = ctx.new_page()
        page.on("websocket", on_ws)
        page.goto(address)
        start = time.time()
        while time.time() - start < timeout_s:
            page.wait_for_timeout(250)
            running = page.locator('[data-testid="stStatusWidget"]').count() > 0
            if frames and not running and time.time() - last[0] > quiet_s:
                break
        charts = page.locator('[data-testid="stPlotlyChart"]').count()
        errors = page.locator('[data-testid="stException"]').count()
    finally:
        ctx.close()
    return dict(total=sum(frames), largest=max(frames, default=0), frames=len(frames), charts=charts,
                ok=bool(frames) and errors == 0, largest_is_grid=b"explorer.grid" in largest[0])


SIGNATURE = """() => {
  const gd = document.querySelector('[data-testid="stPlotlyChart"] .js-plotly-plot');
  if (!gd || !gd.data) return null;
  return JSON.stringify(gd.data.map(d => [d.x, d.y, d.z, d.text, d.customdata && d.customdata.length]));
}"""


# Notes, on the page's own clock, the moment the first chart's SVG is added (a MutationObserver's callback runs
# at the end of the task that added it, before the frame is painted).
FIRST_CHART = f"""new MutationObserver((_, seen) => {{
  if (document.querySelector('{CHART}')) {{ window.__firstChart = performance.now(); seen.disconnect(); }}
}}).observe(document, {{subtree: true, childList: true}});"""


def first_chart(p, address: str) -> float:
    """Seconds from the start of the navigation to `address` to the first plotly chart drawn, on the page's own
    clock: performance.now() counts from the navigation's start. Not playwright's wait: wait_for_selector looks
    again after 20, 50, 100 and 100 ms and then every 500 ms, and saw a drawn chart up to 0.7 s late here."""
    p.add_init_script(FIRST_CHART)
    p.goto(address, wait_until="commit")
    p.wait_for_selector(CHART, timeout=120_000)
    return p.evaluate("() => window.__firstChart") / 1000


@functools.cache
def static_bytes(path: str) -> bytes | None:
    """The file Streamlit serves at `path` under /static/, as on disk (b"" if there is none); None for other paths."""
    import streamlit

    if not path.startswith("/static/"):
        return None
    file = Path(streamlit.__file__).parent / "static" / path.split("?")[0].lstrip("/")
    return file.read_bytes() if file.is_file() else b""


def kept_alive(base: str, n: int = 20) -> dict:
    """Seconds per GET of one small script of Streamlit's frontend (the first the page preloads), n one after another
    on one kept-alive connection, as a browser fetches a page's chunks over its 6 connections. Check: each answer is
    200 and the file's bytes on disk."""
    html = urllib.request.urlopen(base + "/", timeout=30).read().decode()
    path = re.search(r'rel="modulepreload" crossorigin href="\./([^"]+)"', html).group(1)
    want = static_bytes("/" + path)
    address = urlparse(base)
    conn, times, ok = http.client.HTTPConnection(address.hostname, address.port, timeout=30), [], True
    try:
        for _ in range(n):
            start = time.perf_counter()
            conn.request("GET", "/" + path)
            answer = conn.getresponse()
            body = answer.read()
            times.append(time.perf_counter() - start)
            ok = ok and answer.status == 200 and body == want
    finally:
        conn.close()
    return dict(s=statistics.median(times), all=times, ok=ok)


def floor_first_chart(b, repeats: int = 5) -> dict:
    """The same first-chart time for bench/floor_app.py, a page with one small chart and nothing else, on a server
    of its own: what Streamlit's frontend and plotly's bundle take in a fresh context before any chart of ours."""
    times, checks = [], []
    with server(app=ROOT / "bench" / "floor_app.py") as (base, _):
        for _ in range(repeats + 1):  # the first visit warms the server (its first run imports plotly): left out
            ctx = b.new_context()
            try:
                p = ctx.new_page()
                times.append(first_chart(p, base))
                checks.append(p.evaluate(f"() => JSON.parse(({SIGNATURE})())[0][1]") == [1, 3, 2])  # the app's bars
            finally:
                ctx.close()
    return dict(first_s=statistics.median(times[1:]), first_all=times[1:], ok=all(checks))


def polled(p, read, timeout_s: float):
    """read()'s values once none is None, asked again every 25 ms (the page's own wait) for up to timeout_s; the
    last values if time runs out."""
    values, deadline = read(), time.time() + timeout_s
    while None in values and time.time() < deadline:
        p.wait_for_timeout(25)
        values = read()
    return values


def finished_run_s(p, stamps: str, since: float, timeout_s: float = 60) -> float:
    """The server's own seconds for the first run requested at or after `since` (nan if none ends in time): it
    may end after the first chart is drawn, so this waits for its script-finished stamp."""
    run, = polled(p, lambda: (server_run(stamps, since),), timeout_s)
    return run["server_s"] if run else float("nan")


def first_chart_and_rerender(b, base: str, sentence: str, new_sentences: list[str], page: str = "explorer",
                             stamps: str | None = None) -> dict:
    """Navigation → first chart drawn; Enter in the sentence box → the first chart's data changed, timed in the
    page from the Enter key's own event to the first animation frame that sees the new data (as fragment reruns
    are: ARM, without playwright's steps before the key).

    Each repeat uses a fresh browser context and a sentence not seen before, so the server
    runs the model for it (its caches only hold earlier sentences). With `stamps` (a bench.served server's file),
    `server_all` holds each Enter's run on the server's own clock.
    """
    first, rerender, checks, served = [], [], [], []
    for new in new_sentences:
        ctx = b.new_context()
        try:
            p = ctx.new_page()
            first.append(first_chart(p, url(base, page, "translate-en-fr", sentence)))
            p.wait_for_function(f"({SIGNATURE})() !== null", timeout=60_000)
            # type once the page has settled, as a reader does (a fixed 1.5 s could leave it drawing other charts)
            p.wait_for_function(IDLE, timeout=120_000, polling=100)
            before = p.evaluate(SIGNATURE)
            box = p.locator('[data-testid="stSidebar"]').get_by_label("Sentence (press Enter)", exact=True)
            box.fill(new)
            p.evaluate(ARM)
            pressed = time.monotonic()  # the server's clock too (CLOCK_MONOTONIC, one machine)
            box.press("Enter")
            p.wait_for_function(f"""(old) => {{ const s = ({SIGNATURE})();
              if (s === null || s === old) return false; window.__drawn = performance.now(); return true; }}""",
                                arg=before, polling="raf", timeout=120_000)
            took = p.evaluate("() => window.__input === null ? null : (window.__drawn - window.__input) / 1000")
            rerender.append(took if took is not None else float("nan"))
            after = p.evaluate(SIGNATURE)
            # the redrawn chart belongs to the new sentence: the data changed and the view's link carries it
            checks.append(took is not None and after != before
                          and parse_qs(urlparse(p.url).query).get("src") == [new])
            if stamps:
                served.append(finished_run_s(p, stamps, pressed))
        finally:
            ctx.close()
    return dict(first_s=statistics.median(first), first_all=first, rerender_s=statistics.median(rerender),
                rerender_all=rerender, ok=all(checks), checks=checks, server_all=served)


# A page's first chart after a sidebar click: the URL is the page's, its title is up, nothing is stale and a
# chart is drawn (the old page's elements are marked stale until the new run replaces them).
DRAWN = """([path, title]) => location.pathname.endsWith('/' + path) && !document.querySelector('[data-stale="true"]')
  && [...document.querySelectorAll('h1')].some(h => h.innerText.trim() === title)
  && !!document.querySelector('[data-testid="stPlotlyChart"] .main-svg')"""


def in_app_navigation(b, base: str, sentence: str, pages: list[tuple[str, str]], rounds: int = 2) -> dict:
    """Sidebar link → the new page's first chart, in one session whose browser already holds Streamlit's JS and
    whose server already holds the sentence's run (the tokens page opens first). `pages` are (url path, English
    title); each round visits them in order. Returns per-page medians (s) and ok (every visit drew its page)."""
    times, checks = {name: [] for name, _ in pages}, []
    ctx = b.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    try:
        p = ctx.new_page()
        p.goto(url(base, "tokens", "translate-en-fr", sentence))
        p.wait_for_function(IDLE, timeout=120_000, polling=100)
        for _ in range(rounds):
            for name, title in pages:
                t0 = time.perf_counter()
                p.locator('[data-testid="stSidebarNav"]').get_by_text(title, exact=True).click()
                p.wait_for_function(DRAWN, arg=[name, title], timeout=120_000, polling=20)
                times[name].append(time.perf_counter() - t0)
                checks.append(parse_qs(urlparse(p.url).query).get("src") == [sentence])
                p.evaluate("() => { window.__idleSince = 0; }")
                p.wait_for_function(IDLE, timeout=120_000, polling=100)
    finally:
        ctx.close()
    return dict(pages={name: statistics.median(v) for name, v in times.items()}, all=times, ok=all(checks))


LIVE_LOSS = """() => { const p = document.querySelector('.st-key-chart-training-live-loss .js-plotly-plot');
  return p && p._fullData && p._fullData[0] ? Array.from(p._fullData[0].y) : null; }"""


def live_training(b, base: str, pid: int, runs: int = 2) -> dict:
    """The Training page's "Train one live" pressed `runs` times in a new session (press_live): the first run's
    result, with the RSS after each run in `after_runs` (the first run also loads what any run needs)."""
    ctx = b.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    try:
        p = ctx.new_page()
        p.goto(url(base, "training", "reverse", "one two three"))
        p.wait_for_function(IDLE, timeout=120_000, polling=100)
        done = [press_live(p, pid) for _ in range(runs)]
        return dict(done[0], after_runs=[r["after_mb"] for r in done], ok=all(r["ok"] for r in done))
    finally:
        ctx.close()


def press_live(p, pid: int, sample_s: float = 0.5) -> dict:
    """On a drawn Training page: wall time from the click until Start is offered again, and the server's RSS before,
    its peak while training (sampled every `sample_s`, with the loss chart's length) and after (3 s later, when the
    chart is read again). Check: the chart drew, grew while the run went on, its last loss is below its first,
    and it stayed as it was once the run ended."""
    from viz_app.i18n import text

    before, samples, lengths = rss_mb(pid), [], []
    start = p.get_by_role("button", name=text("live.start", "en"))
    t0 = time.perf_counter()
    start.click()
    while start.is_enabled() and time.perf_counter() - t0 < 30:  # the rerun that starts the run disables Start
        p.wait_for_timeout(50)
    p.wait_for_function(f"() => ({LIVE_LOSS})() !== null", timeout=120_000)
    while not start.is_enabled() and time.perf_counter() - t0 < 180:
        samples.append(rss_mb(pid))
        lengths.append(len(p.evaluate(LIVE_LOSS) or []))
        p.wait_for_timeout(sample_s * 1000)
    wall = time.perf_counter() - t0
    losses = p.evaluate(LIVE_LOSS) or []
    for _ in range(6):  # the run's last point may be drawn by the rerun that also offers Start again: let it land
        p.wait_for_timeout(1000)
        now = p.evaluate(LIVE_LOSS) or []
        if now == losses:
            break
        losses = now
    p.wait_for_timeout(3000)
    after, still = rss_mb(pid), p.evaluate(LIVE_LOSS) or []
    grew = len({n for n in lengths if n} | {len(losses)}) >= 3  # redrawn longer at least twice during the run
    return dict(wall_s=wall, before_mb=before, peak_mb=max(samples, default=before), after_mb=after,
                points=len(losses), lengths=lengths,
                ok=len(losses) >= 2 and losses[-1] < losses[0] and grew and still == losses)


def memory(b, base: str, pid: int, models: list[str], sentences: dict, sessions: int = 50) -> dict:
    """RSS with every model loaded (one page visit each), then after `sessions` contexts came and went."""
    start = rss_mb(pid)
    loaded_ok = []
    for m in models:
        ctx = b.new_context()
        try:
            p = ctx.new_page()
            p.goto(url(base, "explorer", m, sentences.get(m, "")))
            p.wait_for_selector(CHART, timeout=90_000)
            loaded_ok.append(True)
        except Exception:  # noqa: BLE001 - recorded as a failed check
            loaded_ok.append(False)
        finally:
            ctx.close()
    all_models = rss_mb(pid)
    ok = 0
    for _ in range(sessions):
        ctx = b.new_context()
        try:
            p = ctx.new_page()
            p.goto(url(base, "explorer", "translate-en-fr", sentences["translate-en-fr"]))
            p.wait_for_selector(CHART, timeout=90_000)
            ok += 1
        except Exception:  # noqa: BLE001 - counted as a failed session
            pass
        finally:
            ctx.close()
    time.sleep(3)
    after = rss_mb(pid)
    return dict(start_mb=start, models_mb=all_models, after_mb=after, sessions=sessions, sessions_ok=ok,
                models=models, ok=all(loaded_ok) and ok == sessions)


# ----- fragment reruns: one control, one part of the page ----------------------------------------

# (page, the control's key, the chart it redraws (watched), charts outside the fragment that must not be sent; None:
# the page follows the fragment's run)
FRAGMENTS = [
    ("ffn_norm", "ffn_norm.token", "ffn_norm.hist", ("ffn_norm.stream", "ffn_norm.hidden", "ffn_norm.lens")),
    ("explorer", "explorer.average", "explorer.head", ("explorer.grid", "explorer.stats")),
    ("explorer", "explorer.top_k", "explorer.head", ("explorer.grid", "explorer.stats")),
    ("explorer", "explorer.threshold", "explorer.head", ("explorer.grid", "explorer.stats")),
    ("explorer", "explorer.window", "explorer.head", ("explorer.grid", "explorer.stats")),
    ("positional", "positional.base", "positional.curves",
     ("positional.sentence.scaled", "positional.sentence.pos", "positional.sentence.out")),
    ("positional", "positional.length", "positional.curves",
     ("positional.sentence.scaled", "positional.sentence.pos", "positional.sentence.out")),
    ("positional", "positional.d_model", "positional.curves",
     ("positional.sentence.scaled", "positional.sentence.pos", "positional.sentence.out")),
    # the chart redraws in the fragment's run, then the page samples again with the new setting (others: None)
    ("decoding?decoding.method=sample&decoding.top_p=1.0", "decoding.temperature", "decoding.top", None),
]

KEYED = """(name) => {
  const p = document.querySelector(`.st-key-chart-${name.replaceAll(".", "-")} .js-plotly-plot`);
  if (!p || !p.data) return null;
  const plain = v => ArrayBuffer.isView(v) ? Array.from(v) : Array.isArray(v) ? v.map(plain) : v;
  return JSON.stringify(p.data.map(t => [t.x, t.y, t.z, t.text].map(plain)));
}"""

IDLE = """() => {
  const idle = !document.querySelector('[data-testid="stStatusWidget"]') && !document.querySelector('[data-stale="true"]')
    && document.querySelector('h1') && document.querySelectorAll('.js-plotly-plot').length > 0;
  const now = Date.now();
  if (!idle) { window.__idleSince = 0; return false; }
  window.__idleSince = window.__idleSince || now;
  return now - window.__idleSince > 300;
}"""


def frame_bytes(response: dict) -> bytes:
    """A websocket frame's bytes from the DevTools protocol (binary frames come base64-encoded)."""
    import base64

    return base64.b64decode(response["payloadData"]) if response["opcode"] == 2 else response["payloadData"].encode()


def run_of(sent: list, received: list) -> dict | None:
    """From the frames of one change, as (timestamp s, bytes): the rerun request the browser sent and the frames
    of that run up to Streamlit's script-finished message, for the change's checks; None while the run has not
    finished. (Its times are the page's: a frame is stamped when the page's main thread takes it in.)"""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    requests = [(ts, msg.rerun_script.fragment_id) for ts, msg in ((ts, BackMsg.FromString(d)) for ts, d in sent)
                if msg.WhichOneof("type") == "rerun_script"]
    if not requests:
        return None
    run, cached = [], 0
    for ts, data in received:
        if ts < requests[0][0]:
            continue
        run.append(data)
        msg = ForwardMsg.FromString(data)
        cached += msg.WhichOneof("type") == "ref_hash"  # an element the browser already holds, sent by its hash
        if msg.WhichOneof("type") == "script_finished":
            status = ForwardMsg.ScriptFinishedStatus.Name(msg.script_finished)
            if status == "FINISHED_EARLY_FOR_RERUN":  # a later request of the same change took over
                continue
            return dict(fragment_id=requests[0][1], status=status, frames=run,
                        requests=len(requests), cached=cached, bytes=sum(len(d) for d in run),
                        fragment_only=all(f == requests[0][1] for _, f in requests))
    return None


def trigger_of(page, label: str, forward: bool):
    """Get the main-area control `label` ready to change (a menu opened, a slider focused) and return the one
    action that changes it: the next (or previous) option of a selectbox, the other state of a checkbox, one step
    of a slider or a number box. A range slider moves its first thumb."""
    main = page.locator('[data-testid="stMain"]')
    box = main.get_by_label(label, exact=True).first
    kind = box.get_attribute("role") or box.evaluate("e => e.tagName.toLowerCase() + ':' + (e.type || '')")
    thumbs = box.locator('input[type="range"], [role="slider"]')
    if kind in ("slider", "input:range") or (kind == "group" and thumbs.count()):
        (box if kind != "group" else thumbs.first).focus()
        return lambda: page.keyboard.press("ArrowRight" if forward else "ArrowLeft")
    if kind in ("checkbox", "input:checkbox"):
        return main.get_by_text(label, exact=True).first.click
    if kind == "input:number":
        widget = main.locator('[data-testid="stNumberInput"]').filter(has=page.get_by_label(label, exact=True))
        return widget.locator('[data-testid="stNumberInputStep%s"]' % ("Up" if forward else "Down")).click
    box.click()
    page.keyboard.press("ArrowDown" if forward else "ArrowUp")
    return lambda: page.keyboard.press("Enter")


# In the page, on its own clock: the first pointer or key input after arming, and the moment the watched chart's
# data differs (checked once per animation frame, so a redraw is seen in the frame it shows in).
ARM = """() => {
  window.__input = null; window.__drawn = null;
  if (!window.__mark) {
    window.__mark = e => { if (window.__input === null) window.__input = e.timeStamp; };
    for (const type of ["pointerdown", "keydown"]) document.addEventListener(type, window.__mark, true);
  }
}"""
CHANGED = f"""([name, old]) => {{
  const s = ({KEYED})(name);
  if (s === null || s === old) return false;
  window.__drawn = performance.now();
  return true;
}}"""


def _one_change(p, label: str, watched: str, others, forward: bool, sent: list, received: list, stamps: str,
                timeout_s: float) -> tuple:
    """Change the control once: (server ms or None, browser ms or None, check passed, why not, requests)."""
    p.evaluate("() => { window.__idleSince = 0; }")
    p.wait_for_function(IDLE, timeout=timeout_s * 1000, polling=50)
    before = p.evaluate(KEYED, watched)
    trigger = trigger_of(p, label, forward=forward)
    sent.clear()
    received.clear()
    p.evaluate(ARM)
    since = time.monotonic()
    trigger()
    try:
        p.wait_for_function(CHANGED, arg=[watched, before], polling="raf", timeout=timeout_s * 1000)
    except Exception as e:  # noqa: BLE001 - the chart never changed: a failed check, the others go on
        return None, None, False, f"{watched} did not change: {type(e).__name__}", 0
    browser = p.evaluate("() => window.__input === null ? null : window.__drawn - window.__input")
    run, served = polled(p, lambda: (run_of(sent, received), server_run(stamps, since)), timeout_s)
    if run is None or served is None or browser is None:
        why = "no input event seen" if browser is None else "no script-finished message"
        return served and served["server_s"] * 1000, browser, False, why, 0
    blob = b" ".join(run["frames"])
    leaked = [o for o in others or () if f"chart.{o}".encode() in blob]
    alone = others is None or (run["fragment_only"] and "FRAGMENT" in run["status"] and not leaked)
    ok = bool(run["fragment_id"]) and alone
    why = "" if ok else f"fragment id {run['fragment_id']!r}, {run['status']}, sent again: {leaked}"
    return served["server_s"] * 1000, browser, ok, why, served["requests"]


def _control(p, name: str, control: str, watched: str, others, repeats: int, sent, received, stamps: str,
             timeout_s: float) -> dict:
    """One control changed `repeats` times, forward and back in turn; its row."""
    from viz_app.i18n import text

    label = text(control, "en")
    results = [_one_change(p, label, watched, others, i % 2 == 0, sent, received, stamps, timeout_s)
               for i in range(repeats)]
    if repeats % 2:  # back where it started, so the next control's changes show (top-k 1 hides a threshold)
        p.wait_for_function(IDLE, timeout=timeout_s * 1000, polling=50)
        trigger_of(p, label, forward=False)()
        p.wait_for_timeout(500)
        p.evaluate("() => { window.__idleSince = 0; }")
        p.wait_for_function(IDLE, timeout=timeout_s * 1000, polling=50)
    server_ms = [r[0] for r in results if r[0] is not None]
    browser_ms = [r[1] for r in results if r[1] is not None]
    return dict(page=name, control=control, chart=watched, repeats=repeats,
                server_ms=statistics.median(server_ms) if server_ms else float("nan"),
                browser_ms=statistics.median(browser_ms) if browser_ms else float("nan"),
                server_all=server_ms, browser_all=browser_ms, requests=max((r[4] for r in results), default=0),
                ok=all(r[2] for r in results) and len(results) == repeats, why=[r[3] for r in results if r[3]][:2])


def fragment_reruns(b, base: str, stamps: str, sentence: str, cases=FRAGMENTS, repeats: int = 5,
                    model: str = "translate-en-fr", timeout_s: float = 60) -> list[dict]:
    """Per control: the server's time for its rerun, on its own clock (`stamps`: the file of a server started as
    `server(stamps)`; from the rerun request reaching the runtime to the run's script-finished message handed to
    the websocket) and the browser's, on the page's clock (from the input event to the watched chart's data
    differing, checked every animation frame). Each change is checked from the websocket frames the page got
    (DevTools protocol): the chart's data changed, the request named a fragment, the run
    finished as a fragment run and no chart outside the fragment was sent (the watched chart itself may come as
    Streamlit's cached-message reference when a control goes back to a value the browser has seen).
    Controls go forward and back in turn (a checkbox toggles), so every change is a real one."""
    rows, pages = [], {}
    for case in cases:
        pages.setdefault(case[0], []).append(case)
    for name, page_cases in pages.items():
        ctx = b.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
        try:
            p = ctx.new_page()
            p.set_default_timeout(timeout_s * 1000)
            p.goto(url(base, name, model, sentence))
            p.wait_for_function(IDLE, timeout=120_000, polling=100)
            sent, received = [], []
            cdp = ctx.new_cdp_session(p)
            cdp.send("Network.enable")
            cdp.on("Network.webSocketFrameSent", lambda e: sent.append((e["timestamp"], frame_bytes(e["response"]))))
            cdp.on("Network.webSocketFrameReceived",
                   lambda e: received.append((e["timestamp"], frame_bytes(e["response"]))))
            rows += [_control(p, name, control, watched, others, repeats, sent, received, stamps, timeout_s)
                     for _, control, watched, others in page_cases]
        finally:
            ctx.close()
    return rows
