"""Model-level benchmarks: traced vs untraced forward, cached vs recomputed decoding.

Each function returns rows of measured numbers together with the check of what it timed, so a
fast wrong answer shows up as a failed check, never as a good number.
"""
from __future__ import annotations

import dataclasses
import json
import math
import random
import statistics
import sys
import time
from pathlib import Path

import torch

from core_model import checkpoints
from core_model.decoding import greedy
from core_model.nn.model import Transformer
from core_model.training.tasks import held_out
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
        _LOADED[name] = checkpoints.load(MODELS / name)
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


def bench_forward(sizes=(8, 32, 128, 512), repeats: int = 20, models=None, min_s: float = 0.0) -> list[dict]:
    """Median ms of run_with_trace vs the plain model under no_grad; checks torch.equal of the outputs.

    Rounds of 5 calls each, interleaved, at least repeats // 5 of them and for at least `min_s` seconds per row: at
    32 tokens thirty calls take a tenth of a second, so one burst of a neighbour's load could cover a whole row.
    """
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

        def traced_and_read():  # a value becomes a numpy array on its first read: here every one is read
            trace = traced()[1]
            return [trace[name] for name in trace.names]

        traced_out, trace = traced()
        equal = torch.equal(traced_out, plain())
        # interleave them so a neighbour's load hits all alike; medians of each
        t_ms, p_ms, r_ms = [], [], []
        started = time.perf_counter()
        while len(t_ms) < max(1, repeats // 5) or time.perf_counter() - started < min_s:
            t_ms.append(median_ms(traced, 5, warmup=1))
            p_ms.append(median_ms(plain, 5, warmup=1))
            r_ms.append(median_ms(traced_and_read, 5, warmup=1))
        traced_ms, plain_ms = statistics.median(t_ms), statistics.median(p_ms)
        rows.append(dict(model=name, tokens=n, src_len=len(src or []), tgt_len=len(tgt or []),
                         traced_ms=traced_ms, plain_ms=plain_ms, ratio=traced_ms / plain_ms,
                         read_ms=statistics.median(r_ms),
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


def bench_decoding(n_tokens: int = 256, repeats: int = 5, name: str = "lm-en", prompt: str = "the old man") -> dict:
    """Greedy decoding of n_tokens with and without the KV cache: per-step median ms; ids must agree.

    256 tokens (prompt + 256 fits lm-en's max_len of 512): at 32 the prefix is too short for the
    O(L) work the cache saves to outweigh a step's fixed costs (Python dispatch, recording, top-k).
    """
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


BUCKETS = ((0, 512), (512, 1024), (1024, 2048))


def held_out_sentences(name: str) -> tuple[str, ...]:
    """The held-out test split of a task (seed 0), what `python -m core_model.training.evaluate` measures on."""
    return tuple(t for _, t, _ in held_out(name)["test"])


def long_text(name: str, length: int, seed: int, sentences=None) -> list[int]:
    """length + 1 ids of held-out text made long: <s>, then the task's test sentences (seed 0's
    split, shuffled by `seed`) one after another, each followed by </s>, cut to length + 1."""
    cfg, tokenizer = load(name).config, load(name).tokenizers["tgt"]
    sentences = list(held_out_sentences(name) if sentences is None else sentences)
    random.Random(seed).shuffle(sentences)
    ids = [cfg.bos_id]
    for sentence in sentences:
        ids += tokenizer.encode(sentence) + [cfg.eos_id]
        if len(ids) > length:
            return ids[:length + 1]
    raise ValueError(f"the test split has fewer than {length + 1} tokens")


def position_losses(model, ids: torch.Tensor) -> torch.Tensor:
    """ids [1, n + 1] → the next-token loss at each of the n input positions, float64."""
    with torch.no_grad():
        logits = model(None, ids[:, :-1])  # [1, n, vocab]
    return torch.nn.functional.cross_entropy(logits[0], ids[0, 1:], reduction="none").double()


def long_context_loss(name: str = "lm-en", length: int = 2048, buckets=BUCKETS, n_texts: int = 4,
                      window: int = 512, sentences=None) -> list[dict]:
    """Next-token loss by position bucket on held-out text `length` tokens long (see long_text).

    lm-en was trained with max_len 512 on single sentences (about a dozen tokens each) and reads up
    to cfg.max_positions with ALiBi; this shows whether the loss past 512 stays where it is before.
    Position i is the input position: the loss of predicting token i + 1 from tokens 0..i.
    `loss_window` is the control: the same predictions with the context restarted every `window`
    tokens (each window read on its own, as if the model could not read past it).
    """
    model = load(name).model
    full, windowed = [], []
    for seed in range(n_texts):
        ids = torch.tensor([long_text(name, length, seed, sentences)])
        full.append(position_losses(model, ids))
        windowed.append(torch.cat([position_losses(model, ids[:, lo:lo + window + 1]) for lo in range(0, length, window)]))
    full, windowed = torch.stack(full), torch.stack(windowed)  # [texts, length]
    rows = []
    for lo, hi in buckets:
        loss, control = float(full[:, lo:hi].mean()), float(windowed[:, lo:hi].mean())
        rows.append(dict(positions=f"{lo}–{hi - 1}", predictions=full[:, lo:hi].numel(), loss=loss,
                         perplexity=math.exp(loss), loss_window=control))
    return rows


def bench_long_trace(name: str = "lm-en", n: int = 2048, repeats: int = 3, sentences=None) -> list[dict]:
    """A traced forward of n tokens of held-out text, every value vs only the patterns: ms and MiB kept."""
    model = load(name).model
    ids = torch.tensor([long_text(name, n - 1, 0, sentences)])  # n tokens: <s> + n - 1
    modes = {"all values": None, "names='*.pattern'": "*.pattern"}
    times = {mode: [] for mode in modes}
    kept = {}
    for _ in range(repeats):  # interleaved; each trace is dropped before the next is made
        for mode, names in modes.items():
            t0 = time.perf_counter()
            _, trace = run_with_trace(model, None, ids, names=names)
            times[mode].append((time.perf_counter() - t0) * 1000)
            kept[mode] = (len(trace), trace.nbytes / 2**20, float(abs(trace[f"decoder.layers.{model.cfg.n_decoder_layers - 1}.self_attn.pattern"].sum(-1) - 1).max()))
            del trace
    return [dict(model=name, tokens=n, mode=mode, ms=statistics.median(times[mode]), values=kept[mode][0],
                 trace_mb=kept[mode][1], row_sum_error=kept[mode][2]) for mode in modes]


def bench_sweep(names=("translate-en-fr", "lm-en"), n: int = 32, repeats: int = 3) -> list[dict]:
    """The decoding page's knock-out sweep (core_model.interventions.sweep: each head removed alone, the greedy
    output scored again) on n source or prompt tokens, against one traced forward pass of the same input: seconds,
    and their ratio. Checks: every head tried, and the drops the same in every repeat."""
    from core_model.interventions import blocks, sweep

    rows = []
    for name in names:
        model = load(name).model
        src, tgt = forward_inputs(name, n)  # the translator's tgt: <s> and its greedy output
        prompt = src if src is not None else tgt[1:]  # a decoder-only model's prompt, without its <s>
        out = greedy(model, prompt, max_len=model.cfg.max_len - 1 - (len(tgt) if src is None else 0))
        ended, read = out.finished_by == "eos", tgt if src is not None else [*tgt, *out.ids]
        runs, times = [], []
        for _ in range(repeats):
            started = time.perf_counter()
            runs.append(sweep(model, prompt, out.ids, ended))
            times.append(time.perf_counter() - started)
        forward_ms = median_ms(lambda: run_with_trace(model, src, read), 5, warmup=1)
        heads = sum(layers * h for _, layers, h in blocks(model))
        same = all(all(torch.equal(torch.as_tensor(r[0][b]), torch.as_tensor(runs[0][0][b])) for b in r[0])
                   for r in runs)
        rows.append(dict(model=name, tokens=n, output=len(out.ids), heads=heads, sweep_s=statistics.median(times),
                         forward_ms=forward_ms, ratio=statistics.median(times) * 1000 / forward_ms,
                         done=all(r[1] for r in runs), same=same))
    return rows


if __name__ == "__main__":  # python -m bench.core long-context: the numbers of lm-en's card
    torch.set_num_threads(1)
    if sys.argv[1:] == ["long-context"]:
        print(json.dumps(long_context_loss(), indent=2))
    else:
        raise SystemExit("usage: python -m bench.core long-context")
