"""Layout that only a browser shows: the positional page's four encodings wide enough to read on a laptop and on a
projector, their tick labels apart, and the explorer's 72 MiniLM heads named without their names running together.

(Every page's headings, labelled axes, legends and widget labels in presenter mode are checked where each page is
already open: test_classroom_browser.test_presenter_mode_fits_a_projector.)
"""
from __future__ import annotations

import pytest

from core_model.importers import bert
from tests.e2e.conftest import CHART, HEIGHT, TIMEOUT_MS, WIDTH, wait_idle
from tests.e2e.layout import PLOT_AREAS, apart, overlapping_ticks
from viz_app.loaders import ENCODING_MODELS

WIDE = 200  # px: a heatmap's plot area at least this wide (four columns left ~20 px at 1440 px, 1 px presenting)
KINDS = list(ENCODING_MODELS)


def opened(browser, server, path: str, size: tuple[int, int]):
    """A page at `path` in a new context of this viewport, idle, with its charts drawn."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(f"{server}/{path}")
    page.wait_for_selector(CHART, timeout=TIMEOUT_MS)
    wait_idle(page)
    return context, page


@pytest.mark.parametrize("size, query", [((1440, 900), ""), ((WIDTH, HEIGHT), "&present=1")],
                         ids=["laptop", "projector"])
def test_the_four_encodings_are_wide_and_their_labels_apart(browser, server, size, query):
    context, page = opened(browser, server, f"positional?positional.encodings=1{query}", size)
    keys = [f"st-key-chart-encodings-{kind}-{part}" for part in ("signal", "alone", "real") for kind in KINDS]
    page.wait_for_function("(n) => document.querySelectorAll('[class*=\"st-key-chart-encodings-\"] .nsewdrag')"
                           ".length >= n", arg=len(keys))
    areas = page.evaluate(PLOT_AREAS)
    narrow = {key: areas.get(key) for key in keys if (areas.get(key) or [0])[0] < WIDE}
    assert not narrow, f"plot areas under {WIDE} px wide: {narrow}"
    assert overlapping_ticks(page, "st-key-chart-encodings-") == []
    context.close()


def test_the_minilm_grid_names_its_72_heads_apart_on_a_projector(browser, server):
    context, page = opened(browser, server, f"explorer?present=1&model={bert.MINILM}", (WIDTH, HEIGHT))
    names = page.evaluate("""() => [...document.querySelectorAll('.st-key-chart-explorer-grid .annotation-text')]
        .filter(t => /^head \\d+$/.test(t.textContent)).map(t => { const r = t.getBoundingClientRect();
            return [t.textContent, [[r.left, r.top], [r.right, r.top], [r.right, r.bottom], [r.left, r.bottom]]]; })""")
    assert len(names) == 12  # MiniLM's heads, each named once above its column
    touching = [(a[0], b[0]) for i, a in enumerate(names) for b in names[i + 1:] if not apart(a[1], b[1])]
    assert touching == []
    context.close()
