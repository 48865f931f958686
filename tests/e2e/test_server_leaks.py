"""What one visitor of a shared server can do, through a real `streamlit run app.py` (conftest's server): a client's
`clear_cache` message empties no one's cache, a link Streamlit ignores for its size is said, and so is a crafted
uploader state (viz_app/serving.close_to_visitors, viz_app/own_model.on_upload)."""
import re
import time
import urllib.request
from urllib.parse import urlencode

from bench import browser as br
from bench.protocol import opened

from .test_load import run

METRICS_TTL_S = 5.5  # Streamlit recomputes the cache sizes of /_stcore/metrics at most every 5 s


def cached_bytes(base: str) -> int:
    """The bytes every st.cache_data and st.cache_resource of the process holds, from Streamlit's metrics (served by
    a `streamlit run` server; the cli's and nginx's refuse them, test_cli_entry and test_proxy)."""
    with urllib.request.urlopen(f"{base}/_stcore/metrics?families=cache_memory_bytes", timeout=30) as response:
        text = response.read().decode()
    lines = [line for line in text.splitlines() if re.match(r'cache_memory_bytes\{cache_type="st_cache_(data|resource)"',
                                                              line)]
    return sum(int(float(line.rsplit(" ", 1)[1])) for line in lines)


async def first_page_then(base: str, messages: list[str], sentence: str = "the cat sat on the mat") -> list[str]:
    """A protocol client opens the overview on `sentence`, sends each BackMsg field in `messages` (set to true), then
    reruns, so the server has handled them in order; its errors."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    async with opened(base, urlencode({"model": "translate-en-fr", "src": sentence}), sentence) as c:
        for field in messages:
            msg = BackMsg()
            setattr(msg, field, True)
            await c.ws.send(msg.SerializeToString())
        await c.rerun("after")
    return c.s.errors


def test_a_visitors_clear_cache_message_empties_no_cache():
    # a server of its own: on the shared one, other tests' entries could be evicted meanwhile
    with br.server() as (base, _):
        assert run(first_page_then(base, [])) == []
        time.sleep(METRICS_TTL_S)
        before = cached_bytes(base)
        assert before > 0  # the model's decoding of the sentence, at least
        assert run(first_page_then(base, ["clear_cache"], "the dog sees a small bird")) == []
        time.sleep(METRICS_TTL_S)
        assert cached_bytes(base) > before  # the first sentence's entries stay, the second's are added


async def first_page_of(base: str, query: str) -> tuple[list[str], list[str], str]:
    """A protocol client opens the app with the link's `query`: (its errors, the alerts shown, the link after)."""
    async with opened(base, query) as c:
        return c.s.errors, c.alerts, c.query


def test_a_link_too_long_for_streamlit_is_said_not_dropped_silently(server):
    from viz_app.i18n import text

    run(first_page_of(server, "src=a"))  # a server started as `streamlit run` is closed to visitors on its first run
    for query in ("src=" + "a" * (600 * 1024), "&".join(f"x{i}=1" for i in range(1001))):  # 600 Ki; 1,001 fields
        errors, alerts, link = run(first_page_of(server, query))
        assert errors == [] and text("query.dropped", "en", n=len(query)) in alerts, alerts
        assert "link.dropped" not in link  # said once, then gone from the link


async def crafted_upload(base: str, file_id: str, name: str) -> tuple[list[str], list[str]]:
    """A protocol client opens the app, then sends the sidebar's uploader a state naming a file it never uploaded."""
    from streamlit.proto.Common_pb2 import FileUploaderState, UploadedFileInfo

    from viz_app.i18n import text

    async with opened(base, urlencode({"model": "reverse"})) as c:
        crafted = FileUploaderState(uploaded_file_info=[UploadedFileInfo(file_id=file_id, name=name, size=3)])
        widget, fragment = c.state(text("own.upload", "en"))
        widget.file_uploader_state_value.CopyFrom(crafted)
        await c.rerun("crafted", (widget, fragment))
        return c.s.errors, c.alerts


def test_a_crafted_uploader_state_is_said_in_words_never_a_traceback(server):
    from viz_app.i18n import text

    for file_id, name in (("no-such-file", "mine.zip"), ("no-such-file-2", "mi\x00ne.zip")):
        errors, alerts = run(crafted_upload(server, file_id, name))
        assert errors == []  # no exception element: before, "AttributeError" in a redacted traceback
        assert text("own.no_file", "en") in alerts, alerts


async def opened_on(base: str, page: str, query: str) -> tuple[int, list[str], str, list[str]]:
    """A protocol client opens `page` with the link's `query`: (the bytes the server sent, the alerts, the link after,
    the texts shown)."""
    async with opened(base, query, page_name=page) as c:
        return c.bytes, c.alerts, c.query, c.texts


def test_a_long_link_value_is_said_once_and_never_sent_back_again_and_again(server):
    from viz_app.i18n import text

    plain, *_ = run(opened_on(server, "positional", urlencode({"positional.dims": "0,1"})))
    dims = ",".join(["0"] * 50_000)  # 100 KB: Streamlit sent it again with each of the page's 12 writes to the link
    sent, alerts, link, _ = run(opened_on(server, "positional", urlencode({"positional.dims": dims})))
    assert sent < plain + 50_000, (sent, plain)  # 2.7 MB before, against 0.3 MB
    assert any(a.startswith("The link asked for `positional.dims = 0,0,0") for a in alerts), alerts
    assert "positional.dims=%5B0%2C+1%2C+8%2C+16%5D" in link  # the value shown instead
    sentence = " ".join(["the cat sees a dog ."] * 70)  # 1,469 characters: too long to stay in a link, still used
    _, alerts, link, texts = run(opened_on(server, "overview", urlencode({"model": "reverse", "src": sentence})))
    assert "src=" not in link and sentence in texts, (alerts, texts[:3])
