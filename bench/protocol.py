"""The load test's sessions without browsers: clients that speak Streamlit's own websocket protocol.

A class's 30 browsers run on 30 machines; on this 2-core machine 30 chromium contexts beside the server
take the cores the server needs (bench.load's browser run). Each client here is what a browser is to
the server: a websocket at /_stcore/stream carrying protobuf messages. It sends the BackMsg a browser
sends for each action (a rerun with the page's query string, the page's script hash, the widget it
changed and the fragment that widget lives in) and reads the ForwardMsgs the server sends back (the
navigation, the query string, every element). A rerun is timed from the request to its script-finished
message, so the time is the server's and the wire's, not a page's drawing. The round is bench.load's:
the explorer from the sidebar, a new sentence + Enter, a layer, a head, the decoding page, one step,
back to the overview; each session checks it saw its own sentence (the overview's text, the link's
src and the decoding page's cross-attention axis). Before its socket, a client fetches what a fresh browser fetches
from the server for the round's pages (`frontend`: Streamlit's page, scripts, styles and fonts, recorded once in
chromium), over as many kept-alive connections as chromium opens to one server.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import resource
import time
from collections import deque
from collections.abc import Sequence
from urllib.parse import parse_qs, urlencode, urlparse

from .browser import static_bytes
from .visitor import CROSS, FRONTEND, MODEL, Session, unfinished, visitors

FINISHED = {0: "done", 1: "compile error", 2: "rerun", 3: "done"}  # ForwardMsg.ScriptFinishedStatus
CONNECTIONS = 6  # chromium's connections to one server over HTTP/1.1


def frontend(base: str, browser, timeout_ms: float = 120_000) -> list[str]:
    """The paths (with their queries) a fresh browser asks the server for, opening a link to the overview, then the
    explorer's and the decoding page's (a round's pages), each until no request has followed for 0.5 s: recorded in
    a new context of `browser` (playwright's sync API). The later pages add only the scripts, styles and fonts the
    first did not need (a page switch inside the app fetches no page of its own); the socket is not among them."""
    origin, asked, first = urlparse(base).netloc, [], 0
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        page.on("request", lambda r: asked.append(urlparse(r.url)))
        for path in ("", "explorer", "decoding"):
            page.goto(f"{base}/{path}?" + urlencode({"model": MODEL, "src": "the cat sat on the mat"}))
            page.wait_for_selector("h1", timeout=timeout_ms)  # the page's run has begun: its elements' chunks follow
            page.wait_for_load_state("networkidle", timeout=timeout_ms)  # no request for 0.5 s
            first = first or len(asked)  # the requests of the first page end here
    finally:
        ctx.close()
    paths = [u.path + (f"?{u.query}" if u.query else "") for n, u in enumerate(asked)
             if u.netloc == origin and u.path != "/_stcore/stream" and (n < first or u.path.startswith("/static/"))]
    return list(dict.fromkeys(paths))


async def fetch_frontend(base: str, paths: Sequence[str], s: Session, timeout_s: float) -> None:
    """GET every path over CONNECTIONS kept-alive connections, as a browser fetches a page's files, and time it into
    the session. An answer other than 200, or a file under /static/ that is not the bytes on disk, is an error."""
    address, todo, wrong = urlparse(base), deque(paths), []

    async def connection():
        reader, writer = await asyncio.open_connection(address.hostname, address.port)
        try:
            while todo:
                path = todo.popleft()
                writer.write(f"GET {path} HTTP/1.1\r\nHost: {address.netloc}\r\n\r\n".encode())
                head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
                fields = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in head[1:] if line)}
                body = await reader.readexactly(int(fields["content-length"]))
                if head[0].split(" ")[1] != "200" or static_bytes(path) not in (None, body):
                    wrong.append(f"{path}: {head[0]}, {len(body)} bytes")
        finally:
            writer.close()

    t0 = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(*(connection() for _ in range(CONNECTIONS))), timeout_s)
    s.times.append((FRONTEND, time.perf_counter() - t0))
    s.errors += [f"frontend: {w}" for w in wrong[:3]]


class Client:
    """One session's connection: what the server last showed it (widgets, charts, texts, pages, link)."""

    def __init__(self, ws, s: Session, query: str, page_name: str = ""):
        self.ws, self.s, self.query, self.page_name = ws, s, query, page_name  # page_name: the link's, "" the root
        self.page_hash = ""  # the page the server runs for this session (its script's hash)
        self.pages: dict[str, str] = {}  # page title → script hash (the navigation message)
        self.paths: dict[str, str] = {}  # script hash → the page's URL path, which a browser sends with each rerun
        self.widgets: dict[str, tuple] = {}  # label → (widget proto, fragment id of its delta)
        self.charts: dict[str, str] = {}  # plotly title → spec (JSON), of the current page
        self.texts: list[str] = []
        self.alerts: list[str] = []  # st.warning, st.error, ... bodies, of the current page
        self.file_urls: list = []  # where the server last said an upload goes (FileURLs)
        self.bytes = 0

    async def rerun(self, name: str | None, state=None, page: str | None = None, timeout_s: float = 120) -> None:
        """Ask for a rerun (a changed widget's state, or another page); read until its run has finished.

        `name` times it into the session (None: not timed); a failed run, an exception element or a
        timeout is an error of the session.
        """
        from streamlit.proto.BackMsg_pb2 import BackMsg

        msg = BackMsg()
        client = msg.rerun_script
        client.query_string, client.page_script_hash = self.query, self.pages[page] if page else self.page_hash
        client.page_name = self.paths.get(client.page_script_hash, self.page_name)  # as the page's URL names it
        if state is not None:  # (a widget's new state or None: a fragment's own rerun, as run_every asks, fragment)
            widget, fragment = state
            if widget is None:
                client.is_auto_rerun = True
            else:
                client.widget_states.widgets.append(widget)
            client.fragment_id = fragment
        t0 = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        status = await asyncio.wait_for(self.read_run(), timeout_s)
        if status != "done":
            self.s.errors.append(f"{name or 'first page'}: the run ended with {status}")
        if name:
            self.s.times.append((name, time.perf_counter() - t0))

    async def read_run(self) -> str:
        """Read until a run has finished; how it ended."""
        while True:
            status = await self.read_one()
            if status:
                return status

    async def read_one(self) -> str | None:
        """Read one ForwardMsg and keep what it shows; a finished run's status, else None."""
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        data = await self.ws.recv()
        self.bytes += len(data)
        msg = ForwardMsg()
        msg.ParseFromString(data)
        kind = msg.WhichOneof("type")
        if kind == "new_session":  # a run starts: the page (or the fragment) is drawn afresh
            self.charts, self.texts, self.alerts = {}, [], []
        elif kind == "navigation":  # a full run's pages, and the page it runs (new_session names app.py)
            self.page_hash = msg.navigation.page_script_hash
            self.pages = {p.page_name: p.page_script_hash for p in msg.navigation.app_pages}
            self.paths = {p.page_script_hash: p.url_pathname for p in msg.navigation.app_pages}
        elif kind == "page_info_changed":
            self.query = msg.page_info_changed.query_string
        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            self.element(msg.delta.new_element, msg.delta.fragment_id)
        elif kind == "ref_hash":  # a cached message: this client declares no cache, so it must not come
            self.s.errors.append("the server sent a cached-message reference")
        elif kind == "file_urls_response":
            self.file_urls = list(msg.file_urls_response.file_urls)
        elif kind == "script_finished" and FINISHED[msg.script_finished] != "rerun":
            return FINISHED[msg.script_finished]
        return None

    async def upload(self, base: str, label: str, name: str, data: bytes, timeout_s: float = 120) -> None:
        """What a browser does when its visitor picks a file for the uploader `label`: ask the server where to put it,
        PUT it there (a multipart form, with the XSRF cookie of the server's page), then rerun with the uploader's
        state naming it. The rerun is timed as `name`."""
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.Common_pb2 import FileUploaderState, UploadedFileInfo

        msg = BackMsg()
        msg.file_urls_request.request_id, self.file_urls = name, []
        msg.file_urls_request.file_names.append(name)
        await self.ws.send(msg.SerializeToString())
        while not self.file_urls:
            await asyncio.wait_for(self.read_one(), timeout_s)
        (urls,) = self.file_urls
        await asyncio.to_thread(put_file, base + urls.upload_url, name, data, timeout_s)
        widget, fragment = self.state(label)
        widget.file_uploader_state_value.CopyFrom(FileUploaderState(uploaded_file_info=[
            UploadedFileInfo(file_id=urls.file_id, name=name, size=len(data), file_urls=urls)]))
        await self.rerun(name, (widget, fragment), timeout_s=timeout_s)

    def element(self, e, fragment: str) -> None:
        kind = e.WhichOneof("type")
        proto = getattr(e, kind)
        if kind == "exception":
            self.s.errors.append(f"exception element: {proto.type}: {proto.message[:300]}")
        elif kind == "plotly_chart":
            title = json.loads(proto.spec).get("layout", {}).get("title", {})
            self.charts[title.get("text", "") if isinstance(title, dict) else str(title)] = proto.spec
        elif kind == "text":
            self.texts.append(proto.body)
        elif kind == "alert":
            self.alerts.append(proto.body)
        elif getattr(proto, "label", None) and getattr(proto, "id", "").startswith("$$ID"):
            self.widgets[proto.label] = (proto, fragment)

    def state(self, label: str, **value):
        """The widget state a browser sends for the widget `label` set to `value` (e.g. string_value="2")."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        proto, fragment = self.widgets[label]
        return WidgetState(id=proto.id, **value), fragment

    def shows_own(self, sentence: str, labels: list[str]) -> bool:
        """The link's src and the cross-attention chart's source axis hold this session's sentence."""
        spec = next((v for k, v in self.charts.items() if CROSS in k), None)
        axis = json.loads(spec)["data"][0].get("x") if spec else None
        return parse_qs(self.query).get("src") == [sentence] and axis == labels


def put_file(url: str, name: str, data: bytes, timeout_s: float) -> None:
    """PUT `data` as the file `name` of a multipart form to the upload `url`, as Streamlit's page does: with the XSRF
    cookie its server sets on the health check the page asks for first, echoed in the X-Xsrftoken header. An answer
    other than 204 raises."""
    import urllib.request
    import uuid
    from http.cookies import SimpleCookie

    with urllib.request.urlopen(url.split("/_stcore/")[0] + "/_stcore/health", timeout=timeout_s) as page:
        cookie = SimpleCookie(page.headers.get("Set-Cookie", ""))["_streamlit_xsrf"].value
    boundary = uuid.uuid4().hex
    body = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            f"Content-Type: application/zip\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    request = urllib.request.Request(url, data=body, method="PUT", headers={
        "Content-Type": f"multipart/form-data; boundary={boundary}", "Cookie": f"_streamlit_xsrf={cookie}",
        "X-Xsrftoken": cookie})
    with urllib.request.urlopen(request, timeout=timeout_s) as answer:
        if answer.status != 204:
            raise RuntimeError(f"upload of {name}: HTTP {answer.status}")


@contextlib.asynccontextmanager
async def opened(base: str, query: str, sentence: str = "", headers: dict | None = None, page_name: str = "",
                 timeout_s: float = 60):
    """A client that has opened the app's page `page_name` (its url path; "": the root) with the link's `query`, its
    websocket's handshake carrying `headers`; its session's errors are `client.s.errors`."""
    from websockets.asyncio.client import connect

    async with connect(base.replace("http://", "ws://") + "/_stcore/stream", subprotocols=["streamlit"],
                       max_size=None, open_timeout=timeout_s, additional_headers=headers) as ws:
        c = Client(ws, Session(0, [sentence]), query, page_name)
        await c.rerun(None, timeout_s=timeout_s)
        yield c


async def warmed(base: str, timeout_s: float = 300) -> None:
    """One session opens the overview and its run ends: the server's first run (its imports, the model loaded,
    viz_app.serving.settle) is over before a measure starts. A browser's page shows its title before that."""
    async with opened(base, urlencode({"model": MODEL}), timeout_s=timeout_s):
        pass


async def one_round(c: Client, sentence: str, labels: list[str], timeout_s: float) -> None:
    """bench.load's round: the explorer, a new sentence, a layer, a head, the decoding page and a step, the overview."""
    s = c.s
    s.layer, s.head = (s.layer + 1) % 3, (s.head + 1) % 4
    await c.rerun("page switch", page="Attention explorer", timeout_s=timeout_s)
    await c.rerun("new sentence", c.state("Sentence (press Enter)", string_value=sentence), timeout_s=timeout_s)
    for label, value in (("Layer", s.layer), ("Head", s.head)):
        await c.rerun(label.lower(), c.state(label, string_value=str(value)), timeout_s=timeout_s)
        if parse_qs(c.query).get(label.lower()) != [str(value)]:  # the app puts the shown layer and head in the link
            s.errors.append(f"{label.lower()} {value} asked, the link says {parse_qs(c.query).get(label.lower())}")
    await c.rerun("page switch", page="Decoding", timeout_s=timeout_s)
    step = "next ▶" if not c.widgets["next ▶"][0].disabled else "◀ previous"  # the last step of the last round's output
    await c.rerun("decoding step", c.state(step, trigger_value=True), timeout_s=timeout_s)
    s.own_view.append(c.shows_own(sentence, labels))
    await c.rerun("page switch", page="Overview", timeout_s=timeout_s)


def student(index: int) -> dict:
    """The header nginx would forward for a student of a class at a school: each at an address of their own
    (198.51.100.0/24, the documentation range), so the server shares its CPU between them (viz_app/fair.py)."""
    return {"X-Real-Ip": f"198.51.100.{index % 254 + 1}"}


async def visit(base: str, s: Session, labels: dict, rounds: int, timeout_s: float, files: Sequence[str]) -> None:
    """One session from its first page to its socket closing, after fetching `files` (`frontend`'s); a timeout or a
    lost socket counts as an error."""
    from websockets.asyncio.client import connect

    query = urlencode({"model": MODEL, "src": s.sentences[0]})
    try:
        if files:
            await fetch_frontend(base, files, s, timeout_s)
        async with connect(base.replace("http://", "ws://") + "/_stcore/stream", subprotocols=["streamlit"],
                           max_size=None, open_timeout=timeout_s, additional_headers=student(s.index)) as ws:
            c = Client(ws, s, query)
            t0 = time.perf_counter()
            await c.rerun(None, timeout_s=timeout_s)  # the root opens the overview with the link's settings
            s.times.append(("first page", time.perf_counter() - t0))
            s.own_view.append(s.sentences[0] in c.texts)
            for sentence in s.sentences[1:rounds + 1]:
                await one_round(c, sentence, labels[sentence], timeout_s)
    except Exception as e:  # noqa: BLE001 - a timeout, a closed socket or a missing widget ends this session, counted
        s.errors.append(f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}")


async def run_clients(base: str, n: int = 30, rounds: int = 2, timeout_s: float = 120, seed: int = 11,
                      ramp_s: float = 1.0, deadline_s: float | None = None,
                      files: Sequence[str] = ()) -> tuple[list[Session], float]:
    """bench.load.run_sessions with protocol clients, each fetching `files` first (`frontend`'s; none: straight to
    the socket); also returns the CPU seconds this process spent on them."""
    sessions, labels = visitors(base, n, rounds, seed)
    before = resource.getrusage(resource.RUSAGE_SELF)

    async def started(s: Session):
        await asyncio.sleep(s.index * ramp_s)
        await visit(base, s, labels, rounds, timeout_s, files)

    try:
        await asyncio.wait_for(asyncio.gather(*(started(s) for s in sessions)), deadline_s)
    except asyncio.TimeoutError:
        unfinished(sessions, rounds, deadline_s)
    after = resource.getrusage(resource.RUSAGE_SELF)
    return sessions, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
