"""The explorer's heads' lines (BertViz's head view) in a real browser, projected (1024×768, presenter mode), in English
and Chinese: every line is a weight of the model's own trace; pointing at a token leaves only its lines; clicking a
head's name hides that head's lines; the view is not cut off."""
from __future__ import annotations

import pytest

from tests.e2e.conftest import HEIGHT, TIMEOUT_MS, WIDTH, wait_idle
from viz_app import loaders
from viz_app.i18n import text
from viz_app.views.explorer import LINES_MIN

MODEL, SENTENCE, LAYER = "translate-en-fr", "the small girl does not see the red car", 1
SHOWN = ("svg => [...svg.querySelectorAll('line')].filter(l => getComputedStyle(l).display !== 'none')"
         ".map(l => [+l.dataset.h, +l.dataset.q, +l.dataset.k, +l.dataset.w])")  # the lines on screen


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_heads_lines_are_the_traces_weights_and_a_pointed_token_keeps_only_its_own(browser, server, lang):
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}, locale="en-US")
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{server}/explorer?model={MODEL}&src={SENTENCE.replace(' ', '+')}&layer={LAYER}&present=1"
                  f"&lang={lang}")
        wait_idle(page, charts=1)
        name = text("explorer.heads_lines.title", lang, layer=LAYER)
        frame_element = page.locator(f'iframe[title="{name}"]')
        frame_element.scroll_into_view_if_needed()
        frame = frame_element.content_frame
        frame.locator("line").first.wait_for(state="attached")
        assert frame.locator("#title").inner_text() == name
        assert frame.locator("#hint").inner_text() == text("explorer.heads_lines.hint", lang)

        weights = loaders.run(MODEL, SENTENCE).trace.attn("encoder", LAYER).pattern[0]  # [heads, q, k]
        every = frame.locator("svg").evaluate(SHOWN)
        assert len(every) == int((weights >= LINES_MIN).sum())
        for h, q, k, w in every:
            assert abs(w - weights[h, q, k]) <= 5e-5, (h, q, k, w)

        n = len(loaders.run(MODEL, SENTENCE).src_labels)
        for side, i, at in (("q", 2, 1), ("k", n - 1, 2)):  # a query's lines, then a key's
            frame.locator(f'text[data-side="{side}"][data-i="{i}"]').hover()
            shown = frame.locator("svg").evaluate(SHOWN)
            assert shown and {line[at] for line in shown} == {i}
            assert len(shown) == sum(line[at] == i for line in every)
        page.mouse.move(1, 1)
        frame.locator(".heads span").nth(0).click()  # head 0 hidden, the others all back
        shown = frame.locator("svg").evaluate(SHOWN)
        assert sorted(shown) == sorted(line for line in every if line[0] != 0)

        cut = frame_element.evaluate("f => f.contentDocument.documentElement.scrollHeight - f.clientHeight")
        assert cut <= 1, f"the view is cut off by {cut} px"
    finally:
        context.close()
