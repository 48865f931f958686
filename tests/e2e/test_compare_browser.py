"""Comparing in a browser: pick the second head on the explorer, and its difference chart follows; or compare one
head on the sidebar's sentence and a second one typed here, aligned by token."""
from __future__ import annotations

from tests.e2e.conftest import pick, plot_data, wait_idle

SECOND = "encoder self-attention, layer 2, head 3"
BUS = "the small girl does not see the red bus"  # the sidebar's example with its last word, one token, changed


def show_comparison(page) -> None:
    """Switch the comparison on, as a reader does: the explorer opens without it."""
    assert page.locator('[data-testid="stSelectbox"]').filter(has_text="Second head").count() == 0
    switch = page.get_by_text("Show the comparison", exact=True)
    switch.scroll_into_view_if_needed()
    switch.click()
    page.wait_for_function("() => new URL(location).searchParams.get('explorer.compare') === '1'")
    wait_idle(page, charts=1)


def test_choosing_two_heads_draws_their_difference(open_page):
    page, rec = open_page("explorer")
    wait_idle(page, charts=1)
    show_comparison(page)
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


def test_typing_a_second_sentence_draws_the_difference_over_the_shared_tokens(open_page):
    page, rec = open_page("explorer")
    wait_idle(page, charts=1)
    show_comparison(page)
    page.locator('[data-testid="stRadio"]').get_by_text("two sentences", exact=True).click()
    wait_idle(page, charts=1)
    box = page.get_by_label("Second sentence (press Enter)", exact=True)
    box.fill(BUS)
    box.press("Enter")
    page.wait_for_function("(text) => new URL(location).searchParams.get('explorer.compare.text') === text", arg=BUS)
    wait_idle(page, charts=1)
    rows = plot_data(page, name="First − second")[0]["y"]
    assert rows == ["0·the", "1·small", "2·girl", "3·does", "4·not", "5·see", "6·the", "7·red"]  # car / bus left out
    assert "8·bus" in page.locator('[data-testid="stCaptionContainer"]').filter(has_text="Left out").inner_text()
    assert rec.page_errors == []
