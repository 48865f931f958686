"""One shipped model shared by many threads, as st.cache_resource shares it between sessions.

Eight threads trace and decode different sentences at once; every recorded value must equal,
bit for bit, what the same call gives on its own, and the shared model must come out untouched.
"""
from __future__ import annotations

import hashlib
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from core_model import checkpoints, decoding
from core_model.training.data import make_corpus
from core_model.trace import run_with_trace

MODEL = Path(__file__).resolve().parents[2] / "assets" / "models" / "translate-en-fr"
THREADS, PER_THREAD = 8, 50
DECODES_PER_THREAD = 4  # a greedy decode is ~12 forward passes


@pytest.fixture(scope="module")
def loaded():
    return checkpoints.load(MODEL)


@pytest.fixture(scope="module")
def inputs(loaded):
    """THREADS × PER_THREAD different (source ids, <s> + target ids) pairs from the toy grammar."""
    pairs = make_corpus(seed=7, n_train=THREADS * PER_THREAD, n_valid=0, n_test=0)["train"]
    src_tok, tgt_tok, bos = loaded.tokenizers["src"], loaded.tokenizers["tgt"], loaded.config.bos_id
    out = [(tuple(src_tok.encode(p.src)), (bos, *tgt_tok.encode(p.tgt))) for p in pairs]
    assert len({src for src, _ in out}) == len(out)
    return out


def fingerprint(model) -> dict:
    """What a traced call must never change: weights and buffers (hashed), hooks, attributes."""
    return {
        "tensors": {name: hashlib.sha256(t.detach().contiguous().numpy().tobytes()).hexdigest()
                    for name, t in model.state_dict(keep_vars=True).items()},
        "attributes": {path: sorted(vars(m)) for path, m in model.named_modules()},
        "hooks": sum(len(h) for m in model.modules() for h in (
            m._forward_hooks, m._forward_pre_hooks, m._backward_hooks, m._forward_hooks_with_kwargs)),
        "training": any(m.training for m in model.modules()),
    }


def in_threads(fn, jobs: list, threads: int = THREADS) -> tuple[list, int]:
    """Run fn(job) for every job in `threads` threads, job i in thread i % threads, so the threads'
    calls interleave. Returns the results in job order and the most calls seen running at once."""
    lanes = [list(range(k, len(jobs), threads)) for k in range(threads)]
    results: list = [None] * len(jobs)
    running, peak, lock = [0], [0], threading.Lock()
    start = threading.Barrier(threads, timeout=60)

    def lane(indices):
        start.wait()  # every thread starts its first call together
        for i in indices:
            with lock:
                running[0] += 1
                peak[0] = max(peak[0], running[0])
            results[i] = fn(jobs[i])
            with lock:
                running[0] -= 1

    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(lane, lanes))  # list() re-raises a thread's exception here
    return results, peak[0]


def test_traces_in_eight_threads_equal_their_single_threaded_results(loaded, inputs):
    model = loaded.model
    before = fingerprint(model)
    trace = lambda pair: run_with_trace(model, list(pair[0]), list(pair[1]))[1]  # noqa: E731
    alone = [trace(pair) for pair in inputs]
    together, peak = in_threads(trace, inputs)

    assert peak >= THREADS // 2, f"only {peak} traces ever ran at once: the threads did not overlap"
    assert len(together) == THREADS * PER_THREAD
    for i, (expected, got) in enumerate(zip(alone, together)):
        assert got.names == expected.names, f"sentence {i}: other names were recorded"
        for name in expected.names:
            assert got[name].shape == expected[name].shape, f"sentence {i}: {name} has another shape"
            assert np.array_equal(got[name], expected[name]), f"sentence {i}: {name} differs from its lone run"
    assert fingerprint(model) == before


def test_greedy_decoding_in_eight_threads_equals_its_single_threaded_results(loaded, inputs):
    model = loaded.model
    before = fingerprint(model)
    sources = [src for src, _ in inputs[:THREADS * DECODES_PER_THREAD]]
    decode = lambda src: decoding.greedy(model, list(src), max_len=30)  # noqa: E731
    alone = [decode(src) for src in sources]
    together, peak = in_threads(decode, sources)

    assert peak >= THREADS // 2, f"only {peak} decodes ever ran at once: the threads did not overlap"
    assert len({d.ids for d in alone}) > len(alone) // 2  # different sentences, mostly different outputs
    for i, (expected, got) in enumerate(zip(alone, together)):
        assert (got.ids, got.finished_by, got.log_prob) == (expected.ids, expected.finished_by, expected.log_prob), i
        assert len(got.steps) == len(expected.steps)
        for a, b in zip(expected.steps, got.steps):
            assert (b.prefix, b.top, b.chosen) == (a.prefix, a.top, a.chosen), f"sentence {i} step {a.index}"
            for field in ("logits", "self_attn", "cross_attn"):
                assert np.array_equal(getattr(b, field), getattr(a, field)), f"sentence {i} step {a.index}: {field}"
    assert fingerprint(model) == before
