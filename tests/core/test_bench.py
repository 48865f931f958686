"""Smoke test of the benchmark functions on tiny sizes: the values they return are right (never timings)."""
import math

import pytest
import torch

from bench import core, run


@pytest.fixture(autouse=True)
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def test_forward_rows_hold_equal_outputs_and_consistent_numbers():
    rows = core.bench_forward(sizes=(4, 8), repeats=1, models={8: "lm-en"})
    assert [(r["model"], r["tokens"]) for r in rows] == [("translate-en-fr", 4), ("lm-en", 8)]
    assert all(r["equal"] for r in rows)
    assert rows[0]["src_len"] == 4 and rows[0]["tgt_len"] >= 1
    assert rows[1]["src_len"] == 0 and rows[1]["tgt_len"] == 8
    for r in rows:
        assert r["traced_ms"] > 0 and r["plain_ms"] > 0
        assert math.isclose(r["ratio"], r["traced_ms"] / r["plain_ms"])
        assert r["trace_values"] > 0


def test_forward_model_switches_to_the_long_context_lm_past_max_len():
    assert core.forward_model_for(32) == "translate-en-fr"
    assert core.forward_model_for(128) == "lm-en"
    src, tgt = core.forward_inputs("lm-en", 128)
    assert src is None and len(tgt) == 128


def test_decoding_runs_every_step_and_both_paths_agree():
    r = core.bench_decoding(n_tokens=4, repeats=1)
    assert r["steps"] == 4 and len(r["ids"]) == 4 and r["finished_by"] == "max_len"
    assert r["same_ids"]
    assert math.isclose(r["speedup"], r["full_ms"] / r["cached_ms"])


def test_eos_suppressed_copy_keeps_the_shipped_weights():
    model = core.without_eos("lm-en")
    shipped = core.load("lm-en").model
    assert model.cfg.eos_id != shipped.cfg.eos_id
    ids = torch.tensor([[2, 5, 6, 7]])
    with torch.no_grad():
        assert torch.equal(model(None, ids), shipped(None, ids))


def test_sentence_of_hits_the_token_count_and_pages_come_from_app_py():
    from bench import pages

    text, n = pages.sentence_of("translate-en-fr", 32)
    assert n == 32 and len(core.load("translate-en-fr").tokenizers["src"].encode(text)) == 32
    paths = pages.page_paths()
    assert ("app_pages/explorer.py", "explorer") in paths and len(paths) == 9


def test_card_training_time_and_targets_verdicts():
    seconds, date, line = run.card_training_time()
    assert seconds.isdigit() and date[:2] == "20" and "measured" in line
    fwd = [dict(tokens=32, traced_ms=5.0, plain_ms=4.5, ratio=5.0 / 4.5, equal=True)]
    dec = dict(steps=32, speedup=1.5, same_ids=True)
    _, rows = run.section_targets(fwd, dec, [], [], None)
    verdicts = {r[0]: r[3] for r in rows}
    assert verdicts["traced forward, 32 tokens"] == "met"
    assert verdicts["tracing overhead, 32 tokens"] == "met"
    assert verdicts["cached decoding vs recompute, 32 tokens"] == "not met"
    assert verdicts["first chart after navigation"] == "not measured"
    # a fast but wrong forward pass does not pass
    fwd[0]["equal"] = False
    _, rows = run.section_targets(fwd, dec, [], [], None)
    assert {r[0]: r[3] for r in rows}["traced forward, 32 tokens"] == "not met"


def test_minilm_rows_compare_the_same_ids_and_agree_with_transformers():
    from bench.bert import SIZES, bench_bert

    assert SIZES == (32, 128, 512)  # the full run's lengths; 512 is MiniLM's longest
    rows = bench_bert(repeats=1, sizes=(32, 128))
    assert [r["tokens"] for r in rows] == [32, 128]
    assert all(r["agree"] and r["max_error"] <= 1e-5 and r["filtered_same_patterns"] for r in rows)
    assert all(math.isclose(r["ratio"], r["ours_ms"] / r["transformers_ms"]) for r in rows)
    assert all(math.isclose(r["filtered_ratio"], r["filtered_ms"] / r["transformers_ms"]) for r in rows)
    assert all(r["filtered_values"] == 6 and r["filtered_trace_mb"] < r["trace_mb"] for r in rows)
    lines = run.section_bert(rows)
    assert sum(line.startswith("|") for line in lines) == 2 + len(rows)  # header, rule, one row per length


def test_decoding_bench_measures_256_tokens_by_default():
    import inspect

    assert inspect.signature(core.bench_decoding).parameters["n_tokens"].default == 256


def test_long_context_rows_bucket_the_loss_by_position(shipped_test_split):
    # A miniature of `python -m bench.core long-context` (lm-en's card): 64 tokens, two buckets.
    sentences = [t for _, t, _ in shipped_test_split("lm-en")]
    rows = core.long_context_loss(length=64, buckets=((0, 32), (32, 64)), n_texts=1, window=32, sentences=sentences)
    assert [r["positions"] for r in rows] == ["0–31", "32–63"] and [r["predictions"] for r in rows] == [32, 32]
    assert all(0 < r["loss"] < 10 and math.isclose(r["perplexity"], math.exp(r["loss"])) for r in rows)
    assert rows[0]["loss_window"] == rows[0]["loss"]  # the first window is the same context
    ids = core.long_text("lm-en", 64, 0, sentences)
    assert len(ids) == 65 and ids[0] == core.load("lm-en").config.bos_id


def test_long_trace_rows_compare_all_values_with_the_patterns(shipped_test_split):
    rows = core.bench_long_trace(n=64, repeats=1, sentences=[t for _, t, _ in shipped_test_split("lm-en")])
    assert [r["mode"] for r in rows] == ["all values", "names='*.pattern'"]
    assert rows[1]["values"] == 3 and rows[1]["trace_mb"] < rows[0]["trace_mb"]
    assert all(r["row_sum_error"] < 1e-5 for r in rows)
