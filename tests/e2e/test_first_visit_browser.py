"""A fresh server's first visit in a real browser: its first run imports torch, loads the model and traces the
sentence before any page can draw (7–15 s on 2 cores). Within a second of the page's load the visitor reads what is
being prepared (viz_app/first_visit.py); once the page is drawn, the notice is gone."""
from __future__ import annotations

import time

from bench import browser as br
from tests.e2e.conftest import TIMEOUT_MS, wait_idle
from viz_app.i18n import text

SIGN = 1.0  # seconds from the page's load to something a visitor can read


def test_a_fresh_servers_first_page_says_what_it_prepares_within_a_second(browser):
    with br.server() as (base, _):
        context = browser.new_context(viewport={"width": 1400, "height": 900}, locale="en-US")
        try:
            page = context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            page.goto(base + "/", wait_until="load")
            loaded = time.monotonic()
            page.wait_for_selector('[data-testid="stAlert"], h1', timeout=TIMEOUT_MS)
            seen = time.monotonic() - loaded
            notice = page.locator('[data-testid="stAlert"]').filter(has_text=text("app.warming", "en")[:40])
            assert seen <= SIGN and (notice.count() == 1 or page.locator("h1").count() == 1), seen
            wait_idle(page, charts=1)
            assert notice.count() == 0  # the page is drawn: the notice has gone
        finally:
            context.close()
