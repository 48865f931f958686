"""AppTest helpers: run app.py on one page with chosen session state, as a user would."""
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def open_page(page: str, timeout: float = 60, **state) -> AppTest:
    """Run the app on app_pages/<page>.py with the given session-state values set first."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    for key, value in state.items():
        at.session_state[key] = value
    at.switch_page(f"app_pages/{page}.py")
    at.run()
    return at


def open_link(page: str, **params) -> AppTest:
    """Run the app on app_pages/<page>.py opened from a link with the given query parameters."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(params)
    at.switch_page(f"app_pages/{page}.py")
    return at.run()


def open_keeping_downloads(page: str, **state) -> tuple[AppTest, dict]:
    """open_page, keeping the callables its download buttons run on click, by file name (as the server's
    media file manager keeps them for the session)."""
    from unittest import mock

    from streamlit.runtime.media_file_manager import MediaFileManager

    made = {}
    add = MediaFileManager.add_deferred

    def keep(self, fn, mimetype, coordinates, file_name=None, **kwargs):
        made[file_name] = fn
        return add(self, fn, mimetype, coordinates, file_name, **kwargs)

    with mock.patch.object(MediaFileManager, "add_deferred", keep):
        at = open_page(page, **state)
    return at, made


def assert_clean(at: AppTest) -> None:
    """The run raised nothing: an exception element would show a traceback to the user."""
    assert not at.exception, [e.value for e in at.exception]


@pytest.fixture
def page():
    return open_page


def decode(value):
    """A plotly JSON value: base64 {dtype, bdata, shape} → numpy array; lists → arrays; else as is."""
    import base64

    import numpy as np

    if isinstance(value, dict) and "bdata" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if shape:
            array = array.reshape([int(s) for s in str(shape).split(",")])
        return array
    if isinstance(value, list):
        import numpy as np

        return np.asarray(value)
    return value


def chart(at: AppTest, name: str):
    """The chart element a page drew with page.chart(fig, name), found by the widget key page.chart gave it."""
    from viz_app.page import chart_key

    found = [c for c in at.get("plotly_chart") if c.key == chart_key(name)]
    assert found, f"no chart named {name}; the page drew {chart_names(at)}"
    return found[0]


def named_chart(at: AppTest, name: str) -> dict:
    """The plotly figure JSON of the chart a page drew with page.chart(fig, name)."""
    import json

    return json.loads(chart(at, name).proto.spec)


def named_z(at: AppTest, name: str, trace: int = 0):
    """The z matrix of trace `trace` of the heatmap named `name`, as float32 numpy (NaN where plotly shows an empty cell)."""
    return decode(named_chart(at, name)["data"][trace]["z"])


def grid_tile(at: AppTest, name: str, layer: int, head: int):
    """One head's tile of an all-heads grid (one heatmap, heads tiled): where layout.meta says it is."""
    from viz_app.figures.attention import tile

    spec = named_chart(at, name)
    rows, cols = tile(spec["layout"]["meta"], layer, head)
    return decode(spec["data"][0]["z"])[rows, cols]


def chart_names(at: AppTest) -> list[str]:
    """The names (page.chart's `name`) of every plotly chart on the page, in order."""
    from viz_app.page import chart_name

    return [chart_name(c.key) for c in at.get("plotly_chart")]


def rendered(markdown: str) -> str:
    """The HTML a message's Markdown becomes in the browser (which shows raw HTML in it as text)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).renderInline(markdown)


def shown(markdown: str) -> str:
    """The text a reader sees in a message: its Markdown rendered, tags dropped."""
    import html
    import re

    return html.unescape(re.sub(r"<[^>]+>", "", rendered(markdown)))


def zipped(folder, top: str, extra: dict | None = None) -> bytes:
    """`folder` as a user zips it: one folder `top` holding every file in it, `extra` files (name: text) in place
    of those of the same name."""
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for f in sorted(folder.iterdir()):
            if f.name not in (extra or {}):
                z.write(f, f"{top}/{f.name}")
        for name, content in (extra or {}).items():
            z.writestr(f"{top}/{name}", content)
    return buf.getvalue()


def upload_zip(file_name: str, data: bytes, src: str) -> AppTest:
    """A session on the overview that uploaded `data` through the sidebar, and saw it loaded and selected."""
    from viz_app.i18n import text

    at = open_page("overview", timeout=120, src=src)
    at.sidebar.file_uploader[0].set_value((file_name, data, "application/zip"))
    at.run()
    assert_clean(at)
    assert [shown(s.value) for s in at.success] == [text("own.loaded", "en", source=file_name)]
    return at


@pytest.fixture(scope="module")
def own_models_here(tmp_path_factory):
    """Uploads go to the module's own folder for its whole run (a module may share an uploaded session)."""
    from viz_app import own_model

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(own_model, "OWN_DIR", tmp_path_factory.mktemp("own"))
        yield


def draws(at: AppTest, page: str) -> None:
    """The session opens `page` on the model it holds, without an exception, and draws a chart there."""
    name = at.session_state["model"]
    at.switch_page(f"app_pages/{page}.py").run()
    assert_clean(at)
    assert at.session_state["model"] == name, page
    assert at.get("plotly_chart") or at.get("graphviz_chart"), page
