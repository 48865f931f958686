"""deploy/nginx.conf works: two app processes behind Debian's nginx, each browser session kept on one.

Two `streamlit run app.py` processes and nginx (the template, with only its ports changed, run from
a temp folder) on 127.0.0.1. Browser sessions, each its own context and so its own uid cookie, load
a chart through nginx, rerun it with a new sentence, and reload the page (a second websocket, as
after a dropped connection). nginx's access log names, for every request and websocket, the uid it
hashed and the process ($upstream_addr) that served it: each session's lines must name one process,
and the sessions both processes. nginx keeps Streamlit's frontend files and serves them itself, and the visitors
get the app's scripts compressed.
"""
from __future__ import annotations

import base64
import gzip
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.e2e.conftest import ARTIFACTS, ROOT, TIMEOUT_MS, free_port, type_sentence, wait_healthy, wait_idle

NGINX = "/usr/sbin/nginx"  # Debian's package; never a proxy of our own
TEMPLATE = ROOT / "deploy" / "nginx.conf"
PAGE = "tokens"  # a light page (its first chart and a rerun take seconds); what is tested is the way there
# Two sessions at once on two processes (each one loading its model first), on a 2-core machine
# that other jobs share: a step may take longer than the other browser tests allow.
WAIT_MS = 2 * TIMEOUT_MS
PER_PROCESS = 1  # full sessions kept on each process: one on each shows both serve and each keeps to its own
MAX_VISITORS = 40  # first visits tried to find them; 40 random uids all on one of two processes: 1 in 5e11
WORDS = ["car", "bird", "tree", "house"]  # a new word per session, not in the page's example sentence
LINE = re.compile(r'"(?P<request>[^"]*)" (?P<status>\d{3}) .* uid_got=(?P<got>\S+) uid_set=(?P<set>\S+) '
                  r'upstream=(?P<upstream>\S+) .* cache=(?P<cache>\S+)$')
# The first chart's data (plotly's, on its graph div), to see that a rerun redrew it.
FIRST_CHART = """() => { const gd = document.querySelector('[data-testid="stPlotlyChart"] .js-plotly-plot');
    return gd && gd.data ? JSON.stringify(gd.data.map(d => [d.x, d.y, d.z])) : null; }"""


def write_conf(prefix: Path, listen: int, backends: list[int]) -> Path:
    """The template with its `listen` line and its upstream's `server` lines replaced, nothing else."""
    text = TEMPLATE.read_text(encoding="utf-8")
    text, n_listen = re.subn(r"^([ \t]*)listen \S+;", rf"\g<1>listen 127.0.0.1:{listen};", text, flags=re.M)
    servers = "".join(f"        server 127.0.0.1:{port};\n" for port in backends)
    text, n_servers = re.subn(r"(?:^[ \t]*server 127\.0\.0\.1:\d+;[^\n]*\n)+", servers, text, flags=re.M)
    assert (n_listen, n_servers) == (1, 1), "deploy/nginx.conf: expected one listen line and one block of server lines"
    conf = prefix / "nginx.conf"
    conf.write_text(text, encoding="utf-8")
    return conf


def stop(proc: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    """Stop one process we started, by its PID."""
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def uid_of(cookie_value: str) -> str:
    """The uid cookie's value as nginx logs it in $uid_got and $uid_set: its four 32-bit words in hex.

    The cookie is base64 of the words as they lie in memory (little-endian here); the log prints them as numbers."""
    raw = base64.b64decode(cookie_value + "=" * (-len(cookie_value) % 4))
    return "uid=" + "".join(f"{word:08X}" for word in struct.unpack("<4I", raw))


def read_log(path: Path) -> list[dict]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        m = LINE.search(line)
        assert m, f"an access-log line not in deploy/nginx.conf's format: {line}"
        got, set_ = (m["got"] if m["got"] != "-" else ""), (m["set"] if m["set"] != "-" else "")
        rows.append(dict(request=m["request"], status=m["status"], got=got, set=set_, uid=got + set_,
                         upstream=m["upstream"], cache=m["cache"], line=line))
    return rows


@pytest.fixture(scope="module")
def cluster():
    """(nginx base url, access log path, backend addresses): two app processes and nginx, stopped by PID afterwards."""
    # A missing nginx fails, never skips: ./dev.sh test installs it (apt-get install nginx) when run as root.
    if not os.access(NGINX, os.X_OK):
        pytest.fail(f"{NGINX} not found: install Debian's nginx (apt-get install nginx), "
                    "or run ./dev.sh test, which installs it when run as root")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    # nginx's own folder (-p): pid, logs, temp folders. Not under pytest's tmp_path, which is private
    # to its user: run as root, nginx's workers drop to `nobody` and must reach the temp folders.
    prefix = Path(tempfile.mkdtemp(prefix="nginx-sticky-"))
    prefix.chmod(0o755)
    with ExitStack() as stack:
        stack.callback(shutil.rmtree, prefix, ignore_errors=True)
        # Keep nginx's logs for a look after the run (run after nginx stopped, before the folder goes).
        for name in ("access.log", "error.log"):
            stack.callback(lambda name=name: (prefix / name).exists()
                           and shutil.copy(prefix / name, ARTIFACTS / f"proxy-{name}"))
        ports = [free_port(), free_port()]
        apps = []
        for i, port in enumerate(ports):
            log = stack.enter_context(open(ARTIFACTS / f"proxy-app-{i}.log", "w"))
            proc = subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", "app.py", "--server.address", "127.0.0.1",
                 "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false",
                 "--server.fileWatcherType", "none"],
                cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
            stack.callback(stop, proc)
            apps.append(proc)
        for port, proc in zip(ports, apps):
            wait_healthy(f"http://127.0.0.1:{port}/_stcore/health", proc)

        listen = free_port()
        conf = write_conf(prefix, listen, ports)
        nginx_out = stack.enter_context(open(ARTIFACTS / "proxy-nginx.log", "w"))
        nginx = subprocess.Popen([NGINX, "-p", str(prefix), "-c", str(conf), "-g", "daemon off;"],
                                 stdout=nginx_out, stderr=subprocess.STDOUT)
        # SIGQUIT: nginx's graceful stop (finishes and logs open requests); stop() kills it after 10 s
        stack.callback(stop, nginx, signal.SIGQUIT)
        try:
            wait_healthy(f"http://127.0.0.1:{listen}/_stcore/health", nginx, timeout=15)
        except RuntimeError as e:  # its message names streamlit; this was nginx
            raise RuntimeError(f"nginx did not answer ({e}): see {ARTIFACTS.name}/proxy-nginx.log and "
                               "proxy-error.log") from None
        yield f"http://127.0.0.1:{listen}", prefix / "access.log", [f"127.0.0.1:{p}" for p in ports]


def uid_rows(access_log: Path, uid: str) -> list[dict]:
    return [r for r in read_log(access_log) if r["uid"] == uid]


def new_visitor(browser, base: str, access_log: Path):
    """A fresh context whose first request (the page /_stcore/health) got nginx's uid cookie.

    Returns (context, page, uid as logged, the process the hash sent it to)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(f"{base}/_stcore/health")
    cookies = [c for c in context.cookies() if c["name"] == "uid"]
    assert len(cookies) == 1, f"nginx set no single uid cookie: {context.cookies()}"
    uid = uid_of(cookies[0]["value"])
    first = uid_rows(access_log, uid)
    # That request is logged with the uid nginx set (not got) and the process the hash chose for it;
    # the browser may have asked for /favicon.ico since, with the cookie (got).
    assert first and (first[0]["request"], first[0]["got"], first[0]["set"]) == ("GET /_stcore/health HTTP/1.1", "",
                                                                                 uid), [r["line"] for r in first]
    assert all(r["got"] == uid for r in first[1:]), [r["line"] for r in first]
    return context, page, uid, first[0]["upstream"]


def visit(sessions: list[tuple], base: str) -> dict[str, list[str]]:
    """The sessions at once, each step started on every page and then awaited on each in turn:
    first chart, a rerun with a new sentence (same websocket), a reload (a new websocket).
    Returns each session's websocket URLs."""
    sockets: dict[str, list[str]] = {uid: [] for _, uid, _ in sessions}
    for page, uid, _ in sessions:
        page.on("websocket", lambda ws, uid=uid: sockets[uid].append(ws.url))
        page.goto(f"{base}/{PAGE}", wait_until="commit")
    before = {}
    for page, uid, _ in sessions:
        page.wait_for_selector('[data-testid="stPlotlyChart"]')
        wait_idle(page, charts=1)
        page.wait_for_function(f"() => ({FIRST_CHART})() !== null")
        before[uid] = page.evaluate(FIRST_CHART)
    for page, _, word in sessions:
        type_sentence(page, f"the {word} is here")
    for page, uid, word in sessions:  # the link carries the new sentence and the first chart was redrawn
        page.wait_for_function(
            f"([w, old]) => location.search.includes('src=the+' + w + '+') && ({FIRST_CHART})() !== old",
            arg=[word, before[uid]])
        wait_idle(page, charts=1)
    for page, _, _ in sessions:
        page.reload(wait_until="commit")  # as after a dropped connection: it must reach the same process
    for page, _, word in sessions:
        page.wait_for_selector('[data-testid="stPlotlyChart"]')
        wait_idle(page, charts=1)
        assert f"src=the+{word}+" in page.url  # the link kept the sentence through the reload
        assert page.locator('[data-testid="stException"]').count() == 0
    return sockets


def test_sessions_stay_on_one_process_and_both_processes_serve(browser, cluster):
    base, access_log, backends = cluster
    # Visitors arrive: each one's first request sets its cookie and the hash sends it to a process.
    # Kept: the first PER_PROCESS on each process (so both serve, however the random uids fall).
    kept: dict[str, list] = {b: [] for b in backends}
    with ExitStack() as contexts:
        for _ in range(MAX_VISITORS):
            context, page, uid, upstream = new_visitor(browser, base, access_log)
            assert upstream in kept, f"served by {upstream}, not one of {backends}"
            if len(kept[upstream]) < PER_PROCESS:
                contexts.callback(context.close)
                kept[upstream].append((page, uid))
            else:
                context.close()
            if all(len(v) == PER_PROCESS for v in kept.values()):
                break
        assert all(len(v) == PER_PROCESS for v in kept.values()), f"{MAX_VISITORS} visitors, all on one process"
        sessions = [(page, uid, word) for (page, uid), word in zip([s for v in kept.values() for s in v], WORDS)]
        try:
            sockets = visit(sessions, base)
        except Exception:
            for i, (page, _, _) in enumerate(sessions):  # what each page showed, for the failure's reader
                page.screenshot(path=str(ARTIFACTS / f"proxy-session-{i}.png"), full_page=True)
            raise
    # The contexts are closed, and so their websockets: nginx logs a websocket when it ends.

    ws_url = base.replace("http://", "ws://", 1) + "/_stcore/stream"
    assert all(urls == [ws_url, ws_url] for urls in sockets.values()), sockets  # through nginx, twice each
    deadline = time.monotonic() + 15
    while True:
        rows = read_log(access_log)
        streams = {uid: [r for r in rows if r["uid"] == uid and r["request"].startswith("GET /_stcore/stream ")]
                   for _, uid, _ in sessions}
        if all(len(v) >= 2 for v in streams.values()) or time.monotonic() > deadline:
            break
        time.sleep(0.2)

    # A frontend file nginx had kept (cache=HIT) reached no process; every other request did.
    kept_files = [r for r in rows if r["cache"] == "HIT"]
    assert all(r["request"].startswith("GET /static/") and r["upstream"] == "-" for r in kept_files), \
        [r["line"] for r in kept_files]
    routed = [r for r in rows if r["cache"] != "HIT"]
    on = {}
    for _, uid, _ in sessions:
        mine = [r for r in routed if r["uid"] == uid]
        lines = "\n".join(r["line"] for r in mine)
        # its page twice (first load, reload), its scripts and styles, and two websockets upgraded (101)
        assert sum(bool(re.match(rf"GET /{PAGE}[ ?]", r["request"])) for r in mine) == 2, lines
        assert [r["status"] for r in streams[uid]] == ["101", "101"], lines
        upstreams = {r["upstream"] for r in mine}
        assert len(upstreams) == 1, f"session {uid} was served by {upstreams}:\n{lines}"
        on[uid] = upstreams.pop()
    assert sorted(on.values()) == sorted(b for b in backends for _ in range(PER_PROCESS))
    # Every other request went to one of the two processes (no retry on the other, no 502),
    # and no uid at all (the visitors not kept, the fixture's health check) was served by both.
    assert all(r["upstream"] in backends and r["status"] != "502" for r in routed), \
        [r["line"] for r in routed if r["upstream"] not in backends or r["status"] == "502"]
    for uid in {r["uid"] for r in routed}:
        assert len({r["upstream"] for r in routed if r["uid"] == uid}) == 1, uid


def test_the_visitors_get_the_apps_scripts_compressed(browser, cluster):
    import streamlit

    base = cluster[0]
    html = urllib.request.urlopen(f"{base}/", timeout=30).read().decode()
    path = re.search(r'<script type="module" crossorigin src="\./([^"]+)"', html).group(1)  # Streamlit's main bundle
    want = (Path(streamlit.__file__).parent / "static" / path).read_bytes()
    asked = urllib.request.Request(f"{base}/{path}", headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(asked, timeout=30) as answer:
        assert answer.headers["Content-Encoding"] == "gzip"
        sent = answer.read()
    assert gzip.decompress(sent) == want and len(sent) < len(want) / 2, (len(sent), len(want))
    with urllib.request.urlopen(f"{base}/{path}", timeout=30) as answer:  # a client that takes no gzip
        assert answer.headers["Content-Encoding"] is None and answer.read() == want
    # A browser's fresh visit: its scripts came compressed, and the page they make draws its chart.
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.goto(f"{base}/{PAGE}")
        page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')
        sent, whole = page.evaluate("""() => performance.getEntriesByType('resource').filter(r => r.name.endsWith('.js'))
            .reduce(([s, w], r) => [s + r.transferSize, w + r.decodedBodySize], [0, 0])""")
    finally:
        context.close()
    assert whole > 1_000_000 and sent < whole / 2, (sent, whole)


def test_nginx_keeps_streamlits_frontend_files_and_serves_them_itself(cluster):
    import streamlit

    base, access_log, backends = cluster
    html = urllib.request.urlopen(f"{base}/", timeout=30).read().decode()
    path = re.findall(r'rel="modulepreload" crossorigin href="\./([^"]+)"', html)[-1]  # one of Streamlit's scripts
    want = (Path(streamlit.__file__).parent / "static" / path).read_bytes()
    for _ in range(2):
        with urllib.request.urlopen(f"{base}/{path}", timeout=30) as answer:
            assert answer.read() == want
        urllib.request.urlopen(f"{base}/", timeout=30).read()  # the page itself, which may change: never kept
    deadline = time.monotonic() + 15  # nginx writes a request's log line when it has sent the answer
    while len(seen := [r for r in read_log(access_log) if r["request"] == f"GET /{path} HTTP/1.1"]) < 2:
        assert time.monotonic() < deadline, seen
        time.sleep(0.2)
    # The first time (or an earlier visitor's) a process served it; the second time nginx did, from its cache.
    assert seen[-1]["cache"] == "HIT" and seen[-1]["upstream"] == "-", [r["line"] for r in seen]
    assert seen[0]["upstream"] in backends or seen[0]["cache"] == "HIT", [r["line"] for r in seen]
    pages = [r for r in read_log(access_log) if r["request"] == "GET / HTTP/1.1"]
    assert pages and all(r["cache"] == "-" and r["upstream"] in backends for r in pages), [r["line"] for r in pages]


def test_streamlits_metrics_are_not_served_to_visitors(cluster):
    base, _, backends = cluster
    for path in ("/_stcore/metrics", "/_stcore/metrics?families=cache_memory_bytes"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(base + path, timeout=30)
        assert refused.value.code == 404
    # the app process itself serves them (started as `streamlit run app.py`): it is nginx that refused
    with urllib.request.urlopen(f"http://{backends[0]}/_stcore/metrics", timeout=30) as answer:
        assert b"session_events_total" in answer.read()


HALF_OPEN = 1100  # connections that never send a request: more than a server with 1,024 open files can hold
HEADER_TIMEOUT_S = 10  # deploy/nginx.conf's client_header_timeout


def test_connections_that_send_nothing_are_closed_and_hold_up_no_one(cluster):
    base = cluster[0]
    port = int(base.rsplit(":", 1)[1])
    silent = []
    try:
        for _ in range(HALF_OPEN):
            silent.append(socket.create_connection(("127.0.0.1", port), timeout=10))
        t0 = time.monotonic()
        with urllib.request.urlopen(f"{base}/_stcore/health", timeout=30) as answer:
            assert answer.status == 200
        assert time.monotonic() - t0 < 1  # another visitor is served at once meanwhile
        time.sleep(HEADER_TIMEOUT_S + 2)
        for s in silent[::100]:  # nginx has closed them: a read finds the end of the stream at once
            s.settimeout(5)
            assert s.recv(1) == b""
    finally:
        for s in silent:
            s.close()


def test_a_flood_of_requests_from_one_address_is_refused_with_429_and_the_app_sees_none_of_it(cluster):
    base, access_log, _ = cluster
    logged = len(read_log(access_log))
    statuses = []

    def ask():
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=30) as answer:
                statuses.append(answer.status)
        except urllib.error.HTTPError as e:
            statuses.append(e.code)

    start = time.monotonic()
    while 429 not in statuses and len(statuses) < 5000:  # a client asking as fast as it can, one after the other
        ask()
    elapsed = time.monotonic() - start
    for _ in range(50):  # and on: refused at once
        ask()
    first = statuses.index(429)
    assert set(statuses[:first]) == {200} and 300 <= first <= 300 + 20 * elapsed + 2  # the burst of 300, 20 a second
    assert statuses[first:].count(429) > 25
    time.sleep(1)
    passed = [r for r in read_log(access_log)[logged:] if r["request"].startswith("GET /_stcore/health")]
    assert len(passed) == statuses.count(200) and {r["status"] for r in passed} == {"200"}  # refusals not logged
