"""A 2,048-position text of lm-en in a real browser: every page draws, and no websocket message is over 2 MB."""
import base64
from urllib.parse import urlencode

import pytest

from tests.app.test_long_input import WORDS
from tests.e2e.conftest import TIMEOUT_MS, wait_idle
from viz_app.registry import NAMES

MESSAGE = 2_000_000
TOKENS = 2100  # words enough to fill lm-en's 2,048 positions (the app cuts the text to 2,027 tokens and says so)


def long_text() -> str:
    from viz_app import loaders

    tokenizer, text = loaders.load_model("lm-en").tokenizers["tgt"], WORDS
    while len(tokenizer.encode(text)) < TOKENS:
        text += WORDS
    return text


@pytest.fixture(scope="module")
def text():
    return long_text()


@pytest.mark.parametrize("name", NAMES)
def test_every_message_of_a_page_at_2048_positions_is_under_2_mb(browser, server, text, name):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        sizes = []  # every frame the server sends, from the page's first request on
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.on("Network.webSocketFrameReceived", lambda e: sizes.append(
            len(base64.b64decode(e["response"]["payloadData"])) if e["response"]["opcode"] == 2
            else len(e["response"]["payloadData"].encode())))
        page.goto(f"{server}/{name}?" + urlencode({"model": "lm-en", "src": text}))
        wait_idle(page, charts=0 if name in ("overview",) else 1)
        assert page.locator('[data-testid="stException"]').count() == 0
        if name not in ("masks", "worked_example", "overview"):  # a batch of 64, no text, the diagram
            assert "2027" in " ".join(page.locator('[data-testid="stAlert"]').all_inner_texts())  # the cut is said
        assert sizes and max(sizes) <= MESSAGE, f"largest message {max(sizes, default=0)} bytes"
    finally:
        context.close()
