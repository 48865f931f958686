"""A control inside a fragment reruns only its part of the page: the server sends only that part's elements,
and every other chart keeps the very data it had (plotly's graph div is not even touched)."""
import base64

import pytest

from tests.e2e.conftest import TIMEOUT_MS, chart_selector, wait_idle
from viz_app.i18n import text
from viz_app.page import chart_key

# page, the control's label, the charts the control redraws, charts elsewhere on the page
CASES = [
    ("ffn_norm", "ffn_norm.token", {"ffn_norm.hist"}, {"ffn_norm.stream", "ffn_norm.hidden", "ffn_norm.lens"}),
    ("explorer", "explorer.average", {"explorer.head", "explorer.lines"}, {"explorer.grid", "explorer.stats"}),
    ("positional", "positional.base", {"positional.curves", "positional.table", "positional.similarity"},
     {"positional.sentence.scaled", "positional.sentence.pos", "positional.sentence.out"}),
]

# Both take each chart's chart_selector.
MARK = """(charts) => charts.map(chart => {
    const plot = document.querySelector(`${chart} .js-plotly-plot`);
    if (!plot) return null;
    plot.__untouched = true;  // a redraw with new data replaces .data; this mark tells whether the div was kept
    return JSON.stringify(plot.data.map(t => [t.x, t.y, t.z].map(v => v && ArrayBuffer.isView(v) ? Array.from(v) : v)));
})"""
STILL = """(charts) => charts.map(chart => {
    const plot = document.querySelector(`${chart} .js-plotly-plot`);
    return plot ? [plot.__untouched === true,
                   JSON.stringify(plot.data.map(t => [t.x, t.y, t.z].map(v => v && ArrayBuffer.isView(v) ? Array.from(v) : v)))]
                : null;
})"""


def payload(frame: dict) -> bytes:
    """A websocket frame's bytes (the protocol hands binary frames over in base64)."""
    return base64.b64decode(frame["payloadData"]) if frame["opcode"] == 2 else frame["payloadData"].encode()


def change(page, label: str) -> None:
    """Change the main-area control `label`: the next option of a selectbox (a select slider's label names its
    group, which takes the same path: a click on it moves the thumb), the other state of a checkbox."""
    main = page.locator('[data-testid="stMain"]')
    box = main.get_by_label(label, exact=True).first
    kind = box.get_attribute("role") or box.evaluate("e => e.tagName.toLowerCase() + ':' + (e.type || '')")
    if kind == "slider":
        box.focus()
        page.keyboard.press("ArrowRight")
    elif kind == "input:checkbox" or kind == "checkbox":
        main.get_by_text(label, exact=True).first.click()
    else:
        box.click()
        page.keyboard.press("ArrowDown")
        page.keyboard.press("Enter")


@pytest.mark.parametrize("path, control, redrawn, others", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_a_fragment_control_resends_only_its_part(open_page, path, control, redrawn, others):
    page, _ = open_page(path)
    wait_idle(page, charts=1)
    names = sorted(redrawn | others)
    before = dict(zip(names, page.evaluate(MARK, [chart_selector(n) for n in names])))
    assert all(before.values()), f"charts not found: {[n for n, v in before.items() if v is None]}"
    frames = []  # what the server sends from now on (the socket was opened before: listen through the protocol)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.on("Network.webSocketFrameReceived", lambda e: frames.append(payload(e["response"])))
    change(page, text(control, "en"))
    page.wait_for_timeout(500)
    wait_idle(page, charts=1)
    after = dict(zip(names, page.evaluate(STILL, [chart_selector(n) for n in names])))
    changed = {n for n in names if after[n][1] != before[n]}
    assert changed and changed <= redrawn, changed  # the control changed its charts' data and no other's
    sent = b" ".join(frames)
    assert frames, "no message came back"
    for name in others:
        assert after[name][0], f"{name} was redrawn"
        assert chart_key(name).encode() not in sent, f"{name} was sent again"


def test_sampling_redraws_its_distribution_from_its_fragment_then_the_page_samples_with_it(open_page):
    """The decoding page's temperature: the browser's rerun request names the sampling chart's fragment (its chart
    redraws from the step's logits in that run), and the page then follows with the new setting in its link."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    page, rec = open_page("decoding?model=translate-en-fr&decoding.method=sample&decoding.top_p=1.0")  # every bar moves
    selector = chart_selector("decoding.top")
    page.locator(selector).scroll_into_view_if_needed()
    wait_idle(page, charts=1)
    before = page.evaluate(MARK, [selector])[0]
    assert before, "no sampling chart"
    sent = []
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.on("Network.webSocketFrameSent", lambda e: sent.append(payload(e["response"])))
    slider = page.locator('[data-testid="stMain"] [data-testid="stSlider"]').filter(
        has_text=text("decoding.temperature", "en"))
    slider.get_by_role("slider").focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"""(old) => ({MARK})([{selector!r}])[0] !== old""", arg=before, timeout=TIMEOUT_MS)
    page.wait_for_timeout(500)
    wait_idle(page, charts=1)
    requests = [m.rerun_script for m in map(BackMsg.FromString, sent) if m.WhichOneof("type") == "rerun_script"]
    assert requests and requests[0].fragment_id, "the slider's rerun did not name a fragment"
    assert "decoding.temperature=1.1" in page.url  # the page sampled again with it (the link follows the page run)
    assert not rec.page_errors
