"""Models at their real sizes (issue 36): our traced forward against transformers, and a cold start to the first chart.

Three folders with random weights at the real shapes, built by transformers itself in bfloat16 and written by
`save_pretrained` (safetensors) with a byte-level BPE tokenizer.json our importers read (bench.gpt2.byte_tokenizer):
GPT-2 small (GPT2Config's defaults, 124M), SmolLM2-135M (LlamaConfig: 30 layers, 9 heads sharing 3 key/value
heads, 576 wide) and Qwen2-0.5B (Qwen2Config: 24 layers, 14 heads sharing 2, 896 wide, a vocabulary of 151,936).
They are built once into CACHE and reused while their recipe holds.

Each kind runs in a fresh child process of its own (`python -m bench.real_size --child MODE FOLDER N`), with torch
on 2 threads and glibc's malloc thresholds set alike (heap.SETTLED_ENV: transformers' process as ours), on the same
N ids (bos + a sentence repeated): transformers' AutoModelForCausalLM (eager attention, output_attentions=True,
the bf16 folder loaded as float32), and our run_with_trace keeping every value, only the patterns
(names="*.pattern"), and what a page draws (`page_draw`; skipped as "not built yet" until run_with_trace has its
on_demand switch). A child loads its model, takes a first forward and then one more for
each "go" it reads (`child`); the parent keeps the four children of a row alive at once where the memory allows and
drives them in lockstep, a forward of one at a time, round after round (`lockstep`), so that a shared host's drift
(the same forward took 0.19 s and 0.25 s on one afternoon) moves every kind alike: each time ratio is the median of
the rounds'. A child reports its forwards' wall times, its peak RSS (getrusage's ru_maxrss: the whole process, load
included), its VmRSS once the model is loaded and its peak during the forwards alone (the high-water mark started
again after the load), so a ratio can be given both ways.
Each kind's result is checked against transformers' (or, where transformers is not run, against ours with every
value): the last position's likeliest token and top logits, and every head's attention row of the last query in the
middle layer. A combination whose
estimated peak is over MEMORY_SHARE of the memory available is skipped, saying so (transformers at Qwen2's 2,048
tokens keeps 5.25 GiB of attention weights alone, ~20 GiB at its peak).
The cold start: `python -m viz_app.cli --model FOLDER --serve` started as a user starts it, the explorer page opened
on 512 tokens (bos + 511 of text), seconds from the process's start to the first chart drawn.

    .venv/bin/python -m bench.real_size             # the full run: 11 lengths × 4 kinds and 3 cold starts
    .venv/bin/python -m bench.real_size --quick     # GPT-2 at 128 tokens only, and its cold start: ~1 min
    .venv/bin/python -m bench.run --only-real-size  # the full run, put into BENCHMARKS.md as section 10

The full run took 12 to 13 minutes on 2 cores (2026-12-07: each row's children in lockstep, 3 to 25 rounds, and
the 3 cold starts), plus
~1 min the first time to build the folders (~1.5 GB in CACHE). `--model NAME` and `--tokens N` (each again for
more) and `--no-charts` run a part.
Each prints its section and target rows; the exit code is 1 when a check failed (a goal missed is no failure).
"""
from __future__ import annotations

import compileall
import gc
import inspect
import json
import os
import resource
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch

from core_model import checkpoints
from core_model.cli import Parser, whole
from core_model.trace import heap, run_with_trace

from . import browser as br
from .core import ROOT
from .gpt2 import TEXT, byte_tokenizer, gpt2_folder
from .markdown import table, verdict, yes

CACHE = Path(os.environ.get("BENCH_REAL_SIZE_CACHE", Path(tempfile.gettempdir()) / "attention-viz-real-size"))
RECIPE = 1  # bump when a folder's recipe changes: the cached folders are rebuilt
THREADS = 2
SIZES = (128, 512, 1024, 2048)
CHART_TOKENS = 512
MODES = ("transformers", "every", "patterns", "page")
MODE_NAMES = {"transformers": "transformers eager, output_attentions=True", "every": "ours, every value",
              "patterns": "ours, `*.pattern` only", "page": "ours, what a page draws"}
AFTER_FIRST = 1  # a kind in a group of one: forwards after the first (its peak a warm forward's, not the first's)
ROUNDS_MIN, ROUNDS_MAX, ROUNDS_BUDGET_S = 3, 25, 20.0  # lockstep: rounds of one forward each, 3 to 25 within 20 s
CHILD_TIMEOUT_S, CHART_TIMEOUT_S = 600, 300
MEMORY_SHARE = 0.8  # a child may use this share of the memory available when it starts (the machine is shared)
PATTERN_ATOL, LOGIT_RTOL = 1e-4, 1e-4  # as bench/gpt2.py: attention weights absolute, logits of their largest
GIB = 2**30
# Goals (issue 36): ratios to transformers; a page's goals from a length on; the cold start's, per model
TIME_GOAL, RSS_GOAL = 1.0, 1.2
PAGE_TIME_GOAL, PAGE_TIME_FROM, PAGE_RSS_GOAL, PAGE_RSS_FROM = 0.7, 1024, 0.3, 2048
PAGE_LEAVES = ("resid_pre", "norm1", "resid_mid", "norm2", "resid_post", "ffn.hidden", "ffn.out")
ATTN_READ = ("q", "k", "v", "scores", "pattern", "z", "out")


@dataclass(frozen=True)
class Spec:
    name: str  # the folder's name: the app's name for the model
    label: str
    config_class: str
    fields: dict = field(default_factory=dict)  # the config's fields, transformers' names
    first: tuple[str, ...] = ()  # the tokenizer's specials at ids 0, 1, … (bench.gpt2.byte_tokenizer)
    last: tuple[str, ...] = ()  # … and after its byte pairs
    bos: str | None = None  # the specials config.json names bos_token_id and eos_token_id
    eos: str = ""
    chart_goal_s: float = 10.0  # the cold start's goal at CHART_TOKENS tokens


ENDS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
SPECS = (
    # GPT-2 has no goal of its own for the cold start: the 135M model's (the same size)
    Spec("gpt2-small-random", "GPT-2 small (124M)", "GPT2Config"),
    Spec("smollm2-135m-random", "SmolLM2-135M (Llama, GQA)", "LlamaConfig", dict(
        hidden_size=576, intermediate_size=1536, num_hidden_layers=30, num_attention_heads=9, num_key_value_heads=3,
        vocab_size=49152, max_position_embeddings=8192, rope_theta=100000.0, tie_word_embeddings=True,
        rms_norm_eps=1e-5), first=ENDS, bos=ENDS[0], eos=ENDS[0]),
    Spec("qwen2-0.5b-random", "Qwen2-0.5B", "Qwen2Config", dict(
        hidden_size=896, intermediate_size=4864, num_hidden_layers=24, num_attention_heads=14, num_key_value_heads=2,
        vocab_size=151936, max_position_embeddings=32768, rope_theta=1000000.0, tie_word_embeddings=True,
        rms_norm_eps=1e-6, use_sliding_window=False), last=ENDS, eos=ENDS[0], chart_goal_s=30.0),
)
BY_NAME = {s.name: s for s in SPECS}


# ----- the folders ---------------------------------------------------------------------------------

def build(spec: Spec, dest: Path) -> Path:
    """`spec`'s folder: random weights made by transformers and saved in bfloat16, its tokenizer files beside."""
    import transformers

    if spec.config_class == "GPT2Config":
        return gpt2_folder(dest, dtype=torch.bfloat16, **spec.fields)
    tk = byte_tokenizer(spec.fields["vocab_size"], spec.first, spec.last)
    roles = {"eos_token": spec.eos, **({"bos_token": spec.bos} if spec.bos else {})}
    transformers.PreTrainedTokenizerFast(tokenizer_object=tk, **roles).save_pretrained(dest)
    bos = tk.token_to_id(spec.bos) if spec.bos else None
    eos = tk.token_to_id(spec.eos)
    cfg = getattr(transformers, spec.config_class)(**spec.fields, bos_token_id=bos, eos_token_id=eos)
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16)
    model.save_pretrained(dest, safe_serialization=True)
    return dest


def recipe_of(spec: Spec) -> str:
    return json.dumps({"recipe": RECIPE, **asdict(spec)}, sort_keys=True)


def built(spec: Spec) -> Path | None:
    """`spec`'s folder in CACHE if one was built there by the same recipe, else None."""
    dest, stamp = CACHE / spec.name, CACHE / f"{spec.name}.json"
    return dest if dest.is_dir() and stamp.is_file() and stamp.read_text() == recipe_of(spec) else None


def folder(spec: Spec) -> Path:
    """`spec`'s folder in CACHE, built there (in this process) unless the one there was built by the same recipe."""
    if built(spec):
        return CACHE / spec.name
    print(f"[real size] building {spec.name} in {CACHE} …", file=sys.stderr, flush=True)
    dest, part = CACHE / spec.name, CACHE / f"{spec.name}.part"
    CACHE.mkdir(parents=True, exist_ok=True)
    for old in (dest, part):
        shutil.rmtree(old, ignore_errors=True)
    build(spec, part)
    part.rename(dest)
    (CACHE / f"{spec.name}.json").write_text(recipe_of(spec))
    return dest


def folders(specs) -> list[Path]:
    """Each spec's folder, one missing built in a child process of its own, so its memory leaves with it."""
    for spec in specs:
        if not built(spec):
            subprocess.run([sys.executable, "-m", "bench.real_size", "--build", spec.name], cwd=ROOT, check=True,
                           env=dict(os.environ, HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false"))
    return [folder(spec) for spec in specs]


def hf_config(path: Path) -> dict:
    return json.loads((path / "config.json").read_text())


def dims(path: Path) -> dict:
    """The folder's shapes, whichever family's names its config.json uses, and its parameters (bf16: 2 bytes)."""
    c = hf_config(path)
    d = c.get("hidden_size", c.get("n_embd"))
    return dict(layers=c.get("num_hidden_layers", c.get("n_layer")),
                heads=c.get("num_attention_heads", c.get("n_head")), d=d,
                ff=c.get("intermediate_size") or c.get("n_inner") or 4 * d, vocab=c["vocab_size"],
                positions=c.get("max_position_embeddings", c.get("n_positions")),
                params=sum(f.stat().st_size for f in path.glob("*.safetensors")) / 2)


def ids_of(path: Path, n: int) -> torch.Tensor:
    """bos (eos where the config names none, as our import reads it) + TEXT's ids repeated: exactly n ids, [1, n]."""
    import tokenizers

    c = hf_config(path)
    bos = c["bos_token_id"] if c.get("bos_token_id") is not None else c["eos_token_id"]
    body = tokenizers.Tokenizer.from_file(str(path / "tokenizer.json")).encode(TEXT).ids
    return torch.tensor([[bos, *(body * (n // len(body) + 1))[:n - 1]]])


def text_of(path: Path, n: int) -> str:
    """Words of TEXT repeated while the text stays within n of the folder's tokens."""
    import tokenizers

    tk, words, out = tokenizers.Tokenizer.from_file(str(path / "tokenizer.json")), TEXT.split(), []
    while len(tk.encode(" ".join(out + [words[len(out) % len(words)]])).ids) <= n:
        out.append(words[len(out) % len(words)])
    return " ".join(out)


# ----- what a page draws -----------------------------------------------------------------------------

def on_demand_built() -> bool:
    """Whether run_with_trace has the on_demand switch yet (another change builds it, with Trace.pooled_pattern)."""
    return "on_demand" in inspect.signature(run_with_trace).parameters


def page_draw(model, ids):
    """What the explorer draws from a run: every layer's pooled pattern (the all-heads grid) and one middle layer in
    full (its attention's q, k, v, scores, pattern, z and out, and the layer's residuals, norms and FFN values).
    (logits, trace, {leaf: what was read of the middle layer}, [each layer's pooled pattern])."""
    logits, trace = run_with_trace(model, None, ids, on_demand=True)
    layers = trace.n_layers("decoder")
    pooled = [trace.pooled_pattern("decoder", i) for i in range(layers)]
    view = trace.attn("decoder", layers // 2)
    drawn = {leaf: getattr(view, leaf) for leaf in ATTN_READ}
    drawn.update({leaf: trace.layer("decoder", layers // 2, leaf) for leaf in PAGE_LEAVES})
    return logits, trace, drawn, pooled


# ----- one measurement, in a child process --------------------------------------------------------

def rss_mb() -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmRSS:"))


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def summary(logits, pattern) -> dict:
    """What the checks compare: the last position's 5 likeliest ids and their logits, and the middle layer's
    attention rows of the last query, one per head."""
    values, top = torch.topk(torch.as_tensor(logits)[0, -1], 5)
    return dict(top=top.tolist(), logits=values.tolist(), rows=np.asarray(pattern)[0, :, -1].tolist())


def setup(mode: str, path: Path, mid: int):
    """(forward(ids), summarize(its result)) of `mode`, its model loaded."""
    if mode == "transformers":
        import transformers

        model = transformers.AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32,
                                                                  attn_implementation="eager").eval()

        def forward(ids):
            with torch.no_grad():
                return model(ids, output_attentions=True)
        return forward, lambda out: summary(out.logits, out.attentions[mid])
    model = checkpoints.load(path, trusted=True).model
    if mode == "page":
        return lambda ids: page_draw(model, ids), lambda out: summary(out[0], out[2]["pattern"])
    names = "*.pattern" if mode == "patterns" else None
    return (lambda ids: run_with_trace(model, None, ids, names=names),
            lambda out: summary(out[0], out[1].attn("decoder", mid).pattern))


def once(forward, ids) -> tuple[float, object]:
    """forward(ids)'s wall time, and its result."""
    start = time.perf_counter()
    out = forward(ids)
    return time.perf_counter() - start, out


def reset_peak() -> None:
    """Start the process's peak RSS (VmHWM, and getrusage's ru_maxrss with it) again from its RSS now, so that the
    forward's peak is its own and not the load's (Linux's /proc/self/clear_refs; left as it is where refused)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def child(mode: str, path: Path, n: int, commands=sys.stdin) -> dict:
    """One kind's process: the model loaded (the load's time, RSS after it and peak during it), a first forward
    ("READY seconds" printed), then one more forward for each "go" line read ("TIME seconds"), until the commands
    end; the forwards' peak, and the first result's summary. Each result is dropped before the next forward, so none
    adds to the next one's peak. The first forward pays what a process pays once (its memory touched for the first
    time, the kernels' first calls: 10.8 s, then 6.6 and 6.4, for SmolLM2-135M at 2,048 tokens keeping every value),
    so the times compared are the others; the first is reported beside them."""
    torch.set_num_threads(THREADS)
    ids = ids_of(path, n)
    start = time.perf_counter()
    forward, summarize = setup(mode, path, dims(path)["layers"] // 2)
    loaded = dict(load_s=time.perf_counter() - start, loaded_mb=rss_mb(), load_peak_mb=peak_mb())
    reset_peak()
    first, out = once(forward, ids)
    result = summarize(out)
    del out
    gc.collect()
    print(f"READY {first}", flush=True)
    times = []
    for line in commands:
        if line.strip() != "go":
            break
        took, out = once(forward, ids)
        del out
        gc.collect()
        times.append(took)
        print(f"TIME {took}", flush=True)
    peaks = dict(forward_peak_mb=peak_mb(), peak_mb=max(peak_mb(), loaded["load_peak_mb"]))
    reading = dict(read_s=read_once(forward(ids)[1])) if mode == "every" else {}  # after the peaks: not in them
    return dict(mode=mode, tokens=n, time_s=statistics.median(times or [first]), first_s=first, times=[first, *times],
                **peaks, **loaded, **result, **reading)


def read_once(trace) -> float:
    """Seconds to read each value of a trace once, one at a time, none held (what is derived computed again from
    what it derives from each time), but the three score steps: they are derived from q and k as they were before
    q, k and the blocks' outputs were (and at 2,048 tokens would be 3 × 9 × 2,048² floats a layer)."""
    start = time.perf_counter()
    for name in trace.names:
        if not name.endswith((".scores", ".scores_scaled", ".scores_masked")):
            trace[name]
    return time.perf_counter() - start


# ----- the parent: every measurement, one child at a time ----------------------------------------------

def available_gib() -> float:
    with open("/proc/meminfo") as f:
        return next(int(line.split()[1]) / 2**20 for line in f if line.startswith("MemAvailable:"))


def estimate_gib(m: dict, n: int, mode: str) -> float:
    """A child's peak, estimated from the shapes: the process and the float32 weights (read from bf16), the
    attention weights kept (transformers: ×3, fitted to the peaks measured before, GPT-2 at 1,024 tokens, SmolLM2 at
    2,048, Qwen2 at 1,024), one layer's scores while it runs, the logits (and our probabilities), our activations."""
    attn, step = m["layers"] * m["heads"] * n * n * 4, 3 * m["heads"] * n * n * 4
    logits, acts = n * m["vocab"] * 4, m["layers"] * n * (10 * m["d"] + 2 * m["ff"]) * 4
    base = 0.7 * GIB + 6 * m["params"]
    if mode == "transformers":
        return (base + 3 * attn + logits) / GIB
    return (base + attn + step + 2 * logits + (acts if mode == "every" else 0)) / GIB


class Kind:
    """One kind's child process (`child`), driven a forward at a time through its stdin and stdout."""

    def __init__(self, mode: str, path: Path, n: int):
        self.mode, self.out, self.err, self.silent = mode, b"", tempfile.TemporaryFile(), False
        # every kind under the same malloc: glibc's thresholds where its own rule ends (core_model/trace/heap.py);
        # left to move, they had transformers' forwards fault in 24,577 pages each, then 105,186 from the fifth on
        env = dict(os.environ, HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false", **heap.SETTLED_ENV)
        self.proc = subprocess.Popen([sys.executable, "-m", "bench.real_size", "--child", mode, str(path), str(n)],
                                     cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.err)
        self.first = self.said("READY")

    def line(self) -> str | None:
        """The child's next line; None once it has ended, or said nothing for CHILD_TIMEOUT_S (then it is killed)."""
        while b"\n" not in self.out:
            if not select.select([self.proc.stdout], [], [], CHILD_TIMEOUT_S)[0]:
                self.proc.kill()
                self.silent = True
                return None
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            if not chunk:
                return None
            self.out += chunk
        line, self.out = self.out.split(b"\n", 1)
        return line.decode()

    def said(self, word: str) -> str | None:
        """What follows `word` on the next line that starts with it (other lines are the libraries')."""
        while (line := self.line()) is not None:
            if line.startswith(word + " "):
                return line[len(word) + 1:]
        return None

    def go(self) -> float | None:
        """One more forward's time; None when the child is gone."""
        try:
            self.proc.stdin.write(b"go\n")
            self.proc.stdin.flush()
        except OSError:
            return None
        took = self.said("TIME")
        return None if took is None else float(took)

    def end(self) -> dict:
        """The child's result once its commands end; {"error": why} when it failed or fell silent."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        found = self.said("RESULT")
        code = self.proc.wait()
        self.proc.stdout.close()
        self.err.seek(0)
        tail = (self.err.read().decode(errors="replace").strip().splitlines() or [f"exit code {code}"])[-1]
        self.err.close()
        if self.silent:
            return dict(error=f"said nothing for {CHILD_TIMEOUT_S} s")
        if code or found is None:
            return dict(error=f"exit code {code}: {tail[:300]}")
        return json.loads(found)


def skip_reason(path: Path, n: int, mode: str) -> str | None:
    """Why a kind is not run: not built yet, or memory it would not find; None when it runs."""
    if mode == "page" and not on_demand_built():
        return "not built yet (run_with_trace has no on_demand switch)"
    need, have = estimate_gib(dims(path), n, mode), available_gib()
    if need > MEMORY_SHARE * have:
        return f"estimated {need:.1f} GiB, over {MEMORY_SHARE:.0%} of the {have:.1f} GiB available"
    return None


def groups(path: Path, n: int, modes: list[str]) -> list[list[str]]:
    """The kinds to run at once, in MODES' order, as many in each group as the memory available holds by their
    estimates (each kind's peak whole: its process keeps much of it between forwards)."""
    out, room = [], MEMORY_SHARE * available_gib()
    for mode in modes:
        need = estimate_gib(dims(path), n, mode)
        if out and sum(estimate_gib(dims(path), n, m) for m in out[-1]) + need <= room:
            out[-1].append(mode)
        else:
            out.append([mode])
    return out


def lockstep(path: Path, n: int, group: list[str]) -> dict:
    """The group's kinds, each in its own process, loaded one after another (a load and a first forward have the
    machine to themselves), then rounds of one forward of each, one process at a time, each round starting one kind
    later: at least ROUNDS_MIN and up to ROUNDS_MAX while they stay within ROUNDS_BUDGET_S. A host that slows down or
    speeds up (others' work on a shared machine: the same forward took 0.19 s and 0.25 s on one afternoon) does so for
    every kind alike, so a kind's time over transformers' in the same round is a ratio that drift does not move; its
    median over the rounds is the ratio compared (time_ratio). Each process keeps its own memory and its allocator's
    state, as a user's would: in one process holding both models, the forwards' allocations interleaved, ours took
    about 100,000 page faults a forward against 25,000 without transformers' between (SmolLM2-135M, 512 tokens)."""
    kinds = []
    for mode in group:
        print(f"[real size] {path.name}, {n} tokens: {mode} …", file=sys.stderr, flush=True)
        kinds.append(Kind(mode, path, n))
    ready = [k for k in kinds if k.first is not None]
    times = {k.mode: [] for k in ready}
    rounds, spent = 0, 0.0
    while len(ready) > 1 and (rounds < ROUNDS_MIN or (rounds < ROUNDS_MAX and spent < ROUNDS_BUDGET_S)):
        took = {k.mode: k.go() for k in ready[rounds % len(ready):] + ready[:rounds % len(ready)]}
        if None in took.values():  # a child is gone: its end says why
            break
        for mode, t in took.items():
            times[mode].append(t)
        rounds, spent = rounds + 1, spent + sum(took.values())
    for _ in range(AFTER_FIRST if len(ready) == 1 else 0):
        ready[0].go()  # alone: its first forward and AFTER_FIRST more
    results = {k.mode: k.end() for k in kinds}
    tf = times.get("transformers")
    for mode, t in times.items():
        if "time_s" in results[mode] and rounds:
            results[mode].update(rounds=rounds, together=group)
            if tf and mode != "transformers":
                results[mode]["time_ratio"] = statistics.median(a / b for a, b in zip(t, tf))
    return results


def measure_row(path: Path, n: int) -> dict:
    """Every kind's result at n tokens: those that fit at once run in lockstep, the rest in groups after them."""
    results = {mode: dict(skipped=why) for mode in MODES if (why := skip_reason(path, n, mode))}
    for group in groups(path, n, [mode for mode in MODES if mode not in results]):
        results.update(lockstep(path, n, group))
    return {mode: results[mode] for mode in MODES}


def differences(got: dict, ref: dict) -> dict:
    """How a result differs from the reference's: the same likeliest token, the top logits (of their largest
    size) and the middle layer's attention rows of the last query (absolute: weights lie in 0..1)."""
    scale = max(abs(v) for v in ref["logits"])
    logit = max(abs(a - b) for a, b in zip(got["logits"], ref["logits"])) / scale
    pattern = float(np.abs(np.array(got["rows"]) - np.array(ref["rows"])).max())
    same = got["top"][0] == ref["top"][0]
    return dict(same_top=same, logit=logit, pattern=pattern,
                agree=same and logit <= LOGIT_RTOL and pattern <= PATTERN_ATOL)


def check(results: dict) -> dict:
    """Each result against transformers' (ours with every value where transformers did not run): reference, the
    differences by mode, the modes that failed, and ok (every comparison agreed and nothing failed)."""
    done = {mode: r for mode, r in results.items() if "top" in r}
    ref = next((mode for mode in ("transformers", "every") if mode in done), None)
    diffs = {mode: differences(r, done[ref]) for mode, r in done.items() if mode != ref}
    failed = [mode for mode, r in results.items() if "error" in r]
    return dict(reference=ref, diffs=diffs, failed=failed,
                ok=not failed and bool(diffs) and all(d["agree"] for d in diffs.values()))


def ratios(r: dict, ref: dict) -> dict:
    """A result's time and peak RSS over transformers', and what its forward added to the RSS once loaded (its peak
    during the forwards less its RSS before them) over transformers'."""
    own = (r["forward_peak_mb"] - r["loaded_mb"]) / max(ref["forward_peak_mb"] - ref["loaded_mb"], 1.0)
    time_ratio = r.get("time_ratio", r["time_s"] / ref["time_s"])  # the rounds' where it ran in lockstep with ref
    return dict(time=time_ratio, peak=r["peak_mb"] / ref["peak_mb"], own=own)


def goals_missed(row: dict) -> list[str]:
    """The goals a row misses: every value's time and peak RSS; a page's time from PAGE_TIME_FROM tokens on and
    peak RSS from PAGE_RSS_FROM on (ratios to transformers); [] where nothing is measured against them."""
    res, n, out = row["results"], row["tokens"], []
    if "time_s" not in res["transformers"]:
        return out
    wanted = [("every", "time", TIME_GOAL), ("every", "peak", RSS_GOAL)]
    wanted += [("page", "time", PAGE_TIME_GOAL)] if n >= PAGE_TIME_FROM else []
    wanted += [("page", "peak", PAGE_RSS_GOAL)] if n >= PAGE_RSS_FROM else []
    for mode, key, goal in wanted:
        x = ratios(res[mode], res["transformers"])[key] if "time_s" in res[mode] else 0.0
        if x > goal:
            out.append(f"{MODE_NAMES[mode]}: {key} {x:.2f}× > {goal:.1f}×")
    return out


def passed(row: dict) -> bool:
    """Nothing failed, and every comparison agreed (a row of one result has nothing to compare)."""
    return row["check"]["ok"] or not (row["check"]["diffs"] or row["check"]["failed"])


def row(spec: Spec, path: Path, n: int) -> dict:
    results = measure_row(path, n)
    out = dict(model=spec.name, label=spec.label, tokens=n, results=results)
    return dict(out, check=check(results), missed=goals_missed(out))


# ----- a cold start to the first chart -------------------------------------------------------------------

ERROR = '[data-testid="stException"], [data-testid="stAlertContentError"]'


def first_chart_or_error(p, address: str, started: float) -> tuple[float | None, float, str]:
    """(seconds from `started`, a time.monotonic(), to the first chart drawn, or None; seconds to the navigation's
    start; why there is no chart). The chart's moment is on the page's own clock (bench.browser.FIRST_CHART), added
    to our clock's at the navigation's start: the page's clock starts a little later, so this errs long by that."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    p.add_init_script(br.FIRST_CHART)
    navigation = time.monotonic() - started
    p.goto(address, wait_until="commit")
    try:
        p.wait_for_selector(f"{br.CHART}, {ERROR}", timeout=CHART_TIMEOUT_S * 1000)
    except PlaywrightTimeout:
        return None, navigation, f"no chart within {CHART_TIMEOUT_S} s of opening the page"
    first = p.evaluate("() => window.__firstChart")
    if first is None:
        shown = " ".join(p.locator(ERROR).first.inner_text().split())
        return None, navigation, "the page showed an error: " + shown[:300]
    return navigation + first / 1000, navigation, ""


def cold_start(b, spec: Spec, path: Path, n: int) -> dict:
    """`python -m viz_app.cli --model FOLDER --serve` started as a user starts it (127.0.0.1, no usage statistics:
    the cli's own flags), the explorer opened in a fresh browser context on a text of n tokens with bos: seconds
    from the process's start to the first chart, the server's peak and final RSS; stopped by its PID."""
    text, port = text_of(path, n - 1), br.free_port()
    base = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATTENTION_VIZ_") and k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryFile() as log:
        started = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "viz_app.cli", "--model", str(path), "--serve", "--port",
                                 str(port), "--server.headless", "true", "--server.fileWatcherType", "none"],
                                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            br.wait_healthy(base, proc)
            up_s = time.monotonic() - started
            ctx = b.new_context()
            try:
                address = br.url(base, "explorer", path.name, text)
                first_s, navigation_s, why = first_chart_or_error(ctx.new_page(), address, started)
            finally:
                ctx.close()
            peak, rss = br.rss_mb(proc.pid, "VmHWM"), br.rss_mb(proc.pid)
        finally:
            br.stop(proc)
    return dict(model=spec.name, label=spec.label, tokens=n, first_s=first_s, up_s=up_s, navigation_s=navigation_s,
                why=why, peak_mb=peak, rss_mb=rss, goal_s=spec.chart_goal_s)


def cold_starts(specs, paths, n: int) -> list[dict]:
    """Each model's cold start in turn, one browser launched before any (a user's is open already)."""
    why = br.missing()
    if why:
        return [dict(model=s.name, label=s.label, tokens=n, first_s=None, why=why, goal_s=s.chart_goal_s)
                for s in specs]
    out = []
    for package in ("viz_app", "core_model", "app_pages"):  # the bytecode a user's first start leaves behind
        compileall.compile_dir(ROOT / package, quiet=1)
    with br.browser() as b:
        for spec, path in zip(specs, paths):
            print(f"[real size] {spec.name}: cold start, {n} tokens …", file=sys.stderr, flush=True)
            try:
                out.append(cold_start(b, spec, path, n))
            except Exception as e:  # noqa: BLE001 - reported in its row; the other models still run
                out.append(dict(model=spec.name, label=spec.label, tokens=n, first_s=None, goal_s=spec.chart_goal_s,
                                why=f"{type(e).__name__}: {' '.join(str(e).split())[:300]}"))
    return out


def bench_real_size(specs=SPECS, sizes=SIZES, charts: bool = True, chart_tokens: int = CHART_TOKENS) -> dict:
    """Every row (each spec at each of `sizes` its positions allow) and, with `charts`, each spec's cold start."""
    paths = folders(specs)
    rows = [row(spec, path, n) for spec, path in zip(specs, paths) for n in sizes if n <= dims(path)["positions"]]
    return dict(rows=rows, starts=cold_starts(specs, paths, chart_tokens) if charts else [],
                on_demand=on_demand_built())


# ----- BENCHMARKS.md: section 10 and its target rows ------------------------------------------------------

HEAD = "## 10. Models at their real sizes: our traced forward vs transformers, and a cold start"
SECTION_TEXT = (
    "Random weights at the real shapes of GPT-2 small (124M), SmolLM2-135M (Llama, 9 query heads sharing 3 key/value "
    "heads) and Qwen2-0.5B (14 sharing 2), built by transformers in bfloat16 and saved with `save_pretrained` "
    "(`bench/real_size.py`), imported by our importers. Four kinds, each in a fresh child process of its own "
    "(`python -m bench.real_size --child …`), torch on 2 threads, glibc's malloc thresholds set alike in every "
    "child (32 MiB and 64 MiB, `core_model/trace/heap.py`: left to move with what a process has freed, they changed "
    "a forward's time by over 10 %), the same ids (bos + a sentence repeated): transformers' "
    "AutoModelForCausalLM (eager attention, `output_attentions=True`, float32), and our "
    "`run_with_trace` keeping every value, only `*.pattern`, and what a page draws (`page_draw`: `on_demand=True`, "
    "every layer's pooled pattern and one middle layer's every value). Time: the forward's wall time. The four "
    "children of a row are loaded one after another and kept alive (as many at once as the memory available holds "
    "by their estimates), each takes a first forward, then they take one forward each in turn, one child at a time, "
    "each round starting with the next kind: 3 to 25 rounds, as many as fit in 20 s (the column \"times taken in "
    "lockstep\"). The time is the median over the rounds, and its ratio the median of its ratios to transformers' "
    "in the same round, so a host that slows down or speeds up meanwhile (a shared machine: the same forward took "
    "0.19 s and 0.25 s on one afternoon) moves both alike. The first forward pays what a process pays once (memory "
    "touched for the first time), and its times are in the column after. A trace keeping every value keeps each "
    "layer's input and attention weights and the logits; the rest is computed again from them when read, bit for "
    "bit as the forward made it (`core_model/trace/hook_points.py`): the last column is the seconds its every value "
    "takes to read once, one at a time and none held, but the three score steps, after a last forward (not in the "
    "peaks). Peak RSS: the child's `ru_maxrss`, the "
    "whole process (Python, the libraries, the model's load and the forward; † where the load's peak was the "
    "higher): the ratios in bold use it. In brackets, what the forward adds: its own peak (the high-water mark "
    "started again once the model is loaded, `/proc/self/clear_refs`) less the RSS once loaded, over transformers' "
    "same. Check: the last position's likeliest token and top-5 logits (within 1e-4 of the largest) and every "
    "head's attention row of the last query in the middle layer (within 1e-4) equal transformers' (ours with every "
    "value's, where transformers did not run). A combination whose estimated peak is over 80 % of the memory "
    "available is skipped, saying so; GPT-2 reads 1,024 positions, so it has no 2,048 row. Goals (issue 36): every "
    "value ≤ 1.0× the time and ≤ 1.2× the peak RSS; what a page draws ≤ 0.7× the time from 1,024 tokens on and "
    "≤ 0.3× the peak RSS at 2,048.")
STARTS_TEXT = (
    "Cold start: `python -m viz_app.cli --model FOLDER --serve` started as a user starts it (the browser already "
    "open), the explorer opened on a text of that many of the model's tokens (bos included): seconds from the "
    "server process's start to the first chart drawn (bench.browser's page-clock moment, added to ours at the "
    "navigation's start). The server starts as on a user's machine, where Python keeps the bytecode it compiles "
    "(this machine's environment sets PYTHONDONTWRITEBYTECODE: the server runs without it, the app's modules "
    "compiled once before the first start). Goals (issue 36): the 135M model's ≤ 10 s, the 0.5B model's ≤ 30 s; "
    "GPT-2 small, of the same size as the 135M, is held to its goal.")
GIB_MB = 1024


def cell(r: dict, ref: dict) -> str:
    """A mode's cell: its time and peak, and their ratios to transformers' (what the forward adds, in brackets)."""
    if "skipped" in r or "error" in r:
        return f"skipped: {r['skipped']}" if "skipped" in r else f"✗ failed: {r['error']}"
    load = "†" if r["load_peak_mb"] >= r["forward_peak_mb"] else ""
    own = f"{r['time_s']:.2f} s, {r['peak_mb'] / GIB_MB:.2f} GiB{load}"
    if "time_s" not in ref:
        return own + ": no ratio (transformers not measured)"
    x = ratios(r, ref)
    return f"{own}: **{x['time']:.2f}×** · **{x['peak']:.2f}×** ({x['own']:.2f}×)"


def tf_cell(r: dict) -> str:
    if "time_s" not in r:
        return cell(r, r)
    load = "†" if r["load_peak_mb"] >= r["forward_peak_mb"] else ""
    return f"{r['time_s']:.2f} s, {r['peak_mb'] / GIB_MB:.2f} GiB{load} ({r['loaded_mb'] / GIB_MB:.2f})"


def check_cell(c: dict) -> str:
    if c["failed"]:
        return f"✗ FAILED ({', '.join(c['failed'])} did not run)"
    if not c["diffs"]:
        return "— (one result: nothing to compare)"
    worst_of = {key: max(d[key] for d in c["diffs"].values()) for key in ("logit", "pattern")}
    same = "same likeliest token" if all(d["same_top"] for d in c["diffs"].values()) else "another likeliest token"
    return (yes(c["ok"]) + f" against {MODE_NAMES[c['reference']].split(',')[0]}: {same}, "
            f"logits {worst_of['logit']:.0e}, patterns {worst_of['pattern']:.0e}")


def rounds_cell(row: dict) -> str:
    """How the times were taken: each group of kinds run in lockstep and its rounds; a kind alone."""
    said = {}
    for mode in MODES:
        r = row["results"][mode]
        if "time_s" in r:
            group = tuple(r.get("together", [mode]))
            said[group] = f"{r['rounds']} rounds" if "rounds" in r else "alone"
    return "; ".join(f"{', '.join(group)}: {how}" for group, how in said.items()) or "—"


def read_cell(row: dict) -> str:
    r = row["results"]["every"]
    return f"{r['read_s']:.2f}" if "read_s" in r else "—"


def first_cell(row: dict) -> str:
    """Each mode's first forward, in seconds (MODES' order; — where it did not run)."""
    return " / ".join(f"{r['first_s']:.2f}" if "first_s" in r else "—" for r in map(row["results"].get, MODES))


def goals_cell(row: dict) -> str:
    if "time_s" not in row["results"]["transformers"]:
        return "not measured"
    return "not met: " + "; ".join(row["missed"]) if row["missed"] else "met"


def start_row(s: dict) -> list:
    first = "—" if s["first_s"] is None else f"{s['first_s']:.1f}"
    detail = (f"server up {s['up_s']:.1f} s, page opened at {s['navigation_s']:.1f} s; server RSS peak "
              f"{s['peak_mb'] / GIB_MB:.2f} GiB, {s['rss_mb'] / GIB_MB:.2f} GiB after") if "up_s" in s else ""
    met = None if s["first_s"] is None else s["first_s"] <= s["goal_s"]
    return [s["label"], f"{s['tokens']:,}", first, f"≤ {s['goal_s']:g} s", verdict(met), detail, s["why"]]


def section(result: dict | None, why: str = "") -> list[str]:
    out = [HEAD, "", SECTION_TEXT, ""]
    if not result:
        return out + [f"not measured: {why or 'see the failures below'}", ""]
    out += table(["model", "tokens", "transformers: time, peak RSS (once loaded)", MODE_NAMES["every"],
                  MODE_NAMES["patterns"], MODE_NAMES["page"], "check", "goals", "times taken in lockstep",
                  "first forward s: transformers / every value / patterns / page", "every value read once, s"],
                 [[r["label"], f"{r['tokens']:,}", tf_cell(r["results"]["transformers"]),
                   *(cell(r["results"][m], r["results"]["transformers"]) for m in MODES[1:]),
                   check_cell(r["check"]), goals_cell(r), rounds_cell(r), first_cell(r), read_cell(r)]
                  for r in result["rows"]])
    if result["starts"]:
        out += [STARTS_TEXT, ""] + table(["model", "tokens", "first chart s", "goal", "verdict",
                                          "where the time went", "why no chart"],
                                         [start_row(s) for s in result["starts"]])
    return out


def measured(rows: list[dict], mode: str, key: str, since: int = 0) -> list[tuple[float, str]]:
    """(ratio to transformers, 'model, N') of each row from `since` tokens on where both ran, the largest first."""
    got = [(ratios(r["results"][mode], r["results"]["transformers"])[key], f"{r['label']}, {r['tokens']:,}")
           for r in rows if r["tokens"] >= since and "time_s" in r["results"][mode]
           and "time_s" in r["results"]["transformers"]]
    return sorted(got, reverse=True)


TARGETS = (  # (mode, ratio, goal, from how many tokens, the target's name)
    ("every", "time", TIME_GOAL, 0, "real sizes: traced forward, every value, time vs transformers"),
    ("every", "peak", RSS_GOAL, 0, "real sizes: traced forward, every value, peak RSS vs transformers"),
    ("page", "time", PAGE_TIME_GOAL, PAGE_TIME_FROM, "real sizes: what a page draws, time vs transformers, 1,024 "
     "tokens and more"),
    ("page", "peak", PAGE_RSS_GOAL, PAGE_RSS_FROM, "real sizes: what a page draws, peak RSS vs transformers, 2,048 "
     "tokens"))


def targets(result: dict | None) -> list[list]:
    """The Targets table's rows: each ratio's worst case against its goal, and each cold start against its own."""
    rows, out = (result or {}).get("rows", []), []
    checked = all(passed(r) for r in rows)
    for mode, key, goal, since, what in TARGETS:
        got = measured(rows, mode, key, since)
        met = None if not got else got[0][0] <= goal and checked
        over = [f"{x:.2f}× ({where})" for x, where in got if x > goal]
        why = ("" if met in (None, True) else "a check failed (table 10)" if not checked
               else "over on " + "; ".join(over))
        out.append([what, f"≤ {goal:.1f}×", ", ".join(f"{x:.2f}× ({where})" for x, where in got[:3]) or "—",
                    verdict(met), why])
    for s in (result or {}).get("starts", []):
        first = s["first_s"]
        out.append([f"real sizes: cold start to the first chart, {s['label']}, {s['tokens']:,} tokens",
                    f"≤ {s['goal_s']:g} s", "—" if first is None else f"{first:.1f} s",
                    verdict(None if first is None else first <= s["goal_s"]), s["why"]])
    return out


# ----- the command line ----------------------------------------------------------------------------------

def options(quick: bool = False, models=None, tokens=None, charts: bool = True) -> dict:
    """bench_real_size's arguments: --quick is GPT-2 at 128 tokens, its cold start too; else the models and lengths
    named (all by default)."""
    if quick:
        return dict(specs=SPECS[:1], sizes=(128,), charts=charts, chart_tokens=128)
    return dict(specs=tuple(BY_NAME[m] for m in models) if models else SPECS, sizes=tuple(tokens or SIZES),
                charts=charts, chart_tokens=CHART_TOKENS)


def parse_args(argv):
    import argparse

    ap = Parser(prog="python -m bench.real_size", description=__doc__,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="GPT-2 at 128 tokens only, and its cold start at 128 tokens")
    ap.add_argument("--model", action="append", choices=list(BY_NAME), help="only this model (again for more)")
    ap.add_argument("--tokens", action="append", type=whole(2, max(SIZES)), help="only this length (again for more)")
    ap.add_argument("--no-charts", action="store_true", help="leave out the cold starts to the first chart")
    ap.add_argument("--child", nargs=3, metavar=("MODE", "FOLDER", "TOKENS"), help=argparse.SUPPRESS)
    ap.add_argument("--build", choices=list(BY_NAME), help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def main(argv=None) -> int:
    """The section and its target rows printed; 1 when a check failed (a goal missed is not a failure)."""
    args = parse_args(argv)
    if args.child:  # one kind: a forward per "go" line read, its result on the line the parent reads
        mode, path, n = args.child
        print("RESULT " + json.dumps(child(mode, Path(path), int(n))), flush=True)
        return 0
    if args.build:
        folder(BY_NAME[args.build])
        return 0
    result = bench_real_size(**options(args.quick, args.model, args.tokens, not args.no_charts))
    print("\n".join(section(result) + table(["target", "goal", "measured", "verdict", "why not met"],
                                            targets(result))))
    return 0 if all(passed(r) for r in result["rows"]) else 1


if __name__ == "__main__":
    sys.exit(main())
