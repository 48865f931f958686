"""What only a real browser shows: live updates, shareable URLs, glyphs, escaping. (Every page loading clean and
offline: test_classroom_browser's presenter mode, by link in both languages, and test_long_input_browser's walk.)"""
from pathlib import Path

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.e2e.conftest import (TIMEOUT_MS, outside_charts, pick, plot_data, real_console_errors, screenshot,
                                 sidebar_input, type_sentence, wait_idle, x_ticks)


def go_to(page, link: str) -> str:
    """Open another page from the sidebar's navigation (same session); returns its title once drawn."""
    old = page.locator("h1").first.inner_text()
    page.locator('[data-testid="stSidebarNav"]').get_by_text(link, exact=True).click()
    page.wait_for_function("(old) => { const h = document.querySelector('h1'); return h && h.innerText !== old; }",
                           arg=old)
    wait_idle(page, charts=1)
    return page.locator("h1").first.inner_text()


SIDEBAR = '[data-testid="stSidebar"]'


def sidebar_select(page, label: str):
    return page.locator(f'{SIDEBAR} [data-testid="stSelectbox"]').filter(has_text=label)


def choose(page, label: str, option: str) -> None:
    """Pick `option` in the sidebar selectbox `label` with the mouse (conftest.pick), then wait for the rerun."""
    pick(page, sidebar_select(page, label), option)
    page.wait_for_function("([label, option]) => document.querySelector(`input[aria-label='${label}']`).value === option",
                           arg=[label, option])
    wait_idle(page, charts=1)


TICKS = "[...document.querySelectorAll('.js-plotly-plot .xtick text')].map(t => t.textContent)"


def test_sentence_enter_updates_charts(open_page):
    page, _ = open_page("self_attention")
    wait_idle(page, charts=1)
    # Plotly draws each chart after Streamlit's run has ended, so the ticks are awaited, not sampled.
    page.wait_for_function(f"() => {TICKS}.some(t => t.includes('girl'))", timeout=TIMEOUT_MS)  # the example
    type_sentence(page, "the red car")
    # The ticks become the new sentence's tokens (with their positions, "2·car"), none of the old ones.
    page.wait_for_function(f"() => {{ const ticks = {TICKS};"
                           " return ticks.some(t => t.includes('car')) && !ticks.some(t => t.includes('girl')); }",
                           timeout=TIMEOUT_MS)
    wait_idle(page, charts=1)
    after = x_ticks(page)
    assert any("car" in tick for tick in after) and not any("girl" in tick for tick in after), after


def decoding_view(page):
    """The chosen token shown in the metric and the cross-attention heatmap's z (still in plotly's binary form);
    z is None while the chart is not on the page (between a run's start and its redraw)."""
    token = page.locator('[data-testid="stMetricValue"]').first.inner_text()
    cross = plot_data(page, name="every head's row over the source")
    return token, None if cross is None else cross[0]["z"]


def click_and_wait(page, name: str, until, timeout: float = 30):
    """Click a button and poll the view until the chart is drawn and `until(view)` holds: plotly redraws after the
    run ends, and the idle wait may see the page before the click's run has begun."""
    import time

    page.get_by_role("button", name=name, exact=True).click()
    wait_idle(page, charts=1)
    deadline = time.monotonic() + timeout
    view = decoding_view(page)
    while (view[1] is None or not until(view)) and time.monotonic() < deadline:
        page.wait_for_timeout(200)
        view = decoding_view(page)
    assert view[1] is not None, "no cross-attention chart on the decoding page"
    return view


def test_decoding_next_and_previous_step(open_page):
    page, _ = open_page("decoding")
    wait_idle(page, charts=1)
    first = decoding_view(page)
    assert first[1] is not None, "no cross-attention chart on the decoding page"
    second = click_and_wait(page, "next ▶", lambda view: view[0] != first[0] and view[1] != first[1])
    assert second[0] != first[0]
    assert second[1] != first[1], "the cross-attention row did not change with the step"
    assert click_and_wait(page, "◀ previous", lambda view: view == first) == first


def sidebar_values(page) -> dict:
    return {"src": sidebar_input(page, "Sentence (press Enter)").input_value(),
            "layer": sidebar_select(page, "Layer").locator("input").input_value(),
            "head": sidebar_select(page, "Head").locator("input").input_value()}


def grid_cell_centre(page, layer: int, head: int) -> tuple[float, float]:
    """Where on screen the grid (one heatmap, heads tiled as layout.meta says) draws the tile of `layer`, `head`."""
    return tuple(page.evaluate(
        """([layer, head]) => {
            const grid = [...document.querySelectorAll('.js-plotly-plot')].find(p => p.layout && p.layout.meta
                && p.layout.meta.gap !== undefined);
            const m = grid.layout.meta, x = grid._fullLayout.xaxis, y = grid._fullLayout.yaxis;
            const col = head * (m.cols + m.gap) + (m.cols - 1) / 2, row = layer * (m.rows + m.gap) + (m.rows - 1) / 2;
            const box = grid.getBoundingClientRect();
            return [box.left + x._offset + x.d2p(col), box.top + y._offset + y.d2p(row)];
        }""", [layer, head]))


def test_clicking_a_grid_cell_enlarges_that_head(open_page):
    page, _ = open_page("explorer?explorer.average=1")
    wait_idle(page, charts=1)
    page.get_by_text("All heads: layers × heads").first.scroll_into_view_if_needed()
    page.mouse.click(*grid_cell_centre(page, 1, 2))
    page.wait_for_function("() => /[?&]layer=1\\b/.test(location.search) && /[?&]head=2\\b/.test(location.search)",
                           timeout=TIMEOUT_MS)
    wait_idle(page, charts=1)
    assert sidebar_values(page)["layer"] == "1" and sidebar_values(page)["head"] == "2"
    assert "explorer.average=0" in page.url  # the clicked head is shown, not the mean over heads


def test_copied_url_reopens_the_same_view(open_page):
    page, _ = open_page("explorer")
    wait_idle(page, charts=1)
    type_sentence(page, "the red car")
    page.wait_for_function("() => location.search.includes('src=the+red+car')")
    wait_idle(page, charts=1)
    choose(page, "Layer", "1")
    choose(page, "Head", "2")
    page.wait_for_function("() => /[?&]layer=1\\b/.test(location.search) && /[?&]head=2\\b/.test(location.search)")
    shown = sidebar_values(page)
    assert shown == {"src": "the red car", "layer": "1", "head": "2"}

    copy, _ = open_page(page.url.split("/", 3)[3])  # the same path and query, in a new session
    wait_idle(copy, charts=1)
    assert sidebar_values(copy) == shown
    assert urlpath(copy.url) == urlpath(page.url)


def urlpath(url: str) -> str:
    return url.split("?")[0].rsplit("/", 1)[-1]


TOFU_CHECK = """([text, selector]) => {
    // Draw each character in the element's own font stack; a character no font has is drawn as the
    // same .notdef box (tofu) as a private-use code point, so identical pixels mean tofu.
    const font = getComputedStyle(document.querySelector(selector)).fontFamily;
    const draw = (ch) => {
        const c = document.createElement('canvas');
        c.width = 64; c.height = 64;
        const g = c.getContext('2d');
        g.font = `40px ${font}`;
        g.textBaseline = 'top';
        g.fillStyle = '#000';
        g.fillText(ch, 4, 4);
        return c.toDataURL();
    };
    const tofu = draw('\\uE000');
    return {font, sane: draw('\\uE001') === tofu && draw('A') !== tofu,
            tofu: [...text].filter(ch => ch.trim() && draw(ch) === tofu)};
}"""


def test_chinese_ui_and_cjk_emoji_render_real_glyphs(open_page):
    page, rec = open_page("overview")
    page.locator(SIDEBAR).get_by_text("中文", exact=True).click()
    page.wait_for_function("() => document.querySelector('h1')?.innerText.includes('总览')")
    wait_idle(page)
    sentence = "猫 😀 the cat"
    type_sentence(page, sentence, label="输入句子（按回车）")
    page.wait_for_function(
        "(s) => [...document.querySelectorAll('[data-testid=\"stText\"]')].some(e => e.innerText.includes(s))",
        arg=sentence)
    wait_idle(page)
    screenshot(page, "chinese-overview")
    assert "中文" in page.locator(SIDEBAR).inner_text() and "模型" in page.locator(SIDEBAR).inner_text()

    for text, selector in [("总览注意力模型层头", "h1"), (sentence, f"{SIDEBAR} input[type=text]"),
                           (sentence, '[data-testid="stText"]')]:
        result = page.evaluate(TOFU_CHECK, [text, selector])
        assert result["sane"], f"the tofu check cannot tell glyphs apart in {result['font']}"
        assert result["tofu"] == [], (
            f"no font for {result['tofu']} in {selector} ({result['font']}): install fonts-wqy-zenhei "
            "and fonts-noto-color-emoji")
    # A chart page with the CJK tokens; the language and the sentence must survive the page change.
    assert go_to(page, "注意力浏览器") == "注意力浏览器", "the language was lost on changing page"
    assert sidebar_input(page, "输入句子（按回车）").input_value() == sentence
    screenshot(page, "chinese-explorer")
    assert outside_charts(page) == []  # CJK and emoji labels are a whole em wide: their room is too
    assert rec.page_errors == []


XSS = '<script>window.__xss=1</script> <img src=x onerror="window.__xss=2">'


def test_typed_markup_is_shown_as_text_and_runs_nothing(open_page):
    page, rec = open_page("overview")
    type_sentence(page, XSS)
    page.wait_for_function(
        "(s) => [...document.querySelectorAll('[data-testid=\"stText\"]')].some(e => e.innerText.includes(s))",
        arg=XSS)
    wait_idle(page)
    # The tokens go into chart labels too (plotly renders a little HTML of its own): look there as well.
    assert go_to(page, "Attention explorer") == "Attention explorer"
    assert sidebar_input(page, "Sentence (press Enter)").input_value() == XSS, "the sentence was lost on changing page"
    assert page.evaluate("() => window.__xss") is None
    assert page.locator('img[src="x"]').count() == 0
    assert rec.dialogs == []
    assert not [u for u in rec.requests if u.rstrip("/").endswith("/x")]
    assert rec.page_errors == []


def click_for_download(page, button):
    """Click `button` and wait for its download; once more if none came within the timeout (on a loaded machine a CI
    run once saw the click go unanswered: the page drawing its last elements replaced the button as it was clicked,
    and no download or error followed). The file is made on the server when asked (a deferred download): until the
    server answers, the button spins and is disabled, so the wait for a slow answer is the whole timeout, and a second
    click waits for the button to be enabled again (another CI run waited 30 s for an answer, then 60 s to click)."""
    for attempt in range(2):
        try:
            with page.expect_download(timeout=TIMEOUT_MS) as download:
                button.click(timeout=TIMEOUT_MS)
            return download
        except PlaywrightTimeout:
            if attempt:
                raise
            wait_idle(page, charts=1)


def test_csv_button_downloads_the_numbers_of_the_sentence_on_screen(open_page):
    page, rec = open_page("self_attention")
    wait_idle(page, charts=1)
    type_sentence(page, "the red car")
    # the default sentence has "car" too: wait until its "girl" is gone (CI clicked the default's button once)
    page.wait_for_function(f"() => {TICKS}.some(t => t.includes('car')) && !{TICKS}.some(t => t.includes('girl'))",
                           timeout=TIMEOUT_MS)
    wait_idle(page, charts=1)
    download = click_for_download(page, page.get_by_role("button", name="Numbers as CSV").first)
    assert download.value.suggested_filename.endswith(".csv")
    rows = Path(download.value.path()).read_text(encoding="utf-8").splitlines()
    assert len(rows) > 1 and any("car" in row for row in rows) and not any("girl" in row for row in rows)
    assert real_console_errors(rec, "self_attention") == []  # no file URL that a rerun left behind (404)


def test_a_token_in_a_title_is_shown_as_typed_not_as_markup(open_page):
    """lm-en's first query is <s>: "The row of 0·<s>, stage by stage" was drawn with a strike-through (plotly read
    <s> as its markup). The SVG title holds the literal text and no struck-through span; the ticks too."""
    page, rec = open_page("self_attention?model=lm-en&src=the+cat+sees+the+dog")
    wait_idle(page, charts=1)
    svg = page.evaluate("""() => {
        const plot = [...document.querySelectorAll('.js-plotly-plot')]
            .find(p => (p.layout.title.text || '').includes('stage by stage'));
        const title = plot.querySelector('.gtitle');
        return {title: title.textContent, struck: plot.querySelectorAll('[style*="line-through"]').length,
                ticks: [...plot.querySelectorAll('.xaxislayer-above text')].map(t => t.textContent)};
    }""")
    assert svg["title"] == "The row of 0·<s>, stage by stage" and svg["struck"] == 0, svg
    assert "0·<s>" in svg["ticks"], svg
    assert rec.page_errors == []
