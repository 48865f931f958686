"""Imported models in a real browser (issues 35 and 36): a server started as a user starts it, `attention-viz --model
FOLDER …` (viz_app/cli.py), on a Llama-style folder with grouped-query attention (4 query heads sharing 2 key/value
heads) and a T5-style one (relative position buckets), both made by transformers (tests/families). The grid shows
every query head of every layer, and the self-attention steps of a query head name the key/value head it shares."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.e2e.conftest import ARTIFACTS, ROOT, TIMEOUT_MS, free_port, screenshot, stop, wait_healthy, wait_idle

pytest.importorskip("transformers")  # the folders are made by transformers itself
MODELS = {"llama-gqa": 4, "t5-gated": 4}  # family: its query heads


@pytest.fixture(scope="module")
def imported_server(hub_folder, tmp_path_factory):
    """`python -m viz_app.cli --model <folder> …` on a free local port, from another folder; stopped by its PID."""
    port = free_port()
    models = [arg for name in MODELS for arg in ("--model", str(hub_folder(name)))]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = open(ARTIFACTS / "imported-server.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "viz_app.cli", *models, "--port", str(port), "--serve",
                             "--server.headless", "true", "--server.fileWatcherType", "none"],
                            cwd=tmp_path_factory.mktemp("elsewhere"), env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_healthy(f"http://127.0.0.1:{port}/_stcore/health", proc, timeout=90)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(proc)
        log.close()


@pytest.fixture
def page(browser, imported_server):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.server, page.errors = imported_server, errors
    yield page
    context.close()


GRID_HEADS = """() => {
    const grid = [...document.querySelectorAll('.js-plotly-plot')].find(p => p.layout && p.layout.meta
        && p.layout.meta.gap !== undefined);
    return grid ? grid.layout.annotations.map(a => a.text) : null;
}"""
TITLES = "() => [...document.querySelectorAll('.js-plotly-plot')].map(p => (p.layout.title || {}).text || '')"


@pytest.mark.parametrize("family", list(MODELS))
def test_the_grid_shows_every_query_head_of_an_imported_model(page, family):
    page.goto(f"{page.server}/explorer?model=tiny-{family}&explorer.average=1&src=The+cat+sat+on+the+mat.")
    wait_idle(page, charts=1)
    page.wait_for_function(GRID_HEADS.replace("return grid ?", "return grid && grid.layout.annotations.length ?"))
    labels = page.evaluate(GRID_HEADS)
    heads = [label for label in labels if label.startswith("head")]
    assert heads == [f"head {h}" for h in range(MODELS[family])], labels
    screenshot(page, f"imported-{family}-grid")
    assert page.locator('[data-testid="stException"]').count() == 0 and page.errors == []


def test_a_query_heads_steps_name_the_key_value_head_it_shares(page):
    page.goto(f"{page.server}/self_attention?model=tiny-llama-gqa&head=3&src=The+cat+sat+on+the+mat.")
    wait_idle(page, charts=1)
    titles = page.evaluate(TITLES)
    shared = [title for title in titles if "K/V head 1, shared by heads 2–3" in title]
    assert len(shared) >= 3, titles  # W_K, K and V of the key/value head that query head 3 reads
    assert page.locator('[data-testid="stException"]').count() == 0 and page.errors == []


def test_a_t5_models_positional_page_draws_its_relative_bias_per_head(page):
    from tests.e2e.conftest import chart_selector

    page.goto(f"{page.server}/positional?model=tiny-t5-gated&src=The+cat+sat+on+the+mat.")
    wait_idle(page, charts=1)
    for side in ("src", "tgt"):  # the encoder's table (both directions) and the decoder's (keys before the query)
        chart = page.locator(chart_selector(f"positional.model.relative.{side}.buckets"))
        chart.scroll_into_view_if_needed()
        assert chart.locator(".js-plotly-plot").count() == 1, side
    assert page.locator('[data-testid="stException"]').count() == 0 and page.errors == []
