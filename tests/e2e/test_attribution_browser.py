"""Attribution in a browser: choose an output token of the translator, and the four methods' attributions for it
are drawn over the source tokens."""
from __future__ import annotations

from core_model import decoding, load
from tests.e2e.conftest import pick, plot_data, screenshot, wait_idle
from viz_app.loaders import DEFAULT_MODEL, model_folder
from viz_app.sidebar import EXAMPLES
from viz_app.text import piece, token_labels

METHODS = ["Attention rollout", "Attention flow", "Gradient × input", "Integrated gradients"]


def chart_title(page) -> str:
    return page.evaluate("() => [...document.querySelectorAll('.js-plotly-plot')].map(p => p.layout.title.text)"
                         ".find(t => t && t.includes('What the prediction'))") or ""


def test_choosing_an_output_token_shows_its_attributions(open_page):
    loaded = load(model_folder(DEFAULT_MODEL))
    src = loaded.tokenizers["src"].encode(EXAMPLES[DEFAULT_MODEL])
    tgt = [piece(loaded.tokenizers["tgt"], i) for i in (loaded.config.bos_id, *decoding.greedy(loaded.model, src).ids)]
    page, rec = open_page("attribution")
    wait_idle(page, charts=1)
    assert f"«{tgt[1]}»" in chart_title(page)  # the first output, by default
    picker = page.locator('[data-testid="stSelectbox"]').filter(has_text="Output to explain")
    pick(page, picker, f"2: {tgt[2]} → {tgt[3]}")
    page.wait_for_function("() => new URL(location).searchParams.get('attribution.output') === '2'")
    wait_idle(page, charts=1)
    assert f"«{tgt[3]}»" in chart_title(page)
    data = plot_data(page, name="What the prediction")
    assert data[0]["y"] == METHODS  # the four methods, one row each
    assert data[0]["x"] == list(token_labels(loaded.tokenizers["src"], src))  # over the source tokens
    screenshot(page, "attribution")
    assert rec.page_errors == []
