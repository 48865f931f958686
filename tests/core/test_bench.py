"""Smoke test of the benchmark functions on tiny sizes: the values they return are right (never timings)."""
import math

import pytest
import torch

from bench import core, run
from viz_app.registry import NAMES


pytestmark = pytest.mark.usefixtures("one_thread")  # tests/core/conftest.py


def test_forward_rows_hold_equal_outputs_and_consistent_numbers():
    rows = core.bench_forward(sizes=(4, 8), repeats=1, models={8: "lm-en"})
    assert [(r["model"], r["tokens"]) for r in rows] == [("translate-en-fr", 4), ("lm-en", 8)]
    assert all(r["equal"] for r in rows)
    assert rows[0]["src_len"] == 4 and rows[0]["tgt_len"] >= 1
    assert rows[1]["src_len"] == 0 and rows[1]["tgt_len"] == 8
    for r in rows:
        assert r["traced_ms"] > 0 and r["plain_ms"] > 0 and r["read_ms"] > 0
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


def test_the_sweep_rows_try_every_head_and_time_one_forward_beside_them():
    rows = core.bench_sweep(n=8, repeats=1)
    assert [(r["model"], r["heads"]) for r in rows] == [("translate-en-fr", 36), ("lm-en", 12)]
    assert all(r["done"] and r["same"] and r["output"] > 0 for r in rows)
    assert all(math.isclose(r["ratio"], r["sweep_s"] * 1000 / r["forward_ms"]) and r["ratio"] > 1 for r in rows)


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
    assert paths == [(f"app_pages/{name}.py", name) for name in NAMES]  # every page of the registry, in its order


def test_card_training_time_and_targets_verdicts():
    seconds, date, line = run.card_training_time()
    assert seconds.isdigit() and date[:2] == "20" and "measured" in line
    fwd = [dict(tokens=32, traced_ms=5.0, plain_ms=4.5, ratio=5.0 / 4.5, equal=True)]
    dec = dict(steps=32, speedup=1.5, same_ids=True, cached_ms=2.0, full_ms=3.0)
    _, rows = run.section_targets(fwd, dec, [], [], None)
    verdicts = {r[0]: r[3] for r in rows}
    assert verdicts["traced forward, 32 tokens"] == "met"
    assert verdicts["tracing overhead, 32 tokens"] == "met"
    assert verdicts["cached decoding vs recompute, 32 tokens"] == "not met"
    assert verdicts["first chart opening a link in a fresh browser"] == "not measured"
    assert verdicts["first chart after a sidebar link"] == "not measured"
    goals = {r[0]: r[1] for r in rows}
    assert goals["first chart opening a link in a fresh browser"] == "≤ 2 s" and goals["re-render after Enter"] == "≤ 400 ms"
    assert goals["first chart after a sidebar link"] == "≤ 2 s"
    runs = dict(before_mb=600, peak_mb=700, after_mb=680, points=40, ok=True)  # the first run loads 80 MiB
    live = {r[0]: r for r in run.live_targets(dict(runs, wall_s=30.0, after_runs=[680, 690]))}
    assert live["train one live: wall time; server memory a further run leaves"][3] == "met"
    slow = run.live_targets(dict(runs, wall_s=75.0, after_runs=[680, 690]))
    assert slow[0][3] == "not met" and "time" in slow[0][4]
    leaky = run.live_targets(dict(runs, wall_s=30.0, after_runs=[680, 790]))
    assert leaky[0][3] == "not met" and "+110 MiB" in leaky[0][2] and "leaves memory behind" in leaky[0][4]
    assert verdicts["fragment rerun, server (a control that changes one chart)"] == "not measured"
    assert verdicts["every websocket message (largest frame, every page)"] == "not measured"
    assert any(r[0].startswith("a class on one server") and r[3] == "not measured" for r in rows)
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
    assert f"{rows[1]['transformers_faults']:,.0f} / {rows[1]['ours_faults']:,.0f} /" in lines[-2]  # the 128 row
    assert lines[-2].startswith(f"| 128 | {rows[1]['transformers_ms']:.2f} | {rows[1]['plain_ms']:.2f} | ")
    assert sum(line.startswith("|") for line in lines) == 2 + len(rows)  # header, rule, one row per length


def test_gpt2_rows_time_a_folder_core_model_imports_and_agree_with_transformers():
    """A smaller GPT-2 than the full run's 124M (2 layers, a 600-token vocabulary) through the same code."""
    from bench.gpt2 import SIZES, bench_gpt2

    assert SIZES == (128, 512)
    rows = bench_gpt2(repeats=1, sizes=(16,), n_layer=2, n_head=2, n_embd=32, vocab_size=600)
    assert [r["tokens"] for r in rows] == [16] and rows[0]["parameters"] == 2 * 12_704 + 600 * 32 + 1024 * 32 + 64
    assert rows[0]["agree"] and rows[0]["max_error"] <= 1e-4
    assert math.isclose(rows[0]["ratio"], rows[0]["ours_ms"] / rows[0]["transformers_ms"])
    lines = run.section_gpt2(rows)
    assert sum(line.startswith("|") for line in lines) == 3


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


def minilm_row(tokens, ratio, filtered_ratio, agree=True):
    return dict(tokens=tokens, ours_ms=ratio * 10, plain_ms=9.5, transformers_ms=10.0, ratio=ratio,
                filtered_ms=filtered_ratio * 10, filtered_ratio=filtered_ratio,
                max_error=1e-6, agree=agree, filtered_same_patterns=agree, values=95,
                filtered_values=6, filter="*.pattern", trace_mb=50.0, filtered_trace_mb=5.0, work_bound=0.864,
                ours_faults=9000.0, filtered_faults=300.0, transformers_faults=4000.0)


def test_the_work_bound_counts_the_multiply_adds_the_patterns_need():
    from types import SimpleNamespace

    from bench.bert import work_bound

    cfg = SimpleNamespace(d_model=384, d_ff=1536, n_encoder_layers=6)  # all-MiniLM-L6-v2
    n = 128
    maps = 4 * 128 * 384 * 384  # Q, K, V, O: 75,497,472
    ffn = 2 * 128 * 384 * 1536  # 150,994,944
    products = 2 * 128 * 128 * 384  # QKᵀ and the pattern times V: 12,582,912
    layer = maps + ffn + products  # 239,075,328
    needed = 5 * layer + maps // 2 + products // 2  # the last layer: Q and K maps, QKᵀ
    assert needed == 1_239_416_832 and 6 * layer + 384 * 384 == 1_434_599_424
    assert math.isclose(work_bound(cfg, n), 1_239_416_832 / 1_434_599_424)  # 0.864
    # longer inputs weigh attention's n² products more, and the last layer still needs half of them
    assert work_bound(cfg, 512) > work_bound(cfg, 128)


def test_minilm_targets_hold_both_goals_and_a_wrong_answer_fails_them():
    rows = run.minilm_targets([minilm_row(32, 0.9, 0.7), minilm_row(512, 1.2, 0.95)])
    assert [(r[1], r[3]) for r in rows] == [("≤ 1.0×", "not met"), ("≤ 0.8×", "not met")]
    assert rows[0][4].startswith("at 512 tokens ours takes 2.0 ms more: untraced, 9.50 ms against transformers' "
                                 "10.00 (0.95×), and the trace adds 2.5 ms keeping 95 values, 50 MiB, alive")
    assert "page faults per call: ours 9,000, transformers 4,000" in rows[0][4]
    assert "0.95× at 512 tokens, where the work bound is 0.864×" in rows[1][4]
    rows = run.minilm_targets([minilm_row(32, 0.9, 0.7)])
    assert [r[3] for r in rows] == ["met", "met"]
    assert [r[3] for r in run.minilm_targets([minilm_row(32, 0.9, 0.7, agree=False)])] == ["not met", "not met"]
    lines = run.section_bert([minilm_row(32, 0.9, 0.7)])
    assert "*.pattern" in lines[2] and sum(line.startswith("|") for line in lines) == 3


def fragment_row(control, server_ms, browser_ms, ok=True):
    return dict(page=control.split(".")[0], control=control, chart="x.y", repeats=2, server_ms=server_ms,
                browser_ms=browser_ms, server_all=[server_ms] * 2, browser_all=[browser_ms] * 2, requests=1, ok=ok,
                why=[] if ok else ["sent again: ['explorer.grid']"])


def test_fragment_targets_take_the_slowest_control_and_need_every_check():
    rows = run.fragment_targets([fragment_row("explorer.average", 60, 250), fragment_row("positional.base", 90, 280)])
    assert [(r[1], r[3]) for r in rows] == [("≤ 100 ms", "met"), ("≤ 300 ms", "met")]
    assert rows[0][2].startswith("slowest 90 ms (positional.base)")
    rows = run.fragment_targets([fragment_row("explorer.average", 160, 250)])
    assert [r[3] for r in rows] == ["not met", "met"] and "explorer.average" in rows[0][4]
    rows = run.fragment_targets([fragment_row("explorer.average", 60, 250, ok=False)])
    assert [r[3] for r in rows] == ["not met", "not met"] and "explorer.grid" in rows[0][4]
    lines = run.section_fragments([fragment_row("explorer.average", 60, 250)], None)
    assert any("`explorer.average`" in line and "60/250" in line for line in lines)


def test_frame_target_is_the_largest_frame_of_every_page():
    wire = [dict(page="explorer", tokens=128, largest=1_500_000, ok=True), dict(page="masks", tokens=128, largest=900, ok=True)]
    assert run.frame_targets(wire)[0][2:4] == ["1.50 MB (explorer, 128 tokens)", "met"]
    wire[1]["largest"] = 2_100_000
    assert run.frame_targets(wire)[0][3] == "not met"


def test_run_of_finds_a_fragment_runs_frames_from_its_request_to_script_finished():
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    from bench.browser import run_of

    def request(fragment):
        msg = BackMsg()
        msg.rerun_script.fragment_id = fragment
        return msg.SerializeToString()

    def finished(status):
        msg = ForwardMsg()
        msg.script_finished = ForwardMsg.ScriptFinishedStatus.Value(status)
        return msg.SerializeToString()

    beat = BackMsg()
    beat.app_heartbeat = True
    delta = ForwardMsg()
    delta.delta.new_element.plotly_chart.id = "chart.explorer.head"
    sent = [(9.0, beat.SerializeToString()), (10.0, request("f1")), (10.1, request("f1"))]
    received = [(9.5, finished("FINISHED_SUCCESSFULLY")),  # an earlier run: before the request, not counted
                (10.05, finished("FINISHED_EARLY_FOR_RERUN")), (10.2, delta.SerializeToString()),
                (10.25, finished("FINISHED_FRAGMENT_RUN_SUCCESSFULLY"))]
    run = run_of(sent, received)
    assert run["requests"] == 2 and run["fragment_only"] and len(run["frames"]) == 3
    assert run["status"] == "FINISHED_FRAGMENT_RUN_SUCCESSFULLY" and run["fragment_id"] == "f1"
    assert any(b"chart.explorer.head" in frame for frame in run["frames"])
    assert run_of(sent, received[:3]) is None  # not finished yet
    assert run_of(sent[:1], received) is None  # no rerun request yet


def test_server_runs_pair_each_sessions_request_with_the_message_that_ends_its_run(tmp_path):
    from bench.served import server_run, server_runs, stamps as stamps_of

    stamps = tmp_path / "stamps"
    stamps.write_text("request 9.000000 s1 -\nfinished 9.400000 s1 FINISHED_SUCCESSFULLY\n"  # before the change
                      "request 10.000000 s1 f1\nfinished 10.050000 s1 FINISHED_EARLY_FOR_RERUN\n"
                      "request 10.020000 s2 -\n"  # another session's run, interleaved
                      "request 10.060000 s1 f1\nfinished 10.100000 s2 FINISHED_SUCCESSFULLY\n"
                      "finished 10.250000 s1 FINISHED_FRAGMENT_RUN_SUCCESSFULLY\n"
                      "request 11.000000 s1 f1\n", encoding="utf-8")
    run = server_run(str(stamps), since=9.5)
    assert math.isclose(run["server_s"], 0.25) and run["session"] == "s1" and run["fragment_id"] == "f1"
    assert [(r["session"], round(r["server_s"], 3), r["requests"]) for r in server_runs(stamps_of(str(stamps)))] == [
        ("s1", 0.4, 1), ("s2", 0.08, 1), ("s1", 0.25, 2)]
    assert server_runs(stamps_of(str(stamps)))[2]["status"] == "FINISHED_FRAGMENT_RUN_SUCCESSFULLY"
    assert server_run(str(stamps), since=10.5) is None  # requested, not finished yet
    assert server_run(str(tmp_path / "none"), since=0) is None  # the server has stamped nothing


def test_group_profile_counts_calls_entering_a_group_once():
    from types import SimpleNamespace

    from bench.pages import group_profile

    page = ("app_pages/x.py", 1, "<module>")
    fig, inner = ("viz_app/figures/a.py", 1, "heatmap"), ("viz_app/figures/base.py", 1, "figure")
    to_json = ("site-packages/plotly/io/_json.py", 1, "to_json")
    stats = SimpleNamespace(stats={
        page: (1, 1, 0.01, 0.1, {}),
        fig: (1, 1, 0.01, 0.03, {page: (1, 1, 0.01, 0.03)}),
        inner: (1, 1, 0.02, 0.02, {fig: (1, 1, 0.02, 0.02)}),  # inside the group: not counted again
        to_json: (2, 2, 0.02, 0.02, {page: (2, 2, 0.02, 0.02)}),
    })
    groups = dict(group_profile(stats, 0.1))
    assert math.isclose(groups[next(g for g in groups if g.startswith("figure construction"))], 0.03)
    assert math.isclose(groups[next(g for g in groups if g.startswith("Streamlit serialization"))], 0.02)
    assert math.isclose(groups[next(g for g in groups if g.startswith("other"))], 0.05)


def test_load_summary_takes_warm_reruns_apart_and_the_goal_needs_no_error():
    from bench import load, visitor

    sessions = [visitor.Session(i, ["a"], times=[(visitor.FRONTEND, 0.2), ("first page", 5.0), ("new sentence", 4.0),
                                            ("layer", 0.5 + i / 10), ("head", 0.6), ("page switch", 1.0),
                                            ("decoding step", 0.7)],
                             own_view=[True]) for i in range(4)]
    r = load.summary(sessions)
    # the arrival (the frontend's files, the first page) is timed apart from the reruns
    assert r["warm"][2] == 12 and r["reruns"][2] == 20 and r["warm"][1] < 1.0  # layer, head, decoding step
    assert r["kinds"][visitor.FRONTEND][2] == 4
    run_of = dict(wall_s=60, rounds=1, ramp_s=0.2, server_cpu_s=50, client_cpu_s=60, load_average=2.0, cores=2)
    r.update(run_of, clients="protocol", frontend_files=150, frontend_mb=10.6)
    assert load.met(r)
    lines = load.markdown(r, "cmd")
    assert lines[0] == "### 4 protocol clients" and any(line.startswith("| **warm reruns** | 12 |") for line in lines)
    assert "| all reruns (frontend files and first page apart) | 20 |" in "\n".join(lines)
    assert "first fetches the 150 files a fresh chromium asked the server for" in lines[2]
    protocol_row, browser_row, hostile_row = run.load_targets({"protocol": r})
    assert protocol_row[3] == "met" and "protocol clients" in protocol_row[0]
    assert browser_row[3] == "not measured" and "browser sessions" in browser_row[0]
    assert hostile_row[3] == "not measured" and "hostile client" in hostile_row[0]
    sessions[0].errors.append("console: boom")
    r = {**load.summary(sessions), **run_of, "clients": "browser"}
    row = run.load_targets({"browser": r})[1]
    assert not load.met(r) and row[3] == "not met" and "boom" in row[4]
    assert load.markdown(r, "cmd")[0] == "### 4 browser sessions"
    slow = [visitor.Session(0, ["a"], times=[("layer", 5.0), ("head", 6.0)], own_view=[True])]
    r = {**load.summary(slow), **run_of, "clients": "protocol", "served": dict(p50=0.04, p95=0.21, most=0.9, runs=40)}
    why = run.load_targets({"protocol": r})[0][4]
    assert run.load_targets({"protocol": r})[0][3] == "not met" and "server's own time per run" in why and "p95 0.21 s" in why
    assert any("40 runs, p50 0.04 s, p95 0.21 s, longest 0.90 s" in line for line in load.markdown(r, "cmd"))


def test_the_hostile_row_compares_every_reruns_p95_with_the_same_class_alone():
    from bench import load, visitor

    def result(layer_s: float, errors=()) -> dict:
        sessions = [visitor.Session(i, ["a"], times=[("first page", 1.0), ("layer", layer_s), ("head", layer_s)],
                                    errors=list(errors), own_view=[True]) for i in range(3)]
        return {**load.summary(sessions), "server_cpu_s": 40, "wall_s": 50, "rounds": 1,
                "hostile": {"seen": {"tokenizer stopped": 7}, "errors": []}}

    alone = result(2.0)
    h = load.compared(alone, result(2.9))
    assert round(h["ratio"]["reruns"], 2) == 1.45 and h["met"]
    row = run.hostile_target(h)
    assert row[3] == "met" and row[2].startswith("1.45× (2.00 s → 2.90 s), 0 errors")
    lines = "\n".join(load.hostile_markdown(h))
    assert "| every rerun (frontend files and first page apart): p50 / p95 s | 2.00 / 2.00 | 2.90 / 2.90 | 1.45× |" in lines
    assert "tokenizer stopped: 7" in lines and lines.rstrip().endswith("met.")
    h = load.compared(alone, result(3.1))
    assert not h["met"] and run.hostile_target(h)[3] == "not met"  # 1.55×
    assert not load.compared(alone, result(2.0, ["timeout"]))["met"]  # an error of the class fails it at any ratio


def test_a_session_that_fetched_the_frontend_but_missed_an_action_is_unfinished():
    from bench import visitor

    actions = [("first page", 1.0)] + [(name, 0.5) for name in visitor.ROUND]
    done = visitor.Session(0, ["a"], times=[(visitor.FRONTEND, 0.2), *actions])
    short = visitor.Session(1, ["a"], times=[(visitor.FRONTEND, 0.2), *actions[:-1]])
    visitor.unfinished([done, short], rounds=1, deadline_s=60)
    assert done.errors == [] and short.errors == ["deadline: the test's 60 s ran out"]


def test_a_protocol_client_knows_its_own_sentence_from_the_link_and_the_cross_attention_axis():
    import json
    from urllib.parse import urlencode

    from bench import protocol, visitor

    def client(src, axis, title="Decoder layer 1: " + visitor.CROSS):
        c = protocol.Client(None, visitor.Session(0, [src]), urlencode({"model": "m", "src": src}))
        c.charts = {title: json.dumps({"data": [{"x": axis}], "layout": {"title": {"text": title}}})}
        return c

    labels = ["0·the", "1·cat", "2·</s>"]
    assert client("the cat", labels).shows_own("the cat", labels)
    assert not client("the cat", labels).shows_own("a dog", labels)  # another session's sentence in the link
    assert not client("the cat", labels[:2]).shows_own("the cat", labels)  # another axis
    assert not client("the cat", labels, title="Average of the heads").shows_own("the cat", labels)  # no such chart


def test_load_test_is_bounded():
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from bench import load, protocol, visitor

    def run(coroutine):  # a loop of its own thread: this one's may be a sync playwright's, left by the browser tests
        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, coroutine).result()

    for start in (load.run_sessions, protocol.run_clients):
        with pytest.raises(ValueError, match="sessions must be 1 to 50"):
            run(start("http://127.0.0.1:1", n=visitor.MAX_SESSIONS + 1))
        with pytest.raises(ValueError, match="127.0.0.1 only"):
            run(start("http://example.com:80", n=1))
    with pytest.raises(ValueError, match="clients must be one of"):
        load.measure(1, clients="telnet")
    with pytest.raises(SystemExit):
        load.main(["--sessions", "0"])


def test_only_live_puts_its_section_and_row_in_place_and_replaces_them_next_time():
    from bench.run import put_section, put_target

    text = ("## 5b. B\n\nb\n\n## 6. Memory\n\nm\n\n## Targets\n\n| target | goal |\n|---|---|\n| x | 1 |\n\n"
            "text after\n")
    once = put_target(put_section(text, "## 5c. ", "## 6. ", ["## 5c. Live", "", "first"]), ["live", "≤ 60 s"])
    assert once == ("## 5b. B\n\nb\n\n## 5c. Live\n\nfirst\n\n## 6. Memory\n\nm\n\n## Targets\n\n| target | goal |\n"
                    "|---|---|\n| x | 1 |\n| live | ≤ 60 s |\n\ntext after\n")
    twice = put_target(put_section(once, "## 5c. ", "## 6. ", ["## 5c. Live", "", "second"]), ["live", "≤ 61 s"])
    assert twice == once.replace("first", "second").replace("≤ 60 s", "≤ 61 s")


def test_only_models_puts_tables_1_to_2c_table_7_and_their_rows_into_benchmarks_md_once(tmp_path, monkeypatch):
    from bench.core import ROOT

    out = tmp_path / "BENCHMARKS.md"
    out.write_text((ROOT / "BENCHMARKS.md").read_text(encoding="utf-8"), encoding="utf-8")
    fwd = [dict(tokens=32, traced_ms=2.5, plain_ms=2.0, ratio=1.25, equal=True, trace_values=40)]
    lines = ["## 1. Traced forward pass", "", "a table", "", "## 2c. lm-en past 512 positions", "", "another"]
    monkeypatch.setattr(run, "model_benchmarks", lambda step, q: (list(lines), fwd, None, []))
    for _ in range(2):  # the second run replaces what the first put in
        assert run.update_models(str(out)) == 0
        text = out.read_text(encoding="utf-8")
        assert text.count("## 1. ") == text.count("## 2c. ") == text.count("## 7. ") == 1
        assert text.index("## 2c. ") < text.index("another") < text.index("## 3. ") < text.index("## 7. ")
        assert "## 2. " not in text  # the tables between 1 and 3 are what the run wrote
        assert text.count("| traced forward, 32 tokens | ≤ 10 ms | 2.50 ms | met |  |") == 1
        assert text.count("| tracing overhead, 32 tokens | ≤ 1.3× | 1.25× | met |  |") == 1
