"""The classroom in a real browser: presenter mode on a 1024×768 projector in English and Chinese, the arrow
keys, predict-then-reveal played on two pages, and the guided lesson walked from its first step to its last.

Each presenter page is saved as a screenshot (artifacts/e2e/presenter/), the CI run's artifacts.
The answers a student is asked for are computed here from the model (core_model), never read from the page.
"""
from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest

from core_model import load
from core_model.decoding import greedy
from core_model.trace import run_with_trace
from tests.e2e.chinese import english_leaks
from tests.e2e.conftest import (ARTIFACTS, CHART, HEIGHT, PAGES, TIMEOUT_MS, WIDTH, assert_loaded_clean, recorded,
                                 wait_idle)
from tests.e2e.layout import layout_faults
from viz_app.figures.heatmap import EVERY_LABEL
from viz_app.figures.present import MAX_HEIGHT
from viz_app.lesson import STEPS, page_of
from viz_app.loaders import DEFAULT_MODEL, MODELS_DIR
from viz_app.sidebar import EXAMPLES
from viz_app.text import position_labels, show_piece



def luminance(rgb) -> float:
    """WCAG relative luminance of an sRGB colour (0–255 channels)."""
    c = np.asarray(rgb, dtype=float) / 255
    c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2])


def contrast(a, b) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def rgb(css: str) -> tuple[int, ...]:
    return tuple(int(v) for v in re.findall(r"\d+", css)[:3])


# The first chart's box; every chart's labels: plotly's tick labels (font size and colour) and the text of a
# graphviz diagram, drawn scaled to its column (its height on screen, with its colour).
LAYOUT = """(selector) => {
    const chart = document.querySelector(selector), first = chart.getBoundingClientRect();
    const ticks = [...document.querySelectorAll('.js-plotly-plot .xtick text, .js-plotly-plot .ytick text')]
        .map(t => getComputedStyle(t)).map(s => [parseFloat(s.fontSize), s.fill])
        .concat([...document.querySelectorAll('[data-testid="stGraphVizChart"] svg text')]
        .map(t => [t.getBoundingClientRect().height, getComputedStyle(t).fill]));
    const sidebar = document.querySelector('[data-testid="stSidebar"]');
    return {first: [first.top, first.bottom, first.left, first.right], height: chart.layout?.height ?? 0, ticks,
            background: getComputedStyle(document.querySelector('.stApp')).backgroundColor,
            sidebar: sidebar ? sidebar.getBoundingClientRect().right : null};
}"""


@pytest.fixture(scope="module")
def tabs(browser, server):
    """One 1024×768 tab per language, kept for the module, with what it does recorded (conftest.recorded): each page
    opened in it is a new session, but the app's scripts come from the tab's cache (a fresh context per page loaded
    them twenty times)."""
    contexts = {lang: browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}) for lang in ("en", "zh")}
    yield {lang: recorded(context.new_page()) for lang, context in contexts.items()}
    for context in contexts.values():
        context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", PAGES)
def test_presenter_mode_fits_a_projector(tabs, server, allowed, name, lang):
    page, rec = tabs[lang]
    rec.console_errors.clear()
    rec.page_errors.clear()
    page.goto(f"{server}/{name}?present=1&lang={lang}")  # /overview too: it once opened on "Page not found"
    page.wait_for_selector(CHART, timeout=TIMEOUT_MS)  # a fragment (the positional lab) draws after the run
    wait_idle(page)
    assert_loaded_clean(page, rec, name)  # the first page fetched the app's scripts: none came from outside
    folder = ARTIFACTS / "presenter"
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{lang}-{name}.png"))
    shown = page.evaluate(LAYOUT, CHART)
    top, bottom, left, right = shown["first"]
    # a heatmap made taller than MAX_HEIGHT to label each of its rows (present.rows_height) runs on below the screen,
    # but starts where a chart of MAX_HEIGHT would fit
    fits = bottom <= HEIGHT or shown["height"] > MAX_HEIGHT and top + MAX_HEIGHT <= HEIGHT
    assert 0 <= top and fits and 0 <= left and right <= WIDTH, f"first chart at {shown['first']}"
    assert shown["sidebar"] is not None and shown["sidebar"] <= 0  # collapsed: off the screen's left edge
    assert shown["ticks"], "no labels drawn"
    assert min(size for size, _ in shown["ticks"]) >= 18
    background = rgb(shown["background"])
    assert min(contrast(rgb(fill), background) for _, fill in shown["ticks"]) >= 4.5
    # no heading under a chart, every token of a short axis labelled, no legend to scroll, no widget label cut short
    assert layout_faults(page, EVERY_LABEL) == {"covered": [], "unlabelled": [], "scrolled": [], "cut": []}
    if lang == "zh":
        assert english_leaks(page, allowed) == []
        assert re.search(r"[\u4e00-\u9fff]", page.locator("h1").first.inner_text())


def heading(page) -> str:
    """The stepper's line: the shown section's name and "Stage i of n"."""
    return page.locator('[data-testid="stMarkdownContainer"] p').filter(has_text=re.compile(r"Stage \d+ of")).inner_text()


def test_arrow_keys_step_through_stages_and_decoding_steps(projector):
    # Streamlit's shortcuts (hotkeys-js) let the first key after a load through unless the page was clicked or a
    # key pressed before: a presenter clicks into the page first, as here.
    page = projector("self_attention?present=1")
    first = heading(page)
    page.locator("h1").click()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => new URL(location).searchParams.get('self_attention.stage') === '1'")
    wait_idle(page)
    assert "Stage 1 of 8" in first and "Stage 2 of 8" in heading(page) and heading(page) != first
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => new URL(location).searchParams.get('self_attention.stage') === '0'")

    page = projector("decoding?present=1")
    page.locator("h1").click()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => new URL(location).searchParams.get('decoding.step') === '1'")


@pytest.fixture(scope="module")
def model():
    return load(MODELS_DIR / DEFAULT_MODEL)


def received(page) -> list[bytes]:
    """Every websocket frame the page receives from now on (what the server sent it)."""
    frames = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(
        f if isinstance(f, bytes) else f.encode())))
    return frames


def pills(page):
    return page.locator('[data-testid="stButtonGroup"] button')


def test_predict_then_reveal_hides_the_answer_until_the_guess(browser, server, model):
    """Self-attention: which key does query 0 weigh most? The answer is neither drawn nor sent before the click."""
    src = EXAMPLES[DEFAULT_MODEL]
    ids = model.tokenizers["src"].encode(src)
    _, trace = run_with_trace(model.model, ids, [model.config.bos_id])
    weights = trace.attn("encoder", 0, "self_attn").pattern[0, 0, 0]
    labels = position_labels(model.tokenizers["src"].display_pieces(ids))
    answer = labels[int(np.argmax(weights))]
    wrong = next(label for label in labels if label != answer)

    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    frames = received(page)
    page.goto(f"{server}/self_attention?predict=1")
    wait_idle(page, charts=1)  # the stages before the scores are drawn
    assert page.get_by_text("Which key will the query").count() == 1
    # Streamlit names each element by its key in what it sends: the weights' charts were not sent at all
    answering = (b"chart.self_attention.row", b"chart.self_attention.pattern", b"chart.self_attention.scores",
                 b"chart.self_attention.neuron")
    assert not any(key in f for key in answering for f in frames)
    assert page.get_by_text("the model's answer").count() == 0 and page.get_by_text("Right:").count() == 0
    pills(page).filter(has_text=re.compile(f"^{re.escape(wrong)}$")).click()
    page.get_by_text("Not this time").wait_for()
    wait_idle(page)
    verdict = page.get_by_text("Not this time").inner_text()
    assert f"you picked {wrong}" in verdict and f"answer is {answer} ({weights.max():.3f})" in verdict
    assert page.get_by_text("Score this session: 0 of 1").count() == 1
    assert all(any(key in f for f in frames) for key in answering)  # now sent, and drawn:
    assert page.locator(".js-plotly-plot").filter(has_text=f"The row of {labels[0]}, stage by stage").count() == 1
    context.close()


def test_predict_then_reveal_scores_the_next_token(browser, server, model):
    """Decoding: which token comes next at step 0? Greedy's choice, computed here, is the right pill."""
    src = EXAMPLES[DEFAULT_MODEL]
    decoded = greedy(model.model, model.tokenizers["src"].encode(src))
    tokenizer = model.tokenizers["tgt"]
    first = show_piece(tokenizer.display_pieces([decoded.steps[0].chosen])[0])

    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    frames = received(page)
    page.goto(f"{server}/decoding?predict=1")
    wait_idle(page)
    assert page.locator(".js-plotly-plot").count() == 0  # every chart would show the chosen token
    assert not any(b"chart.decoding.top" in f for f in frames)
    pills(page).filter(has_text=re.compile(f"^{re.escape(first)}$")).click()
    page.get_by_text("Right:").wait_for()
    wait_idle(page, charts=1)
    assert page.get_by_text("Score this session: 1 of 1").count() == 1
    assert any(b"chart.decoding.top" in f for f in frames)
    context.close()


def lesson_step(page) -> int:
    return int(parse_qs(urlsplit(page.url).query)["lesson"][0])


def test_the_guided_lesson_walks_from_first_step_to_last_and_a_link_reopens_a_step(projector, browser, server):
    page = projector("overview?lesson=1", charts=False)
    link_to_4 = None
    for step in range(1, len(STEPS) + 1):  # each step's panel, not its page's charts, is waited for
        panel = page.locator(".st-key-lesson-panel")
        panel.get_by_text(f"step {step} of {len(STEPS)}").wait_for()
        assert urlsplit(page.url).path.rstrip("/").endswith(page_of(STEPS[step - 1])) and lesson_step(page) == step
        assert panel.get_by_text("Question:").count() == 1
        if step == 4:
            link_to_4 = page.url
        if step < len(STEPS):
            panel.get_by_role("button", name="Next ▶").click()
            page.wait_for_url(re.compile(f"lesson={step + 1}"))
    assert page.locator(".st-key-lesson-panel").get_by_role("button", name="Finish the lesson").count() == 1

    fresh = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
    again = fresh.new_page()
    again.set_default_timeout(TIMEOUT_MS)
    again.goto(link_to_4)
    wait_idle(again)
    assert again.locator(".st-key-lesson-panel").get_by_text(f"step 4 of {len(STEPS)}").count() == 1
    assert urlsplit(again.url).path.rstrip("/").endswith(page_of(STEPS[3]))
    fresh.close()
