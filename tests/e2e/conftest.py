"""Browser tests: one Streamlit server and one headless Debian chromium for the session, a fresh page per test.

Only what a browser shows is tested here (console errors, offline loading, glyphs, escaping,
the URL); the pages' numbers are the AppTests' job (tests/app).
"""
from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from core_model import load
from core_model.training.tasks import TASKS, corpus
from tests.e2e.chinese import model_words
from viz_app.loaders import DEFAULT_MODEL, MODELS_DIR
from viz_app.registry import NAMES

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "e2e"
CHROMIUM = "/usr/bin/chromium"
# Debian's chromium, not playwright's download: `playwright install` fetches from the network and
# CI has none of its system libraries. These flags keep it headless and silent (no update,
# sync or field-trial requests), so every request the test records comes from the page.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PAGES = list(NAMES)
WIDTH, HEIGHT = 1024, 768  # a common projector (presenter mode, the Chinese pages)
CHART = '.js-plotly-plot, [data-testid="stGraphVizChart"] svg'  # a plotly chart or a graphviz diagram
TIMEOUT_MS = 60_000  # a first run of a page loads a model and traces it; the machine may be busy


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {proc.returncode} before it was healthy")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.3)
    raise RuntimeError(f"streamlit was not healthy at {url} within {timeout:.0f} s")


@pytest.fixture(scope="session")
def server(server_process):
    """The base URL of the shared server (server_process)."""
    return server_process[0]


def stop(proc: subprocess.Popen) -> None:
    """Stop a server this test run started, by its PID: terminate, then kill if it lingers past 10 s."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="session")
def server_process():
    """(base URL, PID) of `streamlit run app.py` on a free local port, stopped by its PID afterwards."""
    port = free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER")  # a server, and a log, per pytest-xdist worker
    log = open(ARTIFACTS / (f"server-{worker}.log" if worker else "server.log"), "w")  # a failed page's traceback
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_healthy(f"http://127.0.0.1:{port}/_stcore/health", proc)
        yield f"http://127.0.0.1:{port}", proc.pid
    finally:
        stop(proc)
        log.close()


@pytest.fixture(scope="session")
def browser():
    # A missing browser fails, never skips: a CI run that silently skipped these would look green.
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} not found: install Debian's chromium (apt-get install chromium), "
                    "or run ./dev.sh test, which installs it when run as root")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


@dataclass
class Recorder:
    """What a page did that a test may want to forbid: console errors, uncaught errors, requests, dialogs."""
    console_errors: list[tuple[str, str]] = field(default_factory=list)  # (text, the URL it is about)
    page_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def foreign_requests(self) -> list[str]:
        return [u for u in self.requests if not u.startswith(("data:", "blob:")) and urlsplit(u).hostname != "127.0.0.1"]


@pytest.fixture
def open_page(browser, server):
    """open_page(path_and_query) -> (page, recorder): a new context (so a new Streamlit session) per call."""
    contexts = []

    def _open(path: str):
        context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
        contexts.append(context)
        page, rec = recorded(context.new_page())
        page.goto(f"{server}/{path}")
        wait_idle(page)
        return page, rec

    yield _open
    for context in contexts:
        context.close()


def real_console_errors(rec, path: str) -> list[str]:
    """Console errors, less the two 404s of Streamlit's own base-path probe.

    Opened at /explorer, Streamlit's frontend first tries /explorer/_stcore/health and
    /explorer/_stcore/host-config (in case the app is served under a path prefix), gets 404 and
    falls back to /_stcore/...; chromium logs each 404 as a console error. Nothing the app can change.
    """
    probe = re.compile(rf"/{re.escape(path)}/_stcore/(health|host-config)$")
    return [text for text, url in rec.console_errors if not (text.startswith("Failed to load resource") and probe.search(url))]


def assert_loaded_clean(page, rec, path: str) -> None:
    """A page drawn without a Python exception, a script error or a console error, with nothing fetched from
    outside (no CDN, no telemetry, no fonts from the web) and every chart's labels within the room it made."""
    errors = page.locator('[data-testid="stException"]')  # a traceback is drawn, not logged to the console
    assert errors.count() == 0, errors.first.inner_text()
    assert rec.page_errors == []
    assert real_console_errors(rec, path) == []
    assert rec.foreign_requests() == []
    assert outside_charts(page) == []


def recorded(page):
    """(page, its Recorder): what the page does from now on is noted."""
    page.set_default_timeout(TIMEOUT_MS)
    rec = Recorder()
    page.on("console", lambda m: rec.console_errors.append((m.text, m.location.get("url", "")))
            if m.type == "error" else None)
    page.on("pageerror", lambda e: rec.page_errors.append(str(e)))
    page.on("request", lambda r: rec.requests.append(r.url))

    def on_dialog(dialog):  # an alert() from injected text would block the page; note it and close it
        rec.dialogs.append(dialog.message)
        dialog.dismiss()
    page.on("dialog", on_dialog)
    return page, rec


def wait_idle(page, charts: int = 0) -> None:
    """Wait until the script run is over: a title is drawn, nothing is running or stale, `charts` plots are up."""
    page.wait_for_selector("h1", timeout=TIMEOUT_MS)
    # Streamlit marks the elements of the previous run data-stale while a rerun goes on, and shows its
    # status widget (the running man) during a run; both gone twice in a row, 300 ms apart, means done.
    page.wait_for_function(
        """(charts) => {
            const idle = !document.querySelector('[data-testid="stStatusWidget"]')
                && !document.querySelector('[data-stale="true"]')
                && document.querySelectorAll('.js-plotly-plot').length >= charts;
            const now = Date.now();
            if (!idle) { window.__idleSince = 0; return false; }
            window.__idleSince = window.__idleSince || now;
            return now - window.__idleSince > 300;
        }""", arg=charts, timeout=TIMEOUT_MS, polling=100)


def pick(page, box, option: str, typed: bool = False) -> None:
    """Pick `option` in the selectbox `box` (a locator) with the mouse; with `typed`, type it first, for a menu
    that lists only some of its options at a time.

    Just after a rerun, a click on a selectbox sometimes only focuses it and its menu stays shut
    (Streamlit is still settling what it re-drew), so the click is repeated until the option shows.
    """
    choice = page.get_by_role("option", name=option, exact=True)
    for _ in range(5):
        box.locator("input").click()
        if typed:
            page.keyboard.type(option)
        try:
            choice.wait_for(timeout=5000)
            break
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
    choice.click()


def sidebar_input(page, label: str):
    return page.locator('[data-testid="stSidebar"]').get_by_label(label, exact=True)


def type_sentence(page, text: str, label: str = "Sentence (press Enter)") -> None:
    """Replace the sidebar sentence and press Enter, as a user would."""
    box = sidebar_input(page, label)
    box.fill(text)
    box.press("Enter")


def chart_selector(name: str) -> str:
    """The CSS selector of the chart a page drew with page.chart(fig, name): Streamlit gives a keyed element's
    container the class st-key-<key>, each character of the key other than a letter, digit, _ or - made a -."""
    from viz_app.page import chart_key

    return ".st-key-" + re.sub(r"[^a-zA-Z0-9_-]", "-", chart_key(name).strip())


def plot_data(page, index: int = 0, name: str | None = None):
    """The figure data plotly attached to a chart's graph div (`.data`), as JSON-able lists."""
    return page.evaluate(
        """([index, name]) => {
            const plots = [...document.querySelectorAll('.js-plotly-plot')];
            const plot = name === null ? plots[index]
                : plots.find(p => (p.layout && p.layout.title && p.layout.title.text || '').includes(name));
            if (!plot || !plot.data) return null;
            // typed arrays (plotly decodes the binary float32 form) become plain lists
            const plain = v => ArrayBuffer.isView(v) ? Array.from(v) : Array.isArray(v) ? v.map(plain) : v;
            return plot.data.map(t => ({x: plain(t.x), y: plain(t.y), z: plain(t.z), type: t.type}));
        }""", [index, name])


# Each chart's tick labels, axis titles and colour-bar labels that reach outside its drawing (the SVG plotly draws
# into) by more than half a pixel: (chart key, text, pixels). The app sizes margins from the labels' lengths
# (viz_app/figures/room.py) instead of letting plotly measure them. A legend's entries are left out: a legend
# taller than its chart scrolls.
OUTSIDE = """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].flatMap(chart => {
    const svg = chart.querySelector('.main-svg');
    if (!svg) return [[chart.className, 'not drawn', 0]];
    const box = svg.getBoundingClientRect();
    const texts = chart.querySelectorAll('.xtick text, .ytick text, .g-xtitle text, .g-ytitle text, .colorbar text');
    return [...texts].map(t => [t, t.getBoundingClientRect()]).filter(([, r]) => r.width > 0)
        .map(([t, r]) => [chart.closest('[class*="st-key-"]')?.className.match(/st-key-\\S+/)?.[0] ?? '?',
                          t.textContent, Math.max(box.left - r.left, r.right - box.right, box.top - r.top,
                                                  r.bottom - box.bottom)])
        .filter(([, , px]) => px > 0.5);
})"""


def outside_charts(page) -> list:
    """OUTSIDE, once every chart on the page is drawn."""
    page.wait_for_function("""() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
        .every(c => c.querySelector('.main-svg'))""")
    return page.evaluate(OUTSIDE)


def x_ticks(page) -> list[str]:
    """The x-axis tick labels every plotly chart on the page shows on screen."""
    return page.evaluate("() => [...document.querySelectorAll('.js-plotly-plot .xtick text')].map(t => t.textContent)")


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


@pytest.fixture(scope="session")
def allowed() -> set[str]:
    """The Latin words a Chinese page may show of the default model (translate-en-fr): its pieces, the words of
    the sentences it was trained on (its sentences and translations join pieces into such words), and the shipped
    models' folder names (the model list shows them as they are). Read from the models, never from a page."""
    words = model_words(*load(MODELS_DIR / DEFAULT_MODEL).tokenizers.values())
    for split in corpus(TASKS[DEFAULT_MODEL], seed=0, n_train=3000).values():
        words |= {w for src, tgt, _ in split for w in re.findall(r"[A-Za-z]+", f"{src} {tgt}")}
    return words | {w for p in MODELS_DIR.iterdir() for w in re.findall(r"[A-Za-z]+", p.name)}


@pytest.fixture
def projector(browser, server):
    """projector(path) -> a page opened at `path` in a new 1024×768 context (a new session), idle."""
    contexts = []

    def _open(path: str, charts: bool = True):
        context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}, locale="en-US")
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{server}/{path}")
        if charts:  # a fragment (the positional lab) draws its charts after the page's run
            page.wait_for_selector(CHART, timeout=TIMEOUT_MS)
        wait_idle(page)
        return page

    yield _open
    for context in contexts:
        context.close()
