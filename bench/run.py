"""Run every benchmark and write BENCHMARKS.md: `.venv/bin/python -m bench.run [--quick] [--load-sessions N]`.

The full run takes about 40 minutes on 2 cores: the model tables, the pages under AppTest and their profile,
a server driven by chromium (bytes, first chart, fragment reruns, memory), BertViz side by side when it is
installed, the load test (30 sessions on one server), and, half of the time, the models at their real sizes
(table 10, bench/real_size.py; `--only-real-size` runs it alone into an existing BENCHMARKS.md).

Timings are medians of repeated runs; ratios compare numbers measured in the same run. Every
row also records the check of the result it timed (equal outputs, identical ids, no exception).
"""
from __future__ import annotations

import datetime
import logging
import os
import platform
import re
import sys
import tempfile
import traceback

import numpy as np
import plotly
import streamlit
import torch

from core_model import cli

from . import core
from .core import ROOT
from .markdown import table, verdict, yes

THREADS = 1  # torch intra-op threads for the model benchmarks: steadier on a shared 2-core machine


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def card_training_time(name: str = "translate-en-fr") -> tuple[str, str, str]:
    """(seconds, date, the card's line) from the model card's 'NNN s measured' line."""
    text = (ROOT / "assets" / "models" / name / "card.md").read_text(encoding="utf-8")
    for line in text.splitlines():
        m = re.search(r"(\d[\d,]*) s measured", line)
        if m:
            date = re.search(r"\d{4}-\d{2}-\d{2}", line)
            return m.group(1), date.group(0) if date else "no date", line.strip()
    return "", "", "no 'NNN s measured' line in the card"


def header_lines(args) -> list[str]:
    return [
        "# Benchmarks", "",
        f"Written by `.venv/bin/python -m bench.run{' --quick' if args.quick else ''}"
        f"{f' --load-sessions {args.load_sessions}' if args.load_sessions is not None else ''}` on "
        f"{datetime.datetime.now().strftime('%Y-%m-%d %H:%M')} ({'quick smoke run: tiny repeats' if args.quick else 'full run'}).", "",
        f"- machine: {os.cpu_count()} cores (os.cpu_count), CPU: {cpu_model()}",
        f"- python {platform.python_version()}, torch {torch.__version__}, numpy {np.__version__}, "
        f"streamlit {streamlit.__version__}, plotly {plotly.__version__}",
        f"- model benchmarks (tables 1–2c) run with torch.set_num_threads({THREADS}); "
        "the AppTest and server runs (tables 3–6, 8 and 9) use torch's default threads.",
        "- the machine is shared (other jobs run beside it): numbers are medians of repeats, ratios come "
        "from the same run, and only the checks are pass/fail.", ""]


def section_forward(rows) -> list[str]:
    out = ["## 1. Traced forward pass", "",
           "`run_with_trace(model, src, tgt)` against `model(src, tgt)` under `torch.no_grad()`. The translator "
           "(max_len 64) reads N source tokens and its own greedy translation as decoder input; lm-en "
           "(decoder-only, ALiBi, max_len 512) reads `<s>` + N − 1 prompt tokens. A trace keeps each value as the tensor "
           "and makes it a read-only numpy view on its first read; the last time column also reads every value once. "
           "Medians of rounds of 5 calls, the three kinds interleaved, for at least 5 s per row (one burst of a "
           "neighbour's load could otherwise cover a short row). Check: `torch.equal` of the two outputs.", ""]
    out += table(["model", "tokens N", "src / tgt len", "traced ms", "untraced ms", "traced / untraced",
                  "trace size", "traced, every value read ms", "check: outputs equal"],
                 [[r["model"], r["tokens"], f"{r['src_len']} / {r['tgt_len']}", f"{r['traced_ms']:.2f}",
                   f"{r['plain_ms']:.2f}", f"{r['ratio']:.2f}×", f"{r['trace_values']} values, {r['trace_mb']:.1f} MiB",
                   f"{r['read_ms']:.2f}", yes(r["equal"])] for r in rows])
    return out


def section_decoding(r) -> list[str]:
    out = ["## 2. Greedy decoding: KV cache vs full recompute", "",
           f"`core_model.decoding.greedy(model, prompt, max_len={r['steps']})` with `use_cache=True` and `False`, "
           f"on {r['model']}: the shipped lm-en weights with the config's eos_id moved to an id the model never "
           "picks, so it generates every step (the shipped LM ends most prompts after a few tokens). "
           f"Prompt \"{r['prompt']}\" ({r['prompt_tokens']} tokens). Each step records its attention rows, as the app does.", ""]
    out += table(["steps", "cached ms/step", "recompute ms/step", "recompute / cached", "check: identical ids"],
                 [[r["steps"], f"{r['cached_ms']:.2f}", f"{r['full_ms']:.2f}", f"{r['speedup']:.2f}×",
                   yes(r["same_ids"] and r["steps"] == len(r["ids"]))]])
    return out


def section_bert(rows) -> list[str]:
    flt = rows[0]["filter"] if rows else "*.pattern"
    out = ["## 2b. Imported all-MiniLM-L6-v2: our traced forward vs transformers", "",
           "The same ids ([CLS] + a sentence repeated + [SEP]) through `run_with_trace` on the imported weights, "
           f"once recording every value and once with `names=\"{flt}\"` (only what a page drawing attention reads) "
           "and `stop_after` the last layer's pattern (nothing after it is needed: that layer's output projection "
           "and FFN are not computed, and there is no hidden state to return), "
           "untraced (`model(ids)`, `torch.no_grad()`: what the arithmetic alone takes), "
           "and through transformers' `BertModel` (eager attention, `output_attentions=True`, `torch.no_grad()`), "
           "the four interleaved in one run. Trace MiB: what the trace keeps alive after the forward. Check: every "
           "attention weight of both our runs and the full run's last hidden state agree with transformers within "
           "1e-5, the filtered trace holds every layer's pattern, the full trace's bit for bit, and the untraced "
           "output is the traced one's bit for bit. Work bound: the "
           "multiply-adds the filtered forward cannot do without (every layer but the last whole, and the last one's "
           "Q and K maps and QKᵀ) over those of transformers' whole forward, counted from the shapes "
           "(`bench.bert.work_bound`). Page faults: minor page faults per call while timing (`getrusage`), the fresh "
           "memory each forward touches; how many there are depends on what the allocator kept from the calls "
           "before, so they explain a row that moves between runs.", ""]
    out += table(["tokens", "transformers ms", "ours untraced: ms", "ours, every value: ms", "ratio", "values, MiB",
                  f"ours, `{flt}`: ms", "ratio", "work bound", "values, MiB",
                  f"page faults: transformers / ours / `{flt}`", "largest difference", "check: agree"],
                 [[r["tokens"], f"{r['transformers_ms']:.2f}", f"{r['plain_ms']:.2f}", f"{r['ours_ms']:.2f}",
                   f"{r['ratio']:.2f}×", f"{r['values']}, {r['trace_mb']:.1f}", f"{r['filtered_ms']:.2f}",
                   f"{r['filtered_ratio']:.2f}×", f"{r['work_bound']:.3f}×",
                   f"{r['filtered_values']}, {r['filtered_trace_mb']:.1f}",
                   f"{r['transformers_faults']:,.0f} / {r['ours_faults']:,.0f} / {r['filtered_faults']:,.0f}",
                   f"{r['max_error']:.1e}",
                   yes(r["agree"] and r["filtered_same_patterns"])] for r in rows])
    return out


def section_gpt2(rows) -> list[str]:
    millions = rows[0]["parameters"] / 1e6 if rows else 124.4
    out = ["## 2d. A GPT-2-shaped model: our traced forward vs transformers", "",
           f"A GPT-2 folder of {millions:.1f}M parameters with random weights (GPT2Config's defaults: 12 layers, 12 "
           "heads, 768 wide, a vocabulary of 50,257), written by transformers' `save_pretrained` with a byte-level "
           "BPE tokenizer.json made by `bench.gpt2.gpt2_folder`, imported by `core_model.importers.gpt2`. The same ids "
           "(<|endoftext|> + a sentence repeated) through `run_with_trace` (every value recorded) and through "
           "transformers' `GPT2LMHeadModel` (eager attention, `output_attentions=True`, `torch.no_grad()`), "
           "interleaved in one run. Check: the logits agree within 1e-4 of their largest size and every attention "
           "weight within 1e-4.", ""]
    out += table(["tokens", "transformers ms", "ours ms", "ratio", "values, MiB", "largest difference", "check"],
                 [[r["tokens"], f"{r['transformers_ms']:.1f}", f"{r['ours_ms']:.1f}", f"{r['ratio']:.2f}×",
                   f"{r['values']}, {r['trace_mb']:.1f}", f"{r['max_error']:.1e}", yes(r["agree"])] for r in rows])
    return out


def section_long(loss, trace) -> list[str]:
    out = ["## 2c. lm-en past 512 positions", "",
           "lm-en was trained with max_len 512 on single sentences and reads up to 2,048 positions with ALiBi "
           "(`max_positions`). Loss: `bench.core.long_context_loss()`, held-out test sentences (seed 0's split) "
           "joined with `</s>` into 2,048-token texts (4 shuffles); each position's next-token loss, averaged by "
           "bucket. Control: the same predictions with the context restarted every 512 tokens (each window read "
           "alone). Check: a finite loss in every bucket.", ""]
    if loss:
        out += table(["input positions", "predictions", "loss", "perplexity", "control: 512-token windows", "check"],
                     [[r["positions"], r["predictions"], f"{r['loss']:.3f}", f"{r['perplexity']:.2f}",
                       f"{r['loss_window']:.3f}", yes(r["loss"] == r["loss"] and r["loss"] < 20)] for r in loss])
    else:
        out += ["not measured (see the failures below)", ""]
    out += ["Traced forward of 2,048 tokens (`bench.core.bench_long_trace()`, median of 3, interleaved): every "
            "value against only the attention patterns. Check: the last layer's pattern rows sum to 1 within 1e-5.", ""]
    if trace:
        out += table(["model", "tokens", "recorded", "ms", "values", "trace MiB", "check"],
                     [[r["model"], r["tokens"], r["mode"], f"{r['ms']:.0f}", r["values"], f"{r['trace_mb']:.0f}",
                       yes(r["row_sum_error"] < 1e-5)] for r in trace])
    else:
        out += ["not measured (see the failures below)", ""]
    return out


def section_sweep(rows) -> list[str]:
    out = ["## 2e. Which heads matter: the knock-out sweep", "",
           "The decoding page's sweep (`core_model.interventions.sweep`): each head of each attention block removed "
           "alone (its output z zeroed) and the model's greedy output scored again in one teacher-forced pass, on N "
           "source tokens (the translator) or an N-token prompt (lm-en). Against one traced forward pass of the same "
           "input and output (`run_with_trace`), median of 5. Checks: every head tried, the same drops in every repeat.",
           "", "| model | tokens N | output tokens | heads | sweep s | one traced forward ms | sweep / forward | "
               "check: every head, same drops |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['model']} | {r['tokens']} | {r['output']} | {r['heads']} | {r['sweep_s']:.3f} | "
                   f"{r['forward_ms']:.2f} | {r['ratio']:.1f}× | {yes(r['done'] and r['same'])} |")
    return out + [""]


def section_pages(sentence, n, rows) -> list[str]:
    out = ["## 3. Page rerun time (AppTest)", "",
           f"translate-en-fr, a {n}-token sentence: \"{sentence}\". Cold: `st.cache_data.clear()` and "
           "`st.cache_resource.clear()`, then the first run of a fresh AppTest (loads the model, traces, draws). "
           "Warm: `at.sidebar.selectbox(key=\"head\").set_value(1).run()` on the same AppTest. "
           f"Medians of {rows[0]['repeats'] if rows else 0}. Check: no exception element in either run and the head is 1 afterwards.", ""]
    out += table(["page", "cold ms", "warm ms", "charts", "check"],
                 [[r["page"], f"{r['cold_ms']:.0f}", f"{r['warm_ms']:.0f}", r["charts"],
                   yes(r["ok"]) + (f" {r['errors']}" if r["errors"] else "")] for r in rows])
    return out


def section_profile(prof) -> list[str]:
    out = ["## 3b. Where a warm rerun's time goes", "",
           "cProfile of one warm rerun of a page (head → 1 after two runs, under AppTest, this process), enabled only "
           "inside the script thread: `ScriptRunner._run_script` is wrapped to switch a `cProfile.Profile` on and "
           "off around it. A group's time is the cumulative time of the calls entering it from outside it; "
           "\"other\" is the rest of the run. Profiling slows Python calls, so the total is above the warm ms of "
           "table 3. Before this work: figure construction was 57 % and CSV text 24 % of a 605 ms rerun; figures "
           "are now plain dicts (viz_app/figures/base.py) and CSV is made on click.", ""]
    if not prof:
        return out + ["not measured (see the failures below)", ""]
    out += [f"{prof['page']}, {prof['total_ms']:.0f} ms profiled (the AppTest call {prof['wall_ms']:.0f} ms); "
            f"check: {yes(prof['ok'])} no exception and the head is 1 afterwards.", ""]
    out += table(["where", "ms", "share"], [[g, f"{ms:.1f}", f"{share * 100:.0f} %"] for g, ms, share in prof["groups"]])
    out += ["Largest own times (a function's own time, then its cumulative time, ms):", ""]
    out += table(["function", "own ms", "cumulative ms"], [[f"`{n}`", f"{a:.1f}", f"{c:.1f}"] for n, a, c in prof["top"]])
    out += ["Streamlit's part: `st.plotly_chart` calls `plotly.tools.return_figure_from_figure_or_data`, which turns a "
            "`go.Figure` back into a dict (`to_dict`: a deep copy, then numpy arrays to base64), before "
            "`plotly.io.to_json`. Under AppTest the page script is compiled again on each run (Streamlit's magic AST "
            "pass); a real server keeps the compiled script in its script cache.", ""]
    frozen, unfrozen = prof["gc_ms"]
    out += [f"After the run, outside the profile: Streamlit's full garbage collection after every script run "
            f"(`runner.postScriptGC`, a fragment's run included) holds the GIL, so the server sends nothing "
            f"meanwhile. It takes {frozen:.1f} ms with the app's modules frozen out of it (`viz_app/serving.py`, "
            f"once per process) and {unfrozen:.0f} ms with nothing frozen, this process's objects as they are "
            f"(median of 3 each).", ""]
    return out


def section_wire(wire, why) -> list[str]:
    out = ["## 4. Bytes sent to the browser", "",
           "A real `streamlit run` server (127.0.0.1, headless) and Debian chromium driven by playwright; every websocket "
           "frame received by the page is summed until the page has been quiet for 2.5 s. 32 tokens: translate-en-fr; "
           "128 tokens: lm-en (`?model=lm-en&src=…`). Check: frames arrived and no exception element on the page.", ""]
    if why:
        return out + [f"not measured: {why}", ""]
    out += table(["page", "tokens", "model", "total KiB", "largest frame KiB", "frames", "charts", "check"],
                 [[r["page"], r["tokens"], r["model"], f"{r['total'] / 1024:.0f}", f"{r['largest'] / 1024:.0f}",
                   r["frames"], r["charts"], yes(r["ok"])] for r in wire])
    grid = [r for r in wire if r["page"] == "explorer"]
    out += ["The all-heads grid is ONE heatmap with the heads tiled (NaN gaps between them; `layout.meta` holds "
            "block, rows, cols and gap so a click finds its head), pooled to at most 256² cells a head. "
            "Its size, the explorer page's largest frame (check: that frame holds the element keyed "
            "`chart.explorer.grid`): " + ", ".join(
                f"{r['tokens']} tokens ({r['model']}) {r['largest'] / 1024:.0f} KiB {yes(r['largest_is_grid'])}"
                for r in grid), ""]
    return out


# Table 5's notes: where a fresh load's and an Enter's time goes, measured by hand (DevTools and page timings).
BROWSER_TIME = ["Opening a link in a fresh browser, where the time goes (long tasks and resource timings on the page's "
    "own clock, four loads each of the explorer and of the floor's page, measured by hand on this machine, "
    "2026-11-25, an hour slower than the run above). Until 9e4ddf7 every script after the first on a kept-alive "
    "connection waited 44 ms for the browser's delayed acknowledgement (the two kept-alive rows above: Streamlit "
    "1.67 left Nagle's algorithm on; `viz_app/serving.py` turns it off, `bench/floor_app.py` too). The explorer "
    "fetches 134 scripts over chromium's 6 connections to the server: DOMContentLoaded came at 0.63–0.73 s and "
    "plotly's bundle took 0.36–0.46 s to arrive; the first chart took 2.89 s in the run at 0be1c24 and the slowest "
    "sidebar link 0.80 s. Now DOMContentLoaded comes at 0.44–0.55 s (the floor's page 0.43–0.50 s) and the "
    "websocket opens at 0.65–0.77 s. The first chart's element makes the browser ask for plotly's 4.7 MB bundle "
    "(`PlotlyChart.*.js`) at 1.01–1.14 s, 0.30–0.49 s after the socket opened, behind the chunks of the sidebar's "
    "and the page's other elements (the floor's page: at 0.79–0.84 s). It has arrived by 1.20–1.44 s; evaluating it "
    "is one 0.69–0.76 s long task, which starts 0.19–0.40 s later, while the chunks of the statistics table "
    "(Streamlit's DataFrame, 1.2 MB) and of the formulas (KaTeX, 265 KB) are compiled (the floor's: 0.05–0.08 s "
    "later). Then one task of 0.33–0.38 s draws the page's 4 charts, and the first chart's SVG is added at its end, "
    "2.58–2.98 s (the floor's page draws its one chart at 1.80–1.82 s). What the page's content costs (medians of "
    "6 loads, two servers of each kind in turn, 2026-11-25): with the page stopped after the grid, so only the "
    "header, the sidebar and the grid sent, 2.00 s against 2.49 s for the whole page and 1.64 s for the floor; "
    "without the statistics section (its table, formula and picker) and the introduction's formula, 2.21 s "
    "against 2.46 s; without the table alone, 2.43 s against 2.60 s; with the grid above the introduction and the "
    "block picker, no sooner (2.47 s against 2.53 s). Before the fix (2026-11-24): the charts below the grid inside "
    "a collapsed `st.expander` came no sooner than the page less them, since Streamlit draws a folded chart too (18 "
    "of the page's 21 plotly SVG layers were inside it when the first one was added), and a small chart placed "
    "first on the page, so that plotly's bundle is asked for before the sidebar's chunks, brought the first chart "
    "no sooner either. A browser that has opened the app once keeps those bundles: the sidebar-link rows above are "
    "a page's first chart without them. Changing Streamlit's own page (its index.html, rewritten by a middleware of "
    "`st.App`, Streamlit's ASGI entry; tried by hand, 2026-11-25, nine loads of each in turn against the app as "
    "it is, 2.66–2.70 s): a `modulepreload` of plotly's bundle, which then arrives by 0.37 s, 2.68 s; importing it "
    "from the page, so it is evaluated before the socket opens, 2.56 s; that and `window.__streamlit`'s "
    "BACKEND_BASE_URL, so the page skips asking `/explorer/_stcore/health` first (a link to any page but the "
    "first costs a 0.1 s retry there), 2.44 s. With plotly evaluated early, the first chart still came 0.75 s after "
    "the page's messages were handled: right after the last of the page's other chunks (the table's DataFrame, "
    "asked for with some 70 more for the widgets and KaTeX) arrived and was evaluated. Not adopted: it rewrites "
    "Streamlit's page, leans on its chunk names, and still leaves 2.44 s.",
    "",
    "Enter, where the time goes (one session per new sentence, the page's own clock for its websocket messages "
    "and long tasks, measured by hand on this machine, 2026-11-24): the key to the rerun request 15–35 ms; the "
    "run's messages reach the page 80–240 ms after the key; then one long task redraws every chart of the page "
    "and the first chart shows its new data at its end. Two changes cut both parts: torch runs on one thread "
    "fewer than the machine's cores in the server (`viz_app/serving.py`; a new sentence's run on the server's "
    "clock: 0.16–0.54 s, median 0.35, with two threads; 0.09–0.20 s, median 0.13, with one), and every "
    "figure's margins come from its labels' lengths instead of plotly's automargin, which draws each chart, "
    "measures every label in the page and draws it again (`viz_app/figures/room.py`; plotly.js alone drawing "
    "the explorer's 7 charts: 228–324 ms with automargin, 116–129 ms without). Eight new sentences, standalone: "
    "Enter → updated chart median 0.54 s before both, 0.34 s after. Then the comparison of two heads (three "
    "heatmaps and a table, redrawn for every new sentence) became a section one switches on, or a link that names "
    "a comparison opens (`viz_app/place/compare.py`): nine new sentences per server, two servers of each kind in "
    "turn, Enter → updated chart medians 0.27 and 0.29 s without it against 0.39 and 0.38 s with it.", ""]


def section_timing(tm, why) -> list[str]:
    out = ["## 5. Browser: first chart and re-render", "",
           "Explorer page, translate-en-fr, the 32-token sentence, a fresh browser context per repeat. First chart: "
           "on the page's own clock, from the navigation's start (`performance.now()`) to the moment the first "
           "`[data-testid=\"stPlotlyChart\"] .main-svg` is added (a MutationObserver set before the page loads; "
           "playwright's own wait looks every 500 ms after its first checks, and once added up to 0.7 s). "
           "Re-render: a new sentence "
           "typed in the sidebar box, timed in the page from the Enter key's own event (`keydown`, its `timeStamp`) to "
           "the first animation frame in which the first chart's data (x, y, text, customdata) differs "
           "(`page.wait_for_function`, `polling=\"raf\"`), as table 5b times a control. Each new sentence is one "
           "the server has not cached. "
           "Check: the chart's data changed and the page URL's `src` is the new sentence. Floor: the same first-chart "
           "time for `bench/floor_app.py`, a Streamlit page with one small plotly chart and nothing else, on a server "
           "of its own (its first visit, which warms that server, left out), with Nagle's algorithm off as the app's; "
           "check: the chart drawn holds its bars. Kept-alive GETs: 20 GETs of the first script Streamlit's page "
           "preloads, one after another on one connection, on the app's server before any session has run the app "
           "and again after its first runs (`viz_app/serving.py` turns Nagle's algorithm off then); check: each "
           "answer is the file's bytes. "
           "In-app navigation: one "
           "session (the tokens page opened first, so the browser holds Streamlit's JS and the server the sentence's "
           "run) clicks each page's link in the sidebar, timed until that page's title is up, nothing is stale and a "
           "chart is drawn; the median of its visits (3 rounds; 1 in a quick run). Check: every visit drew its page and kept the link's `src`.", ""]
    if why:
        return out + [f"not measured: {why}", ""]
    out += table(["measure", "median s", "each run s", "check"],
                 [["navigation → first chart", f"{tm['first_s']:.2f}", ", ".join(f"{x:.2f}" for x in tm["first_all"]), "chart drawn"],
                  *([["floor: `bench/floor_app.py`, one small chart and nothing else", f"{tm['floor']['first_s']:.2f}",
                      ", ".join(f"{x:.2f}" for x in tm["floor"]["first_all"]), yes(tm["floor"]["ok"])]] if "floor" in tm else []),
                  ["Enter → updated chart", f"{tm['rerender_s']:.2f}", ", ".join(f"{x:.2f}" for x in tm["rerender_all"]),
                   yes(tm["ok"])],
                  *([["Enter → the server's run ended (its own clock: request → script finished)",
                      f"{np.median(tm['server_all']):.2f}", ", ".join(f"{x:.2f}" for x in tm["server_all"]),
                      yes(tm["ok"] and bool(np.isfinite(tm["server_all"]).all()))]] if tm.get("server_all") else []),
                  *[[f"a script of Streamlit's frontend, one GET after another on one kept-alive connection: {when}",
                     f"{r['s']:.3f}", ", ".join(f"{x:.3f}" for x in r["all"]), yes(r["ok"])]
                    for when, r in (("before the app's first run", tm["kept_alive"]["before"]),
                                    ("after it", tm["kept_alive"]["after"])) if "kept_alive" in tm]]
                 + [[f"sidebar link → first chart: {name}", f"{m:.2f}", ", ".join(f"{x:.2f}" for x in tm["nav"]["all"][name]),
                     yes(tm["nav"]["ok"])] for name, m in tm.get("nav", {}).get("pages", {}).items()])
    return out + BROWSER_TIME


def section_fragments(rows, why) -> list[str]:
    out = ["## 5b. A control that changes one chart: fragment reruns", "",
           "The same server and browser; translate-en-fr, the 32-token sentence. Each control sits in a Streamlit "
           "fragment and is changed in turn forward and back (the next option and the previous one, a checkbox on "
           "and off, a slider or number box one step up and down). Server: on the server's own clock, from the rerun "
           "request reaching Streamlit's runtime to the run's script-finished message handed to the websocket "
           "(`bench/served.py` stamps both; the server is otherwise `streamlit run` as it is). The DevTools protocol's "
           "websocket timestamps are the page's, not the server's: a frame is stamped when the page's main thread "
           "takes it in, so while chromium draws a run's first charts the run's last message waits there "
           "(40–200 ms on this machine). Browser: on the "
           "page's clock, from the input event (`keydown` or `pointerdown`, its `timeStamp`) to the watched chart's "
           "data (x, y, z, text) differing, checked every animation frame (`page.wait_for_function`, "
           "`polling=\"raf\"`): the redraw the student sees, without playwright's own steps before the input. "
           "Medians over the changes. Check, every change: the chart's "
           "data changed, the request named a fragment and the run finished as a fragment run, and none of the "
           "page's charts outside the fragment was sent (their element keys absent from the run's frames). "
           "A slider may send a second request while the first runs; the server time then runs from the first "
           "request to the finish of the last.", ""]
    if why:
        return out + [f"not measured: {why}", ""]
    out += table(["page", "control", "chart watched", "server ms", "browser ms", "each change: server / browser ms",
                  "check"],
                 [[r["page"], f"`{r['control']}`", f"`{r['chart']}`", f"{r['server_ms']:.0f}", f"{r['browser_ms']:.0f}",
                   ", ".join(f"{a:.0f}/{b:.0f}" for a, b in zip(r["server_all"], r["browser_all"])),
                   yes(r["ok"]) + (f" {'; '.join(r['why'])}" if r["why"] else "")] for r in rows])
    return out


LIVE_S = 60.0  # goal: a live training run ends within this (issue: "≤ 60 s on 2 cores")
LIVE_RETURN_MB = 50.0  # goal: the server's RSS after a live run is within this of its RSS before


def section_live(live, why) -> list[str]:
    out = ["## 5c. Train one live", "",
           "The same server and browser: the Training page (reverse in the sidebar), \"Start training\" pressed once; "
           "wall time from the click until Start is offered again, and the server's VmRSS before (page drawn), at its "
           "peak while training (sampled every 0.5 s) and 3 s after; then pressed again, and the RSS 3 s after that "
           "second run. Check, each run: the loss chart drew, grew during the run, stayed put after it, and its last "
           "loss is below its first.", ""]
    if why or not live:
        return out + [f"not measured: {why or 'the browser run failed before it'}", ""]
    return out + table(["wall s", "RSS before MiB", "peak MiB", "after MiB", "after a 2nd run MiB", "loss points",
                        "check"],
                       [[f"{live['wall_s']:.1f}", f"{live['before_mb']:.0f}", f"{live['peak_mb']:.0f}",
                         f"{live['after_mb']:.0f}", f"{live['after_runs'][-1]:.0f}", str(live["points"]),
                         yes(live["ok"])]])


def live_targets(live) -> list[list]:
    if not live:
        return [["train one live: wall time; server memory back after", f"≤ {LIVE_S:g} s; ≤ +{LIVE_RETURN_MB:g} MiB",
                 "—", "not measured", ""]]
    first = live["after_mb"] - live["before_mb"]  # the first run also loads what any run needs (code, corpus)
    grown = live["after_runs"][-1] - live["after_mb"]  # what a further run leaves behind
    ok = live["wall_s"] <= LIVE_S and grown <= LIVE_RETURN_MB and live["ok"]
    return [["train one live: wall time; server memory a further run leaves", f"≤ {LIVE_S:g} s; ≤ +{LIVE_RETURN_MB:g} MiB",
             f"{live['wall_s']:.1f} s; {grown:+.0f} MiB (the first run {first:+.0f}, its peak "
             f"+{live['peak_mb'] - live['before_mb']:.0f})", verdict(ok),
             "" if ok else "the loss did not fall" if not live["ok"] else
             "over the time: the run shares the 2 cores with the browser drawing it" if live["wall_s"] > LIVE_S else
             "each run leaves memory behind"]]


def section_memory(mem, why) -> list[str]:
    out = ["## 6. Server memory", "", "VmRSS of the streamlit server process from /proc/PID/status.", ""]
    if why:
        return out + [f"not measured: {why}", ""]
    out += table(["state", "RSS MiB", "check"],
                 [["server after the benchmarks above (4, 5)", f"{mem['start_mb']:.0f}", ""],
                  [f"every shipped model loaded ({', '.join(mem['models'])}: one explorer visit each)", f"{mem['models_mb']:.0f}",
                   yes(mem["ok"])],
                  [f"after {mem['sessions']} sessions came and went (a browser context each, opened the explorer and closed)",
                   f"{mem['after_mb']:.0f}", f"{mem['sessions_ok']}/{mem['sessions']} drew their chart"]])
    return out + ["Streamlit keeps a disconnected session's state for a while before dropping it, so the last "
                  "row includes any sessions not yet collected.", ""]


def section_training() -> list[str]:
    seconds, date, line = card_training_time()
    return ["## 7. Default model training time", "",
            f"Not re-measured here: read from `assets/models/translate-en-fr/card.md` — **{seconds} s**, measured {date}:", "",
            f"> {line}", ""]


def forward_targets(fwd) -> list[list]:
    f32 = next((r for r in fwd if r["tokens"] == 32), None)
    if not f32:
        return []
    return [["traced forward, 32 tokens", "≤ 10 ms", f"{f32['traced_ms']:.2f} ms", verdict(f32["traced_ms"] <= 10 and f32["equal"]), ""],
            ["tracing overhead, 32 tokens", "≤ 1.3×", f"{f32['ratio']:.2f}×", verdict(f32["ratio"] <= 1.3 and f32["equal"]),
             "" if f32["ratio"] <= 1.3 else f"the {f32['trace_values']} recorded values cost "
             f"{(f32['traced_ms'] - f32['plain_ms']) / f32['trace_values'] * 1000:.0f} µs each (a context lookup, a name "
             "and the tensor kept, no copy), against a forward pass of small matmuls that takes "
             f"{f32['plain_ms']:.2f} ms in all."]]


def decoding_targets(dec) -> list[list]:
    if not dec:
        return []
    ok = dec["speedup"] >= 2 and dec["same_ids"]
    return [[f"cached decoding vs recompute, {dec['steps']} tokens", "≥ 2× faster", f"{dec['speedup']:.2f}×", verdict(ok),
             "" if ok else ("the cached and recomputed ids differ" if not dec["same_ids"] else
                            f"at {dec['steps']} tokens the prefix is still short for d_model 128: a step's fixed costs "
                            "(Python dispatch, recording its attention rows, top-k) weigh as much as the O(L) attention "
                            f"the cache saves ({dec['cached_ms']:.2f} against {dec['full_ms']:.2f} ms a step).")]]


def minilm_targets(minilm) -> list[list]:
    if not minilm:
        return []
    agree = all(r["agree"] and r["filtered_same_patterns"] for r in minilm)
    out = []
    for key, goal, what, mb_key, n_key in (("ratio", 1.0, "every value recorded", "trace_mb", "values"),
                                           ("filtered_ratio", 0.8, f"only `{minilm[0]['filter']}`",
                                            "filtered_trace_mb", "filtered_values")):
        over = [r for r in minilm if r[key] > goal]
        ok = not over and agree
        if not agree:
            why = "a result disagrees with transformers (or the filtered patterns differ from the full trace's)"
        elif not over:
            why = ""
        elif key == "ratio":
            why = "; ".join(
                f"at {r['tokens']} tokens ours takes {r['ours_ms'] - r['transformers_ms']:.1f} ms more: untraced, "
                f"{r['plain_ms']:.2f} ms against transformers' {r['transformers_ms']:.2f} "
                f"({r['plain_ms'] / r['transformers_ms']:.2f}×), and the trace adds {r['ours_ms'] - r['plain_ms']:.1f} "
                f"ms keeping {r[n_key]} values, {r[mb_key]:.0f} MiB, alive (page faults per call: ours "
                f"{r['ours_faults']:,.0f}, transformers {r['transformers_faults']:,.0f})" for r in over) + (
                ". The trace stores no [b, h, q, k] array but the pattern (the scores, scaled and masked, are derived "
                "from q and k on read) and the arithmetic is the same kernels; what the trace adds is its bookkeeping "
                "(a name and a context lookup per value) and the memory it keeps that transformers frees as it goes: "
                "fresh pages to fault in and fill.")
        else:
            why = "; ".join(f"{r[key]:.2f}× at {r['tokens']} tokens, where the work bound is {r['work_bound']:.3f}×"
                            for r in over) + (
                ": the goal is under the bound. The patterns of the last layer need every layer before it whole and "
                "that layer's Q and K; ours computes only one product more, that layer's V map (1 of the 6 layers' "
                "72 d_model² × tokens products). What it does is the same MKL matrix product as transformers' "
                "(aten::addmm: 80 % of either at 128 tokens, torch.profiler, one thread), already at this core's peak: "
                "128×384 by 384×1536 takes 1.5 ms, 50 G multiply-adds/s, and MKL's packed weights and "
                "oneDNN's were no faster (measured by hand, 2026-11-24). At 32 tokens the products wait on memory instead: "
                "the layers' 36 weight matrices (42 MB) do not fit in this machine's 32 MB L3 cache, and the 36 products of "
                "one forward's shapes take 11.3 ms with a weight of their own each against 8.3 ms when six weights are "
                "used six times over (MKL's packed weights: 10.9 ms; measured by hand, 2026-11-25).")
        out.append([f"MiniLM traced forward vs transformers, {what}", f"≤ {goal:.1f}×",
                    ", ".join(f"{r[key]:.2f}× at {r['tokens']}" for r in minilm), verdict(ok), why])
    return out


def pages_targets(pages) -> list[list]:
    if not pages:
        return []
    worst = max(pages, key=lambda r: r["warm_ms"])
    ok = worst["warm_ms"] <= 300 and all(r["ok"] for r in pages)
    slow = [r["page"].split("/")[-1][:-3] for r in pages if r["warm_ms"] > 300]
    return [["warm rerun per page, 32 tokens", "≤ 300 ms", f"slowest {worst['warm_ms']:.0f} ms ({worst['page'].split('/')[-1]})",
             verdict(ok), "" if ok else f"over on: {', '.join(slow)}; a rerun re-draws every figure of the page "
             "(figure construction and Streamlit's to_dict + JSON serialization, table 3b) even though the run is cached."]]


def fragment_targets(frag) -> list[list]:
    if not frag:
        return [["fragment rerun, server (a control that changes one chart)", "≤ 100 ms", "—", "not measured", ""],
                ["fragment rerun, browser to the redrawn chart", "≤ 300 ms", "—", "not measured", ""]]
    checked = all(r["ok"] for r in frag)
    out = []
    for key, goal, what in (("server_ms", 100, "fragment rerun, server (a control that changes one chart)"),
                            ("browser_ms", 300, "fragment rerun, browser to the redrawn chart")):
        worst = max(frag, key=lambda r: r[key] if r[key] == r[key] else float("inf"))
        over = [r for r in frag if not r[key] <= goal]
        ok = not over and checked
        if not checked:
            why = "a check failed: " + "; ".join(f"{r['control']}: {', '.join(r['why'])}" for r in frag if not r["ok"])
        elif over and key == "server_ms":
            why = (f"over on {', '.join(r['control'] for r in over)}: the fragment's own work on the server's clock "
                   "(its view, its figures built, to_dict'ed and JSON-encoded: table 3b's costs per chart) and "
                   "Streamlit's run around it, while chromium draws on the same 2 cores.")
        elif over:
            why = (f"over on {', '.join(r['control'] for r in over)}: the server's time above plus the websocket, "
                   "decoding and plotly.js redrawing the fragment's charts on the page's main thread (the browser "
                   "shares the 2 cores).")
        else:
            why = ""
        out.append([what, f"≤ {goal} ms", f"slowest {worst[key]:.0f} ms ({worst['control']}); "
                    + ", ".join(f"{r['control'].split('.', 1)[1]} {r[key]:.0f}" for r in frag), verdict(ok), why])
    return out


def frame_targets(wire) -> list[list]:
    if not wire:
        return [["every websocket message (largest frame, every page)", "≤ 2 MB", "—", "not measured", ""]]
    worst = max(wire, key=lambda r: r["largest"])
    ok = worst["largest"] <= 2e6 and all(r["ok"] for r in wire)
    return [["every websocket message (largest frame, every page)", "≤ 2 MB",
             f"{worst['largest'] / 1e6:.2f} MB ({worst['page']}, {worst['tokens']} tokens)", verdict(ok),
             "" if ok else "a page's check failed" if worst["largest"] <= 2e6 else "one chart's JSON is over 2 MB"]]


def load_targets(load) -> list[list]:
    """Two rows: the class on one server (protocol clients: the server's share) and the same sessions as browsers
    on the server's own cores. `load` maps "protocol" and "browser" to bench.load.measure's results (or None)."""
    from .load import GOAL_P95_S

    goal, rows = f"≤ {GOAL_P95_S:g} s, no error", []
    for clients, what in (("protocol", "protocol clients (the server's share)"),
                          ("browser", "browser sessions on the server's own cores")):
        r = (load or {}).get(clients)
        if not r or not r.get("warm"):
            rows.append([f"a class on one server: warm rerun p95, 30 {what}", goal, "—", "not measured", ""])
            continue
        p50, p95, n = r["warm"]
        errors = len(r["errors"])
        ok = p95 <= GOAL_P95_S and not errors and r["own_view"] == r["sessions"]
        why = []
        if p95 > GOAL_P95_S and clients == "browser":
            why.append(f"{r['sessions']} sessions share 2 cores with the one chromium that drives them all (CPU seconds: "
                       f"server {r['server_cpu_s']:.0f}, browser {r['client_cpu_s']:.0f} in {r['wall_s']:.0f} s)")
        elif p95 > GOAL_P95_S:
            why.append(f"the server took {r['server_cpu_s']:.0f} CPU seconds in {r['wall_s']:.0f} s")
        if p95 > GOAL_P95_S and r.get("served"):
            why.append(f"the server's own time per run, every kind: p50 {r['served']['p50']:.2f} s, p95 "
                       f"{r['served']['p95']:.2f} s ({r['served']['runs']} runs)")
        if errors:
            why.append(f"{errors} errors, e.g. {r['errors'][0][:160]}")
        if r["own_view"] != r["sessions"]:
            why.append(f"only {r['own_view']}/{r['sessions']} sessions saw only their own sentence")
        rows.append([f"a class on one server: warm rerun p95, {r['sessions']} {what}", goal,
                     f"p95 {p95:.2f} s (p50 {p50:.2f} s, {n} reruns), {errors} errors", verdict(ok), "; ".join(why)])
    return rows + [hostile_target((load or {}).get("hostile"))]


def hostile_target(h) -> list:
    """The row of issue 37's load goal: the class's p95 beside a hostile client over the same alone."""
    from .load import GOAL_HOSTILE

    title, goal = "a class on one server beside a hostile client (cases 1, 2, 6, 7): every rerun's p95 over alone", \
        f"≤ {GOAL_HOSTILE:g}×, no error"
    if not h or "reruns" not in h["ratio"]:
        return [title, goal, "—", "not measured", ""]
    b = h["beside"]
    return [title, goal, f"{h['ratio']['reruns']:.2f}× ({h['alone']['reruns'][1]:.2f} s → {b['reruns'][1]:.2f} s), "
            f"{len(b['errors'])} errors", verdict(h["met"]),
            "" if h["met"] else f"the server took {b['server_cpu_s']:.0f} CPU seconds in {b['wall_s']:.0f} s, against "
            f"{h['alone']['server_cpu_s']:.0f} in {h['alone']['wall_s']:.0f} s alone: on 2 cores the hostile client's "
            "model runs in the server beside the class's"]


def grid_targets(wire) -> list[list]:
    grid = next((r for r in wire if r["page"] == "explorer" and r["tokens"] == 128), None) if wire else None
    return [["all-heads grid, 128 tokens, on the wire", "≤ 1 MB",
             f"{grid['largest'] / 1e6:.2f} MB" if grid else "—",
             verdict(None if grid is None else grid["largest"] <= 1e6 and grid["ok"] and grid["largest_is_grid"]), ""]]


FIRST_S, RERENDER_S = 2.0, 0.4  # goals: navigation → first chart, Enter → updated chart


def nav_targets(nav) -> list[list]:
    goal = f"≤ {FIRST_S:g} s"
    if not nav:
        return [["first chart after a sidebar link", goal, "—", "not measured", ""]]
    slowest = max(nav["pages"], key=nav["pages"].get)
    worst = nav["pages"][slowest]
    ok = worst <= FIRST_S and nav["ok"]
    return [[f"first chart after a sidebar link (every page, median of {len(nav['all'][slowest])})", goal, f"slowest {worst:.2f} s ({slowest})",
             verdict(ok), "" if ok else "a visit did not draw its page" if not nav["ok"] else
             f"over on {', '.join(n for n, v in nav['pages'].items() if v > FIRST_S)}: the page's run and every one "
             "of its charts drawn by plotly.js on the 2 cores the server shares."]]


def browser_targets(tm) -> list[list]:
    if not tm:
        return [["first chart opening a link in a fresh browser", f"≤ {FIRST_S:g} s", "—", "not measured", ""],
                *nav_targets(None),
                ["re-render after Enter", f"≤ {RERENDER_S * 1000:.0f} ms", "—", "not measured", ""]]
    floor = (f"a Streamlit page with one small plotly chart and nothing else takes {tm['floor']['first_s']:.2f} s "
             f"the same way (table 5's floor row); our page adds {tm['first_s'] - tm['floor']['first_s']:.2f} s; "
             if "floor" in tm else "")
    return [["first chart opening a link in a fresh browser", f"≤ {FIRST_S:g} s", f"{tm['first_s']:.2f} s", verdict(tm["first_s"] <= FIRST_S),
             "" if tm["first_s"] <= FIRST_S else floor + "a fresh browser: Streamlit's bundles load first, "
             "plotly's 4.7 MB bundle is asked for only when the first chart arrives, behind the chunks of the "
             "page's other elements, and evaluating it is one ~0.7 s long task; then one long task draws all the "
             "page's charts before the first is up. With only the header, the sidebar and the grid sent, the first "
             "chart came at 2.00 s; table 5 gives the breakdown. "
             "A sidebar link, the row below, has the bundles already."],
            *nav_targets(tm.get("nav")),
            ["re-render after Enter", f"≤ {RERENDER_S * 1000:.0f} ms", f"{tm['rerender_s'] * 1000:.0f} ms",
             verdict(tm["rerender_s"] <= RERENDER_S and tm["ok"]),
             "" if tm["rerender_s"] <= RERENDER_S and tm["ok"] else "the chart's data did not change as expected" if not tm["ok"]
             else "a new sentence runs greedy translation plus a traced forward and rebuilds every figure of the "
             "page; once its messages arrive, the browser redraws all the page's charts in one long task and the "
             "first shows its new data at that task's end (table 5's breakdown)."]]


def section_targets(fwd, dec, pages, wire, tm, minilm=(), frag=None, load=None, extra=()) -> tuple[list[str], list[list]]:
    rows = (forward_targets(fwd) + decoding_targets(dec) + minilm_targets(minilm) + pages_targets(pages)
            + fragment_targets(frag) + grid_targets(wire) + frame_targets(wire) + browser_targets(tm)
            + load_targets(load) + list(extra))
    return ["## Targets", ""] + table(["target", "goal", "measured", "verdict", "why not met"], rows), rows


class Steps:
    """Runs one benchmark at a time and keeps its failure: a broken benchmark is reported, the others still run."""

    def __init__(self):
        self.failures: list[str] = []

    def __call__(self, title, fn):
        print(f"[bench] {title} …", file=sys.stderr, flush=True)
        try:
            return fn()
        except Exception:  # noqa: BLE001 - a broken benchmark is reported, the others still run
            self.failures.append(f"{title}: {traceback.format_exc(limit=3)}")
            return None


DECODING_TOKENS = 256  # prompt + 256 fits lm-en's max_len of 512; the cache's gain grows with the prefix


def model_benchmarks(step, q) -> tuple[list[str], list, dict | None, list]:
    """Tables 1, 2, 2b, 2d and 2c: (lines, forward rows, decoding result, MiniLM rows)."""
    fwd = step("forward", lambda: core.bench_forward((8, 32, 128) if q else (8, 32, 128, 512), repeats=5 if q else 30,
                                                          min_s=0 if q else 5)) or []
    lines = section_forward(fwd)
    dec = step("decoding", lambda: core.bench_decoding(64 if q else DECODING_TOKENS, repeats=2 if q else 7))
    if dec:
        lines += section_decoding(dec)
    from .bert import SIZES, bench_bert
    minilm = step("minilm", lambda: bench_bert(repeats=5 if q else 20, sizes=SIZES[:2] if q else SIZES)) or []
    lines += section_bert(minilm)
    from .gpt2 import SIZES as GPT2_SIZES, bench_gpt2
    lines += section_gpt2(step("gpt2", lambda: bench_gpt2(repeats=3 if q else 6, sizes=GPT2_SIZES[:1] if q
                                                          else GPT2_SIZES)) or [])
    lines += section_sweep(step("sweep", lambda: core.bench_sweep(repeats=1 if q else 3)) or [])
    loss = step("long-context loss", lambda: core.long_context_loss(n_texts=1 if q else 4)) or []
    trace = step("long trace", lambda: core.bench_long_trace(repeats=1 if q else 3)) or []
    lines += section_long(loss, trace)
    return lines, fwd, dec, minilm


def page_benchmarks(step, q, default_threads) -> tuple[list[str], list]:
    """Tables 3 and 3b: (lines, page rows)."""
    from . import pages as pg
    torch.set_num_threads(default_threads)  # AppTest runs the app in this process, as the server would
    res = step("pages", lambda: pg.bench_pages(32, repeats=1 if q else 3))
    prof = step("profile", pg.profile_warm)
    return (section_pages(*res) if res else []) + section_profile(prof), (res[2] if res else [])


FRESH = ["the old man sees the red car", "the small girl sees the big dog", "the big dog does not see the old man",
         "the red car sees the small girl", "the small dog does not see the big car", "the old girl sees the small car",
         "the big man does not see the red dog", "the red dog sees the old girl",
         "the small man does not see the big girl"]  # not cached by the server: the re-render timing's sentences
# (nine: one Enter's time varies by ±0.1 s on this shared machine, and the row's verdict is their median)


def nav_pages(q) -> list[tuple[str, str]]:
    """(url path, English title) of every page with a plotly chart, tokens last (the session starts there); the
    overview draws its diagram with graphviz, not plotly."""
    from viz_app.i18n import text
    from viz_app.registry import PAGES
    names = ["explorer", "tokens"] if q else [p.name for p in PAGES if p.name not in ("overview", "tokens")] + ["tokens"]
    return [(name, text(f"page.{name}", "en")) for name in names]


def browse(got, pages, s32, s128, q) -> None:
    """Fills got's wire rows, timing and memory as each is measured (a failure keeps what came before it)."""
    from . import browser as br
    stamps = os.path.join(tempfile.mkdtemp(prefix="bench-stamps-"), "stamps")
    with br.server(stamps) as (base, pid), br.browser() as b:
        kept = {"before": br.kept_alive(base)}  # no session yet: the app has not run, its connections as Streamlit's
        for page in pages:
            for n, model, text in ((32, "translate-en-fr", s32), (128, "lm-en", s128)):
                r = br.wire_bytes(b, br.url(base, page, model, text))
                got["wire"].append(dict(r, page=page, tokens=n, model=model))
        kept["after"] = br.kept_alive(base)
        got["tm"] = br.first_chart_and_rerender(b, base, s32, FRESH[:1] if q else FRESH, stamps=stamps)
        got["tm"]["kept_alive"] = kept
        got["tm"]["floor"] = br.floor_first_chart(b, repeats=1 if q else 5)
        got["tm"]["nav"] = br.in_app_navigation(b, base, s32, nav_pages(q), rounds=1 if q else 3)
        got["live"] = br.live_training(b, base, pid)
        got["frag"] = br.fragment_reruns(b, base, stamps, s32, br.FRAGMENTS[:2] if q else br.FRAGMENTS,
                                         repeats=2 if q else 6)
        got["mem"] = br.memory(b, base, pid, ["translate-en-fr", "lm-en", "reverse"],
                               {"translate-en-fr": s32, "lm-en": "the old man", "reverse": "one two three four five"},
                               sessions=3 if q else 50)


def browser_benchmarks(step, q) -> tuple[list[str], list, dict | None, list | None, dict | None]:
    """Tables 4, 5, 5b, 5c and 6: (lines, wire rows, timing, fragment rows, the live run)."""
    from . import browser as br
    from . import pages as pg
    why = br.missing()
    got = {"wire": [], "tm": None, "frag": None, "mem": None, "live": None}
    if not why:
        s32 = pg.sentence_of("translate-en-fr", 32)[0]
        s128 = pg.sentence_of("lm-en", 128)[0]
        urls = [u for _, u in pg.page_paths()]
        step("browser", lambda: browse(got, ["explorer"] if q else urls, s32, s128, q))
        if step.failures and step.failures[-1].startswith("browser"):
            why = "the browser run failed: " + step.failures[-1].splitlines()[-1]
    wire, tm, frag, mem = got["wire"], got["tm"], got["frag"], got["mem"]
    lines = (section_wire(wire, why if not wire else None) + section_timing(tm, why if tm is None else None)
             + section_fragments(frag, why if frag is None else None) + section_live(got["live"], why)
             + section_memory(mem, why if mem is None else None))
    return lines, wire, tm, frag, got["live"]


def bertviz_benchmarks(step, q) -> tuple[list[str], list[list]]:
    """Table 8 and its target rows, or how to install BertViz."""
    from . import bertviz as bv
    if not bv.bertviz_installed():
        return (["## 8. Side by side: BertViz model_view", "", f"not measured: {bv.MISSING}", ""], bv.targets([]))
    rows = step("bertviz", lambda: bv.bench_bertviz((128,) if q else (128, 512))) or []
    return (bv.section(rows, "8") if rows else ["## 8. Side by side: BertViz model_view", "",
                                                 "not measured (see the failures below)", ""]), bv.targets(rows)


def load_benchmark(step, q, sessions) -> tuple[list[str], dict]:
    """Table 9: the load test (bench/load.py), protocol clients then browsers, each on a server of its own."""
    from . import browser as br
    from . import load
    lines, results, rounds = ["## 9. A class on one server (load test)", ""], {}, 1 if q else 2
    if not sessions:
        return lines + ["not measured: skipped (--load-sessions 0)", ""], results
    lines += [f"The same {sessions} sessions twice, each time on a server of its own. First as protocol clients: what "
              "the server does for a class whose browsers run on machines of their own (the goal's measure). Then as "
              "browsers on this machine, which shows each session's page as drawn, with every console or request "
              "error, but shares the server's 2 cores with all their drawing.", ""]
    for clients in load.CLIENTS:
        why = br.missing() if clients == "browser" else None
        res = None if why else step(f"load ({clients})", lambda c=clients: load.measure(sessions, rounds, clients=c))
        results[clients] = res
        if res:
            lines += load.markdown(res, f"`.venv/bin/python -m bench.run --load-sessions {sessions}` (the same as `"
                                   + load.COMMAND.format(sessions=sessions, rounds=rounds, ramp=res["ramp_s"])
                                   + f" --clients {clients}`)")
        else:
            lines += [f"### {sessions} {clients} clients", "", f"not measured: {why or 'see the failures below'}", ""]
    if results.get("protocol"):
        results["hostile"] = step("load (hostile)", lambda: load.beside_hostile(results["protocol"], sessions, rounds))
        lines += load.hostile_markdown(results["hostile"]) if results["hostile"] else []
    return lines, results


def real_size_benchmark(step, q) -> tuple[list[str], list[list]]:
    """Table 10 and its target rows: the models at their real sizes (bench/real_size.py), each measurement in a
    child process of its own."""
    from . import real_size as rs
    res = step("real sizes", lambda: rs.bench_real_size(**rs.options(quick=q)))
    return rs.section(res), rs.targets(res)


def update_real_size(path) -> int:
    """Run only table 10 (the full run of `python -m bench.real_size`) and put its section and target rows into an
    existing BENCHMARKS.md; the other tables stay as they are."""
    step = Steps()
    lines, rows = real_size_benchmark(step, False)
    stamp(lines, "table 10 re-run alone by `.venv/bin/python -m bench.run --only-real-size`")
    put_into(path, [("## 10. ", "## Targets", lines)], rows)
    print("\n".join(lines + table(["target", "goal", "measured", "verdict", "why not met"], rows)))
    return failed(step)


def stamp(lines: list[str], what: str) -> None:
    """Say under a section's heading which command re-ran it alone, and when."""
    lines[1:1] = ["", f"({what} on {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')})"]


def put_into(path, sections, rows) -> None:
    """Each (head, before, lines) section and each target row put into the BENCHMARKS.md at `path`."""
    text = open(path, encoding="utf-8").read()
    for head, before, lines in sections:
        text = put_section(text, head, before, lines)
    for row in rows:
        text = put_target(text, row)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def failed(step) -> int:
    """1 (each failure printed) when a benchmark failed to run, else 0."""
    for failure in step.failures:
        print(failure, file=sys.stderr)
    return 1 if step.failures else 0


def update_load(path, sessions: int) -> int:
    """Run only the load test and put its section and its target rows into an existing BENCHMARKS.md."""
    step = Steps()
    lines, res = load_benchmark(step, False, sessions)
    text = open(path, encoding="utf-8").read()
    start, end = text.index("## 9. "), text.index("## Targets")
    rows = ["| " + " | ".join(str(c) for c in row) + " |" for row in load_targets(res)]
    body = text[end:].splitlines()
    old = [i for i, line in enumerate(body) if line.startswith("| a class on one server")]
    body[old[0]:old[-1] + 1] = rows  # the rows stand together in the targets table
    stamp = f"(section 9 re-run by `.venv/bin/python -m bench.run --only-load {sessions}` on " \
            f"{datetime.datetime.now().strftime('%Y-%m-%d %H:%M')})"
    lines.insert(1, "")
    lines.insert(2, stamp)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:start] + "\n".join(lines) + "\n" + "\n".join(body).rstrip() + "\n")
    print("\n".join(lines + rows))
    for failure in step.failures:
        print(failure, file=sys.stderr)
    return 1 if step.failures else 0


def put_section(text: str, head: str, before: str, lines: list[str]) -> str:
    """`text` with the section that starts at `head` replaced by `lines`, or `lines` inserted before the section
    starting at `before` if there is none."""
    start = text.index(head) if head in text else text.index(before)
    return text[:start] + "\n".join(lines).rstrip() + "\n\n" + text[text.index(before):]


def put_target(text: str, row: list) -> str:
    """`text` with the Targets table's row of the same target replaced by `row`, or `row` added at the table's end."""
    line = "| " + " | ".join(str(c) for c in row) + " |"
    lines = text.splitlines()
    at = next((i for i, x in enumerate(lines) if x.startswith(f"| {row[0]} |")), None)
    if at is None:  # after the last row of the first table under "## Targets"
        at = next(i for i in range(lines.index("## Targets"), len(lines)) if lines[i].startswith("|"))
        while at < len(lines) and lines[at].startswith("|"):
            at += 1
        lines.insert(at, line)
    else:
        lines[at] = line
    return "\n".join(lines) + "\n"


def update_live(path) -> int:
    """Run only "Train one live" (table 5c) in a fresh server and browser, and put table 5c, table 7 (read from the
    translator's card) and the live target row into an existing BENCHMARKS.md; the other tables stay as they are."""
    from . import browser as br
    step, got = Steps(), {}

    def run_live():
        with br.server() as (base, pid), br.browser() as b:
            got["live"] = br.live_training(b, base, pid)
    why = br.missing()
    if not why:
        step("live training", run_live)
    live = got.get("live")
    lines = section_live(live, why)
    lines[1:1] = ["", f"(table 5c re-run alone by `.venv/bin/python -m bench.run --only-live` on "
                      f"{datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}, in a fresh server, so RSS before is a "
                      "new server's; the tables it does not name were not re-run)"]
    text = open(path, encoding="utf-8").read()
    text = put_section(text, "## 5c. ", "## 6. ", lines)
    text = put_section(text, "## 7. ", "## 8. ", section_training())
    text = put_target(text, live_targets(live)[0])
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print("\n".join(lines))
    for failure in step.failures:
        print(failure, file=sys.stderr)
    return 1 if step.failures or not live else 0


def update_models(path: str) -> int:
    """Tables 1 to 2c (the model benchmarks) and 7 (read from the translator's card), with their target rows, into an
    existing BENCHMARKS.md: what a retrained shipped model changes; the other tables stay as they are."""
    torch.set_num_threads(THREADS)
    step = Steps()
    lines, fwd, dec, minilm = model_benchmarks(step, False)
    stamp(lines, "tables 1 to 2c and 7 re-run alone by `.venv/bin/python -m bench.run --only-models`")
    put_into(path, [("## 1. ", "## 3. ", lines), ("## 7. ", "## 8. ", section_training())],
             forward_targets(fwd) + decoding_targets(dec) + minilm_targets(minilm))
    print("\n".join(lines))
    return failed(step)


def update_sweep(path: str) -> int:
    """Table 2e alone, into an existing BENCHMARKS.md (before table 2c); the other tables stay as they are."""
    torch.set_num_threads(THREADS)
    rows = core.bench_sweep()
    lines = section_sweep(rows)
    stamp(lines, "table 2e run alone by `.venv/bin/python -m bench.run --only-sweep`")
    put_into(path, [("## 2e. ", "## 2c. ", lines)], [])
    print("\n".join(lines))
    return 0 if all(r["done"] and r["same"] for r in rows) else 1


def parse_args(argv):
    ap = cli.Parser(prog="python -m bench.run", description=__doc__)
    ap.add_argument("--quick", action="store_true", help="tiny repeats and sizes: a smoke run of every benchmark")
    ap.add_argument("--out", type=cli.writable, default=str(ROOT / "BENCHMARKS.md"))
    ap.add_argument("--only-load", type=int, default=0, metavar="N",
                    help="run only the load test with N sessions and replace its section and target row in --out")
    ap.add_argument("--only-live", action="store_true",
                    help="run only \"Train one live\" and replace its section, table 7 and its target row in --out")
    ap.add_argument("--only-real-size", action="store_true",
                    help="run only table 10, the models at their real sizes, and replace its section and target rows "
                         "in --out")
    ap.add_argument("--only-models", action="store_true",
                    help="run only the model benchmarks (tables 1 to 2c) and replace them, table 7 and their target "
                         "rows in --out")
    ap.add_argument("--only-sweep", action="store_true",
                    help="run only table 2e, the knock-out sweep, and replace its section in --out")
    ap.add_argument("--load-sessions", type=int, default=None, metavar="N",
                    help="sessions of the load test, table 9 (default 30, or 3 with --quick; 0 skips it)")
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    if args.only_load:
        return update_load(args.out, args.only_load)
    if args.only_live:
        return update_live(args.out)
    if args.only_real_size:
        return update_real_size(args.out)
    if args.only_models:
        return update_models(args.out)
    if args.only_sweep:
        return update_sweep(args.out)
    q = args.quick
    default_threads = torch.get_num_threads()
    torch.set_num_threads(THREADS)
    lines = header_lines(args)
    step = Steps()
    model_lines, fwd, dec, minilm = model_benchmarks(step, q)
    page_lines, page_rows = page_benchmarks(step, q, default_threads)
    browser_lines, wire, tm, frag, live = browser_benchmarks(step, q)
    bertviz_lines, bertviz_rows = bertviz_benchmarks(step, q)
    sessions = args.load_sessions if args.load_sessions is not None else 3 if q else 30
    load_lines, load_result = load_benchmark(step, q, sessions)
    real_lines, real_rows = real_size_benchmark(step, q)
    lines += model_lines + page_lines + browser_lines + section_training() + bertviz_lines + load_lines + real_lines
    target_lines, _ = section_targets(fwd, dec, page_rows, wire, tm, minilm, frag, load_result,
                                      bertviz_rows + live_targets(live) + real_rows)
    lines += target_lines
    if step.failures:
        lines += ["## Benchmarks that failed to run", ""] + [f"```\n{f}\n```" for f in step.failures]
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines).rstrip() + "\n")
    print("\n".join(target_lines))
    print(f"wrote {args.out}", file=sys.stderr)
    return 1 if step.failures else 0


if __name__ == "__main__":
    sys.exit(main())
