"""Browser benchmarks: a real `streamlit run` server driven by Debian's chromium through playwright.

Measures websocket bytes per page, time to the first chart and to the re-render after Enter,
and the server's resident memory. Never downloads a browser: without /usr/bin/chromium (or
the playwright package) the caller writes "not measured".
"""
from __future__ import annotations

import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from urllib.parse import parse_qs, urlencode, urlparse

from .core import ROOT

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
def server():
    """A headless streamlit server on a free port; yields (base url, pid); stopped by its PID."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while True:
            try:
                if urllib.request.urlopen(base + "/_stcore/health", timeout=2).status == 200:
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("the streamlit server did not become healthy")
            time.sleep(0.3)
        yield base, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def rss_mb(pid: int) -> float:
    """VmRSS of a process in MiB, from /proc/PID/status."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS line")


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
    return f"{base}/{page}?" + urlencode({"model": model, "src": src})


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


def first_chart_and_rerender(b, base: str, sentence: str, new_sentences: list[str], page: str = "explorer") -> dict:
    """Navigation → first chart drawn; Enter in the sentence box → the first chart's data changed.

    Each repeat uses a fresh browser context and a sentence not seen before, so the server
    runs the model for it (its caches only hold earlier sentences).
    """
    first, rerender, checks = [], [], []
    for new in new_sentences:
        ctx = b.new_context()
        try:
            p = ctx.new_page()
            t0 = time.perf_counter()
            p.goto(url(base, page, "translate-en-fr", sentence), wait_until="commit")
            p.wait_for_selector(CHART, timeout=120_000)
            first.append(time.perf_counter() - t0)
            p.wait_for_function(f"({SIGNATURE})() !== null", timeout=60_000)
            p.wait_for_timeout(1500)  # let the first run finish before typing
            before = p.evaluate(SIGNATURE)
            box = p.locator('[data-testid="stSidebar"]').get_by_label("Sentence (press Enter)", exact=True)
            box.fill(new)
            t0 = time.perf_counter()
            box.press("Enter")
            p.wait_for_function(f"(old) => {{ const s = ({SIGNATURE})(); return s !== null && s !== old; }}",
                                arg=before, timeout=120_000)
            rerender.append(time.perf_counter() - t0)
            after = p.evaluate(SIGNATURE)
            # the redrawn chart belongs to the new sentence: the data changed and the view's link carries it
            checks.append(after != before and parse_qs(urlparse(p.url).query).get("src") == [new])
        finally:
            ctx.close()
    return dict(first_s=statistics.median(first), first_all=first, rerender_s=statistics.median(rerender),
                rerender_all=rerender, ok=all(checks), checks=checks)


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
