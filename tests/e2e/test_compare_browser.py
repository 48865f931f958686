"""Comparing two heads in a browser: pick the second head on the explorer, and its difference chart follows."""
from __future__ import annotations

from tests.e2e.conftest import pick, wait_idle

SECOND = "encoder self-attention, layer 2, head 3"


def test_choosing_two_heads_draws_their_difference(open_page):
    page, rec = open_page("explorer")
    wait_idle(page, charts=1)
    picker = page.locator('[data-testid="stSelectbox"]').filter(has_text="Second head")
    picker.scroll_into_view_if_needed()
    pick(page, picker, SECOND, typed=True)  # the menu lists a few of its 36 heads at a time: typing filters it
    page.wait_for_function("() => new URL(location).searchParams.get('explorer.compare.b') === 'encoder.self_attn:2:3'")
    wait_idle(page, charts=1)
    titles = page.evaluate("() => [...document.querySelectorAll('.js-plotly-plot')]"
                           ".map(p => p.layout && p.layout.title && p.layout.title.text)")
    assert any(SECOND in (title or "") for title in titles)
    assert any("First − second" in (title or "") for title in titles)
    assert rec.page_errors == []
