"""Knocking out heads in a real browser (the decoding page): the sweep draws its grids, the button removes the head
they put first, and the page shows the translation with and without it, the changed tokens in red."""
from __future__ import annotations

from core_model import decoding, interventions
from tests.e2e.conftest import TIMEOUT_MS, chart_selector, wait_idle
from viz_app import loaders
from viz_app.i18n import text

MODEL, SENTENCE = "translate-en-fr", "the small girl does not see the red car"
BLOCKS = ("encoder.self_attn", "decoder.self_attn", "decoder.cross_attn")


def test_removing_the_head_the_sweep_puts_first_changes_the_translation_on_screen(browser, server):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{server}/decoding?model={MODEL}&src={SENTENCE.replace(' ', '+')}")
        wait_idle(page, charts=1)
        page.get_by_text(text("knockout.sweep", "en"), exact=True).click()
        for block in BLOCKS:
            page.locator(f"{chart_selector(f'knockout.sweep.{block}')} .js-plotly-plot").wait_for()
        loaded = loaders.load_model(MODEL)
        ids = loaded.tokenizers["src"].encode(SENTENCE)
        out = loaders.decode(MODEL, SENTENCE)
        drops, _ = interventions.sweep(loaded.model, ids, out.ids, out.finished_by == "eos")
        first = max(((b, layer, head) for b, d in drops.items() for layer in range(d.shape[0])
                     for head in range(d.shape[1])), key=lambda h: drops[h[0]][h[1], h[2]])
        name = text("knockout.head", "en", block=text(f"knockout.block.{first[0]}", "en"), layer=first[1],
                    head=first[2])
        page.get_by_role("button", name=text("knockout.strongest", "en", head=name)).click()
        page.get_by_text(text("knockout.without", "en"), exact=True).wait_for()
        wait_idle(page, charts=1)
        without = decoding.greedy(loaded.model, ids, max_len=64, edits=[interventions.knockout(*first)])
        changed = sum(a != b for a, b in zip(out.ids, without.ids)) + abs(len(without.ids) - len(out.ids))
        assert changed > 0
        # the badges of the two outputs, in page order: (text, colour)
        rows = page.evaluate("""() => [...document.querySelectorAll('[data-testid="stMarkdownContainer"] p')]
            .map(p => [...p.querySelectorAll(':scope > .stMarkdownBadge')]
                      .map(b => [b.innerText, getComputedStyle(b).color]))
            .filter(row => row.length)""")
        rows = [row for row in rows if not any(t.startswith(("0·", "1·")) for t, _ in row)]  # not the step's chips
        shown, knocked = rows[-2:]
        tokenizer = loaded.tokenizers["tgt"]
        assert [t for t, _ in shown] == [tokenizer.id_to_piece(i).lstrip("▁") for i in out.ids]
        assert [t for t, _ in knocked] == [tokenizer.id_to_piece(i).lstrip("▁") for i in without.ids]
        grey = shown[0][1]
        assert {c for _, c in shown} == {grey}
        assert sum(c != grey for _, c in knocked) == changed  # the changed tokens, and only they, in red
        assert text("knockout.changed", "en") in page.locator("body").inner_text()
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        context.close()
