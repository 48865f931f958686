"""Model-level benchmarks: traced vs untraced forward, cached vs recomputed decoding.

Each function returns rows of measured numbers together with the check of what it timed, so a
fast wrong answer shows up as a failed check, never as a good number.
"""
from __future__ import annotations

import dataclasses
import statistics
import time
from pathlib import Path

import torch

from core_model import checkpoint
from core_model.decoding import greedy
from core_model.model import Transformer
from core_model.trace import as_batch, run_with_trace

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "assets" / "models"
SENTENCE = {"translate-en-fr": "the small girl does not see the red car and the old man sees the big dog",
            "lm-en": "the old man sees the small girl and the red car"}


def median_ms(fn, repeats: int, warmup: int = 1) -> float:
    """Median wall time of fn() in milliseconds over `repeats` calls, after `warmup` calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


_LOADED: dict = {}


def load(name: str):
    if name not in _LOADED:
        _LOADED[name] = checkpoint.load(MODELS / name)
    return _LOADED[name]


def ids_of_length(tokenizer, text: str, n: int) -> list[int]:
    """The text's ids repeated and cut to exactly n tokens."""
    base = tokenizer.encode(text)
    return (base * (n // len(base) + 1))[:n]


def forward_inputs(name: str, n: int):
    """(src, tgt) id lists for n source tokens: the translator reads n tokens and its own greedy output;
    the decoder-only model reads <s> + n - 1 prompt tokens (n decoder tokens in all)."""
    loaded = load(name)
    cfg = loaded.config
    if cfg.architecture == "encoder-decoder":
        src = ids_of_length(loaded.tokenizers["src"], SENTENCE[name], n)
        out = greedy(loaded.model, src, max_len=cfg.max_len - 1).ids
        return src, [cfg.bos_id, *out]
    return None, [cfg.bos_id, *ids_of_length(loaded.tokenizers["tgt"], SENTENCE[name], n - 1)]


def forward_model_for(n: int) -> str:
    """The default translator while n fits its max_len (64), else the ALiBi LM (max_len 512)."""
    return "translate-en-fr" if n < load("translate-en-fr").config.max_len else "lm-en"


def bench_forward(sizes=(8, 32, 128, 512), repeats: int = 20, models=None) -> list[dict]:
    """Median ms of run_with_trace vs the plain model under no_grad; checks torch.equal of the outputs."""
    rows = []
    for n in sizes:
        name = (models or {}).get(n) or forward_model_for(n)
        model = load(name).model
        src, tgt = forward_inputs(name, n)
        s, t = as_batch(src), as_batch(tgt)

        def plain():
            with torch.no_grad():
                return model(s, t)

        def traced():
            return run_with_trace(model, src, tgt)

        traced_out, trace = traced()
        equal = torch.equal(traced_out, plain())
        # interleave the two so a neighbour's load hits both alike; medians of each
        t_ms, p_ms = [], []
        for _ in range(max(1, repeats // 5)):
            t_ms.append(median_ms(traced, 5, warmup=1))
            p_ms.append(median_ms(plain, 5, warmup=1))
        traced_ms, plain_ms = statistics.median(t_ms), statistics.median(p_ms)
        rows.append(dict(model=name, tokens=n, src_len=len(src or []), tgt_len=len(tgt or []),
                         traced_ms=traced_ms, plain_ms=plain_ms, ratio=traced_ms / plain_ms,
                         equal=equal, trace_values=len(trace), trace_mb=trace.nbytes / 2**20))
    return rows


def without_eos(name: str) -> Transformer:
    """A copy of a shipped model whose eos is an id it never picks, so greedy runs to max_len.

    The shipped LM ends most prompts within a few tokens; this measures 32 real steps. The
    weights are the shipped ones; only the config's eos_id (unused by the forward pass) differs.
    """
    cfg = load(name).config
    vocab = cfg.tgt_vocab_size
    unused = next(i for i in range(vocab - 1, 0, -1) if i not in (cfg.pad_id, cfg.unk_id, cfg.bos_id))
    model = Transformer(dataclasses.replace(cfg, eos_id=unused, dropout=0.0))
    model.load_state_dict(load(name).model.state_dict())
    return model.eval()


def bench_decoding(n_tokens: int = 32, repeats: int = 5, name: str = "lm-en", prompt: str = "the old man") -> dict:
    """Greedy decoding of n_tokens with and without the KV cache: per-step median ms; ids must agree."""
    model = without_eos(name)
    ids = load(name).tokenizers["tgt"].encode(prompt)
    cached = greedy(model, ids, max_len=n_tokens, use_cache=True)
    full = greedy(model, ids, max_len=n_tokens, use_cache=False)
    steps = len(cached.steps)
    c_ms, f_ms = [], []
    for _ in range(repeats):  # alternate so both see the same machine load
        c_ms.append(median_ms(lambda: greedy(model, ids, max_len=n_tokens, use_cache=True), 1, warmup=0))
        f_ms.append(median_ms(lambda: greedy(model, ids, max_len=n_tokens, use_cache=False), 1, warmup=0))
    cached_ms, full_ms = statistics.median(c_ms) / steps, statistics.median(f_ms) / steps
    return dict(model=f"{name} (eos suppressed)", prompt=prompt, prompt_tokens=len(ids), steps=steps,
                cached_ms=cached_ms, full_ms=full_ms, speedup=full_ms / cached_ms,
                same_ids=cached.ids == full.ids, ids=cached.ids, finished_by=cached.finished_by)
