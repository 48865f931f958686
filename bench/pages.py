"""Page rerun times under Streamlit's AppTest: a cold first run and a warm rerun after a head change."""
from __future__ import annotations

import gc
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


# ----- where a warm rerun's time goes ----------------------------------------------------------------

# group → how a profiled function belongs to it: a path fragment of its file, or (file fragment, function name)
GROUPS = {
    "figure construction (viz_app/figures: plain dicts wrapped in go.Figure(_validate=False))": ("viz_app/figures/",),
    "Streamlit serialization (st.plotly_chart: figure.to_dict() in plotly.tools, then plotly.io.to_json)": (
        ("plotly/tools.py", "return_figure_from_figure_or_data"), ("plotly/io/_json.py", "to_json")),
    "our views (viz_app/views)": ("viz_app/views/",),
    "page script compile (Streamlit's script cache: magic AST pass + compile)": (
        ("streamlit/runtime/scriptrunner/script_cache.py", "get_bytecode"),),
    "CSV download buttons (the data is made on click; the button itself)": (
        ("streamlit/elements/widgets/button.py", "download_button"),),
}


def _in(func: tuple, member) -> bool:
    file, _, name = func
    file = file.replace("\\", "/")
    return member in file if isinstance(member, str) else member[0] in file and name == member[1]


def group_profile(stats, total_s: float, groups=GROUPS) -> list[tuple[str, float]]:
    """(group, seconds) of a pstats.Stats: each group's time is the cumulative time of calls entering it from
    outside it (so a group's own nesting is not counted twice); "other" is the rest of `total_s`."""
    raw = stats.stats  # func → (primitive calls, calls, own time, cumulative time, callers)
    out = []
    for title, members in groups.items():
        inside = {f for f in raw if any(_in(f, m) for m in members)}
        spent = sum(edge[3] for f in inside for caller, edge in raw[f][4].items() if caller not in inside)
        out.append((title, spent))
    out.append(("other (Streamlit's script run, widgets, protobuf, session state, …)",
                max(0.0, total_s - sum(s for _, s in out))))
    return out


def _profiled_rerun(path: str, sentence: str, model: str):
    """(AppTest, profile, seconds of each profiled script run, wall seconds) of one warm head change."""
    import cProfile

    from streamlit.runtime.scriptrunner import script_runner

    st.cache_data.clear()
    st.cache_resource.clear()
    loaders.run.clear()
    at = AppTest.from_file(APP, default_timeout=180)
    at.session_state["model"], at.session_state["src"] = model, sentence
    at.switch_page(path)
    at.run()
    at.sidebar.selectbox(key="head").set_value(2).run()  # warm every cache the rerun below reads
    prof, spans = cProfile.Profile(), []
    original = script_runner.ScriptRunner._run_script

    def profiled(self, rerun_data):
        t0 = time.perf_counter()
        prof.enable()
        try:
            return original(self, rerun_data)
        finally:
            prof.disable()
            spans.append(time.perf_counter() - t0)

    script_runner.ScriptRunner._run_script = profiled
    try:
        t0 = time.perf_counter()
        at.sidebar.selectbox(key="head").set_value(1).run()
        wall = time.perf_counter() - t0
    finally:
        script_runner.ScriptRunner._run_script = original
    return at, prof, spans, wall


def post_run_collection(repeats: int = 3) -> tuple[float, float]:
    """Milliseconds of the full collection Streamlit runs after every script run (`runner.postScriptGC`), median of
    `repeats`: as the app leaves it (its modules frozen by viz_app.serving.settle), and with nothing frozen."""
    def timed() -> float:
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            gc.collect(2)
            times.append((time.perf_counter() - t0) * 1000)
        return statistics.median(times)

    frozen = timed()
    gc.unfreeze()
    try:
        unfrozen = timed()
    finally:
        gc.freeze()
    return frozen, unfrozen


def profile_warm(path: str = "app_pages/self_attention.py", sentence: str | None = None,
                 model: str = "translate-en-fr", top: int = 8) -> dict:
    """cProfile of one warm rerun (head → 1 after a first run) inside the script thread: the AppTest's
    ScriptRunner._run_script is wrapped so the profiler sees exactly the page's run.

    Returns total_ms (the profiled run), wall_ms (the AppTest call), groups [(title, ms, share)], the
    `top` functions by own time [(name, own ms, cumulative ms)], and ok (no exception, head is 1)."""
    import pstats

    at, prof, spans, wall = _profiled_rerun(path, sentence or sentence_of(model, 32)[0], model)
    errors = _errors(at)
    stats = pstats.Stats(prof)
    total = sum(spans)
    profiled_total = max((v[3] for f, v in stats.stats.items() if f[2] == "profiled" or f[2] == "_run_script"),
                         default=total)
    base_s = min(total, profiled_total) if profiled_total else total
    groups = [(title, s * 1000, s / base_s if base_s else 0.0) for title, s in group_profile(stats, base_s)]
    own = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:top]
    top_rows = [(f"{f[0].rsplit('site-packages/', 1)[-1].replace(str(ROOT) + '/', '')}:{f[1]}({f[2]})",
                 v[2] * 1000, v[3] * 1000) for f, v in own]
    return dict(page=path, total_ms=base_s * 1000, wall_ms=wall * 1000, groups=groups, top=top_rows,
                gc_ms=post_run_collection(), ok=not errors and at.session_state["head"] == 1, errors=errors[:3], runs=len(spans))
