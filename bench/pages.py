"""Page rerun times under Streamlit's AppTest: a cold first run and a warm rerun after a head change."""
from __future__ import annotations

import statistics
import time

import streamlit as st
from streamlit.testing.v1 import AppTest

from viz_app import loaders
from viz_app.registry import PAGES

from .core import ROOT, load

APP = str(ROOT / "app.py")
WORDS = {"translate-en-fr": "the small girl does not see the red car and the old man sees the big dog".split(),
         "lm-en": "the old man sees the small girl and the red car".split()}


def sentence_of(name: str, n: int) -> tuple[str, int]:
    """Words the model knows, added while the source stays within n tokens; (text, its token count)."""
    loaded = load(name)
    tok = loaded.tokenizers["src" if loaded.config.has_encoder else "tgt"]
    words, out, i = WORDS[name], [], 0
    while len(tok.encode(" ".join(out))) < n and i < 10 * n:
        trial = out + [words[i % len(words)]]
        if len(tok.encode(" ".join(trial))) <= n:
            out = trial
        elif len(tok.encode(" ".join(out + ["the"]))) <= n:
            out = out + ["the"]
        i += 1
    text = " ".join(out)
    return text, len(tok.encode(text))


def page_paths() -> list[tuple[str, str]]:
    """(file, url path) of every page, from the page registry."""
    return [(p.path, p.name) for p in PAGES]


def _errors(at: AppTest) -> list[str]:
    return [str(e.value)[:200] for e in at.exception]


def bench_page(path: str, sentence: str, model: str = "translate-en-fr", repeats: int = 3) -> dict:
    """Median cold run (caches cleared, fresh AppTest) and warm rerun (head → 1) of one page."""
    cold, warm, errors, head_ok, charts = [], [], [], True, 0
    for _ in range(repeats):
        st.cache_data.clear()
        st.cache_resource.clear()
        loaders.run.clear()  # the traced runs' own shared cache
        at = AppTest.from_file(APP, default_timeout=180)
        at.session_state["model"] = model
        at.session_state["src"] = sentence
        at.switch_page(path)
        t0 = time.perf_counter()
        at.run()
        cold.append((time.perf_counter() - t0) * 1000)
        errors += _errors(at)
        head = at.sidebar.selectbox(key="head")
        t0 = time.perf_counter()
        head.set_value(1).run()
        warm.append((time.perf_counter() - t0) * 1000)
        errors += _errors(at)
        head_ok &= at.session_state["head"] == 1 and at.sidebar.selectbox(key="head").value == 1
        charts = len(at.get("plotly_chart"))
    return dict(page=path, cold_ms=statistics.median(cold), warm_ms=statistics.median(warm),
                ok=not errors and head_ok, errors=errors[:3], charts=charts, repeats=repeats)


def bench_pages(n_tokens: int = 32, repeats: int = 3, pages=None) -> tuple[str, int, list[dict]]:
    """Every page of app.py at an n-token sentence of the default model."""
    sentence, n = sentence_of("translate-en-fr", n_tokens)
    paths = pages or [p for p, _ in page_paths()]
    return sentence, n, [bench_page(p, sentence, repeats=repeats) for p in paths]
