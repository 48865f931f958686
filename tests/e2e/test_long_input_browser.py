"""A 2,048-position text of lm-en in a real browser: every page draws clean and offline, and no websocket message is
over 2 MB."""
import base64
import re
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from tests.app.test_long_input import WORDS
from tests.e2e.conftest import TIMEOUT_MS, assert_loaded_clean, recorded, sidebar_input, wait_idle
from viz_app.i18n import text
from viz_app.registry import NAMES, PAGES

MESSAGE = 2_000_000
TOKENS = 2100  # words enough to fill lm-en's 2,048 positions (the app cuts the text to 2,027 tokens and says so)


def long_text() -> str:
    from viz_app import loaders

    tokenizer, text = loaders.load_model("lm-en").tokenizers["tgt"], WORDS
    while len(tokenizer.encode(text)) < TOKENS:
        text += WORDS
    return text


@pytest.fixture(scope="module")
def visitor(browser, server):
    """One visitor's session: the first page opened by its link with the long text, the others from the sidebar's
    navigation, as a visitor goes on (the text is the session's; a new session would trace it anew), and the size
    of every frame the server sends."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    page, rec = recorded(context.new_page())
    sizes = []
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.on("Network.webSocketFrameReceived", lambda e: sizes.append(
        len(base64.b64decode(e["response"]["payloadData"])) if e["response"]["opcode"] == 2
        else len(e["response"]["payloadData"].encode())))
    yield page, rec, sizes
    context.close()


@pytest.mark.parametrize("name", NAMES)
def test_every_message_of_a_page_at_2048_positions_is_under_2_mb(visitor, server, name):
    page, rec, sizes = visitor
    sizes.clear()  # from this page's first request on
    rec.console_errors.clear()
    rec.page_errors.clear()
    if page.url == "about:blank":  # the session's first page (the first of NAMES, or the one test run alone)
        page.goto(f"{server}/{name}?" + urlencode({"model": "lm-en", "src": long_text()}))
    else:
        old = page.locator("h1").first.inner_text()
        page.locator('[data-testid="stSidebarNav"]').get_by_text(text(title_key(name), "en"), exact=True).click()
        page.wait_for_function("(old) => { const h = document.querySelector('h1'); return h && h.innerText !== old; }",
                               arg=old)
    wait_idle(page, charts=0 if name in ("overview",) else 1)
    assert_loaded_clean(page, rec, name)  # in a visitor's own window (not presenting), nothing from outside
    if name not in ("masks", "worked_example", "overview"):  # a batch of 64, no text, the diagram
        assert "2027" in " ".join(page.locator('[data-testid="stAlert"]').all_inner_texts())  # the cut is said
    assert sizes and max(sizes) <= MESSAGE, f"largest message {max(sizes, default=0)} bytes"


def title_key(name: str) -> str:
    return next(p.title_key for p in PAGES if p.name == name)


def test_a_txt_file_of_2048_positions_reaches_them_all_and_its_link_holds_its_fingerprint(browser, server):
    """Item 8 of "In front of a class": a .txt file uploaded in the sidebar fills lm-en's 2,048 positions (the page
    says the cut to 2,027 tokens), and the URL holds the text's fingerprint, not the text (the same link opened by
    another session: tests/app/test_long_text.py)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{server}/overview?model=lm-en")
        wait_idle(page)
        box = page.locator('[data-testid="stSidebar"] [data-testid="stExpander"]').filter(
            has_text=text("long.title", "en"))
        box.locator("summary").click()
        uploaded = long_text()
        box.locator('input[type="file"]').set_input_files(
            files=[{"name": "lesson.txt", "mimeType": "text/plain", "buffer": uploaded.encode()}])
        page.wait_for_function("() => [...document.querySelectorAll('[data-testid=\"stAlert\"]')]"
                               ".some(a => a.innerText.includes('2027'))")
        assert page.locator('[data-testid="stException"]').count() == 0
        assert re.search(r"[?&]src\.sha=[0-9a-f]{20}(&|$)", page.url) and "src=" not in page.url, page.url
        expect(sidebar_input(page, text("sidebar.src", "en"))).to_have_value(uploaded.strip())
    finally:
        context.close()
