"""The real-size benchmark (bench/real_size.py) on miniatures of its three folders: they import, each kind of
measurement checks what it timed, and the section and target rows say what the numbers mean (never timings)."""
import dataclasses
import math
import subprocess

import numpy as np
import pytest

pytest.importorskip("transformers")  # the folders are made by transformers itself

from bench import real_size as rs  # noqa: E402
from core_model import checkpoints  # noqa: E402
from core_model.trace import Trace, heap, run_with_trace  # noqa: E402

TINY = {"GPT2Config": dict(n_layer=3, n_head=2, n_embd=32),
        "LlamaConfig": dict(hidden_size=32, intermediate_size=64, num_hidden_layers=3, num_attention_heads=4,
                            num_key_value_heads=2),
        "Qwen2Config": dict(hidden_size=32, intermediate_size=64, num_hidden_layers=3, num_attention_heads=4,
                            num_key_value_heads=2)}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """Each spec's folder at 3 layers and 32 wide, with its real vocabulary, positions and special tokens."""
    root = tmp_path_factory.mktemp("real-size")
    return {s.name: rs.build(dataclasses.replace(s, fields={**s.fields, **TINY[s.config_class]}), root / s.name)
            for s in rs.SPECS}


pytestmark = pytest.mark.usefixtures("one_thread")  # tests/core/conftest.py


# what each real model's importer must read from the spec: vocabulary, heads sharing key/value heads, RoPE's base
IMPORTED = {"gpt2-small-random": (50257, 2, 2, "learned", 50256),
            "smollm2-135m-random": (49152, 4, 2, "rope", 0),
            "qwen2-0.5b-random": (151936, 4, 2, "rope", 151933)}  # 151,933: <|endoftext|>, the first special after


@pytest.mark.parametrize("name", list(IMPORTED))
def test_each_folder_imports_with_its_real_vocabulary_and_shapes(tiny, name):
    cfg = checkpoints.load(tiny[name], trusted=True).config
    assert (cfg.tgt_vocab_size, cfg.n_heads, cfg.kv_heads, cfg.positional, cfg.bos_id) == IMPORTED[name]
    if name != "gpt2-small-random":
        assert cfg.positional_base == {"smollm2-135m-random": 100000.0, "qwen2-0.5b-random": 1000000.0}[name]
        assert cfg.tie_embeddings
    ids = rs.ids_of(tiny[name], 50)
    assert ids.shape == (1, 50) and int(ids[0, 0]) == cfg.bos_id
    assert 0 < len(rs.text_of(tiny[name], 20)) and rs.dims(tiny[name])["layers"] == 3


def test_a_tokenizer_as_large_as_qwen2s_embedding_reads_text_back():
    tk = rs.byte_tokenizer(151936, last=rs.ENDS)
    assert tk.get_vocab_size() == 151936
    assert [tk.token_to_id(t) for t in rs.ENDS] == [151933, 151934, 151935]
    first = rs.byte_tokenizer(600, first=rs.ENDS)
    assert [first.token_to_id(t) for t in rs.ENDS] == [0, 1, 2] and first.get_vocab_size() == 600
    assert tk.decode(tk.encode(rs.TEXT).ids) == rs.TEXT


@pytest.mark.parametrize("name", list(IMPORTED))
def test_every_kind_agrees_with_transformers_at_the_same_ids(tiny, name):
    kinds = ("transformers", "every", "patterns")
    results = {mode: rs.child(mode, tiny[name], 40, commands=["go\n"]) for mode in kinds}
    c = rs.check(results)
    assert c["reference"] == "transformers" and set(c["diffs"]) == {"every", "patterns"} and c["ok"]
    assert all(d["same_top"] and d["pattern"] <= 1e-6 for d in c["diffs"].values())
    for r in results.values():
        assert len(r["rows"]) == 4 if name != "gpt2-small-random" else len(r["rows"]) == 2  # one row per head
        assert all(math.isclose(sum(row), 1.0, rel_tol=1e-5) for row in r["rows"])  # a softmax row sums to 1
        assert r["peak_mb"] >= max(r["load_peak_mb"], r["forward_peak_mb"]) and r["loaded_mb"] > 0
        assert len(r["times"]) == 1 + rs.AFTER_FIRST and r["first_s"] == r["times"][0]
        assert math.isclose(r["time_s"], np.median(r["times"][1:]))  # the first forward is not in the median


class Drifting:
    """A kind's child as lockstep drives it, on a host twice as slow from the 8th forward on (the middle of a round)."""
    COST = {"transformers": 1.0, "every": 0.9, "patterns": 0.8}
    calls: list[str] = []

    def __init__(self, mode, path, n):
        self.mode, self.first, self.times = mode, self.COST[mode], []

    def go(self):
        self.calls.append(self.mode)
        self.times.append(self.COST[self.mode] * (1 if len(self.calls) <= 7 else 2))
        return self.times[-1]

    def end(self):
        return dict(result(float(np.median(self.times)), 1000.0), times=[self.first, *self.times])


def test_lockstep_takes_the_kinds_in_turn_and_drift_leaves_their_ratios_alone(tiny, monkeypatch):
    """The medians move with the host; the median of the rounds' ratios does not (the round cut in two is one of
    five)."""
    monkeypatch.setattr(rs, "Kind", Drifting)
    monkeypatch.setattr(Drifting, "calls", [])
    got = rs.lockstep(tiny["gpt2-small-random"], 8, list(Drifting.COST))
    assert Drifting.calls[:6] == ["transformers", "every", "patterns", "every", "patterns", "transformers"]
    assert all(r["rounds"] == 5 for r in got.values())  # rounds while under 20 s: 2.7, 5.4, 10.0, 15.4, 20.8
    assert got["every"]["time_ratio"] == pytest.approx(0.9) and got["patterns"]["time_ratio"] == pytest.approx(0.8)
    assert "time_ratio" not in got["transformers"] and got["every"]["together"] == list(Drifting.COST)
    assert got["every"]["time_s"] == pytest.approx(1.8)  # 3 of its 5 forwards ran on the slower host
    assert rs.ratios(got["every"], got["transformers"])["time"] == pytest.approx(0.9)  # not 1.8 / 2.0


def test_kinds_run_in_lockstep_as_far_as_the_memory_holds_them(tiny, monkeypatch):
    path, modes = tiny["gpt2-small-random"], list(rs.MODES)
    assert rs.groups(path, 16, modes) == [modes]
    monkeypatch.setattr(rs, "available_gib", lambda: 2 * rs.estimate_gib(rs.dims(path), 16, "every") / 0.8)
    assert rs.groups(path, 16, modes) == [["transformers", "every"], ["patterns", "page"]]
    monkeypatch.setattr(rs, "available_gib", lambda: 1.0)
    assert rs.groups(path, 16, modes) == [[m] for m in modes]
    row = dict(results={"transformers": dict(time_s=1.0, rounds=4, together=["transformers", "every"]),
                        "every": dict(time_s=0.9, rounds=4, together=["transformers", "every"]),
                        "patterns": dict(time_s=0.8), "page": dict(skipped="not built yet")})
    assert rs.rounds_cell(row) == "transformers, every: 4 rounds; patterns: alone"


def test_a_changed_result_fails_its_check():
    ref = dict(top=[5, 2], logits=[10.0, 9.0], rows=[[0.5, 0.5]])
    off = {"transformers": ref, "every": dict(ref, rows=[[0.5002, 0.4998]]), "patterns": dict(ref, top=[2, 5])}
    c = rs.check(off)
    assert not c["ok"] and not c["diffs"]["every"]["agree"] and not c["diffs"]["patterns"]["same_top"]
    assert rs.check({"transformers": ref, "every": dict(ref, logits=[10.0005, 9.0])})["ok"]  # 5e-5 of 10: within
    assert not rs.check({"transformers": ref, "every": dict(ref, logits=[10.002, 9.0])})["ok"]  # 2e-4: not
    alone = rs.check({"transformers": dict(skipped="memory"), "every": ref, "patterns": ref})
    assert alone["reference"] == "every" and alone["ok"]
    assert not rs.check({"transformers": ref, "every": dict(error="exit code -9")})["ok"]


def test_child_processes_report_their_measurements_in_lockstep_and_a_broken_one_says_why(tiny, tmp_path,
                                                                                          monkeypatch):
    r = rs.lockstep(tiny["smollm2-135m-random"], 16, ["patterns"])["patterns"]  # alone: no rounds
    assert r["mode"] == "patterns" and r["tokens"] == 16 and len(r["rows"]) == 4 and len(r["rows"][0]) == 16
    assert len(r["times"]) == 1 + rs.AFTER_FIRST and "rounds" not in r
    both = rs.lockstep(tiny["smollm2-135m-random"], 16, ["transformers", "every"])
    rounds = both["every"]["rounds"]
    assert rs.ROUNDS_MIN <= rounds <= rs.ROUNDS_MAX and all(len(r["times"]) == 1 + rounds for r in both.values())
    tf, every = (np.array(both[m]["times"][1:]) for m in ("transformers", "every"))
    assert both["every"]["time_ratio"] == pytest.approx(float(np.median(every / tf)))
    assert rs.check(both)["ok"]
    assert both["every"]["read_s"] > 0 and "read_s" not in both["transformers"] and "read_s" not in r
    broken = rs.lockstep(tmp_path, 16, ["every"])["every"]  # no folder there
    assert broken["error"].startswith("exit code 1: ")
    monkeypatch.setattr(rs, "CHILD_TIMEOUT_S", 0.2)  # importing torch alone takes longer: killed before READY
    envs, popen = [], subprocess.Popen
    monkeypatch.setattr(rs.subprocess, "Popen", lambda *a, **kw: envs.append(kw["env"]) or popen(*a, **kw))
    silent = rs.Kind("every", tiny["smollm2-135m-random"], 16)
    assert heap.SETTLED_ENV.items() <= envs[0].items()  # every kind's process under the same malloc settings
    assert silent.first is None and silent.end() == {"error": "said nothing for 0.2 s"}


class Pooled(Trace):
    """A trace with the on-demand API's pooled_pattern, as the change that builds it will give it."""

    def pooled_pattern(self, stack, layer):
        return self.attn(stack, layer).pattern.max(axis=1)


def test_page_draw_reads_every_layers_grid_and_one_middle_layer_whole(tiny, monkeypatch):
    asked = []

    def on_demand_run(model, src, tgt, on_demand=False, **kw):
        asked.append(on_demand)
        logits, trace = run_with_trace(model, src, tgt, **kw)
        trace.__class__ = Pooled
        return logits, trace

    monkeypatch.setattr(rs, "run_with_trace", on_demand_run)
    assert rs.on_demand_built()
    model = checkpoints.load(tiny["smollm2-135m-random"], trusted=True).model
    ids = rs.ids_of(tiny["smollm2-135m-random"], 12)
    logits, trace, drawn, pooled = rs.page_draw(model, ids)
    assert asked == [True] and len(pooled) == 3
    assert set(drawn) == {"q", "k", "v", "scores", "pattern", "z", "out", "resid_pre", "norm1", "resid_mid", "norm2",
                          "resid_post", "ffn.hidden", "ffn.out"}
    _, full = run_with_trace(model, None, ids)
    assert np.array_equal(drawn["pattern"], full.attn("decoder", 1).pattern)  # layer 1: the middle of 3
    assert drawn["ffn.hidden"].shape == (1, 12, 64) and drawn["k"].shape == (1, 2, 12, 8)  # 2 key/value heads


def test_too_much_memory_or_no_on_demand_api_skips_with_the_reason(tiny, monkeypatch):
    monkeypatch.setattr(rs, "available_gib", lambda: 1.0)
    skipped = rs.skip_reason(tiny["gpt2-small-random"], 1024, "transformers")
    assert skipped.startswith("estimated ") and "80% of the 1.0 GiB available" in skipped
    monkeypatch.setattr(rs, "on_demand_built", lambda: False)
    page = rs.skip_reason(tiny["gpt2-small-random"], 16, "page")
    assert page == "not built yet (run_with_trace has no on_demand switch)"
    qwen2 = dict(layers=24, heads=14, d=896, ff=4864, vocab=151936, params=494e6)
    attentions = 24 * 14 * 2048 * 2048 * 4 / 2**30  # 5.25 GiB of attention weights kept by transformers
    assert rs.estimate_gib(qwen2, 2048, "transformers") > 3 * attentions
    assert rs.estimate_gib(qwen2, 2048, "patterns") < rs.estimate_gib(qwen2, 2048, "every")


def result(time_s, peak_mb, loaded_mb=500.0, forward_peak_mb=None, load_peak_mb=600.0):
    return dict(time_s=time_s, peak_mb=peak_mb, loaded_mb=loaded_mb, load_peak_mb=load_peak_mb,
                forward_peak_mb=peak_mb if forward_peak_mb is None else forward_peak_mb)


def made_row(n, every, page, tf=None):
    results = {"transformers": tf or result(2.0, 1000.0), "every": every, "patterns": result(1.0, 900.0),
               "page": page}
    row = dict(model="m", label="Model", tokens=n, results=results,
               check=dict(reference="transformers", diffs={"every": dict(agree=True, same_top=True, logit=0.0,
                                                                         pattern=0.0)}, failed=[], ok=True))
    return dict(row, missed=rs.goals_missed(row))


def test_rows_and_targets_hold_each_ratio_to_its_goal():
    rows = [made_row(512, result(1.8, 1100.0), result(1.9, 700.0)),  # 0.9× time, 1.1× peak: met
            made_row(2048, result(2.2, 1300.0), result(1.2, 400.0))]  # 1.1×, 1.3×; page 0.6× time, 0.4× peak
    assert rows[0]["missed"] == []
    assert rows[1]["missed"] == ["ours, every value: time 1.10× > 1.0×", "ours, every value: peak 1.30× > 1.2×",
                                 "ours, what a page draws: peak 0.40× > 0.3×"]
    assert rs.cell(rows[0]["results"]["every"], rows[0]["results"]["transformers"]) == (
        "1.80 s, 1.07 GiB: **0.90×** · **1.10×** (1.20×)")  # the forward adds 600 MiB against 500
    got = {t[0]: t for t in rs.targets(dict(rows=rows, starts=[]))}
    assert got["real sizes: traced forward, every value, time vs transformers"][2:4] == [
        "1.10× (Model, 2,048), 0.90× (Model, 512)", "not met"]
    assert got["real sizes: what a page draws, time vs transformers, 1,024 tokens and more"][2:4] == [
        "0.60× (Model, 2,048)", "met"]
    assert got["real sizes: what a page draws, peak RSS vs transformers, 2,048 tokens"][3] == "not met"
    lines = rs.section(dict(rows=rows, starts=[]))
    assert sum(line.startswith("| Model |") for line in lines) == 2


def test_a_peak_reached_while_loading_is_marked_and_a_skipped_transformers_gives_no_ratio():
    loaded_high = result(1.0, 1500.0, forward_peak_mb=900.0, load_peak_mb=1500.0)
    assert rs.cell(loaded_high, result(2.0, 1000.0)) == "1.00 s, 1.46 GiB†: **0.50×** · **1.50×** (0.80×)"
    row = made_row(2048, result(1.0, 900.0), dict(skipped="not built yet"), tf=dict(skipped="estimated 19 GiB"))
    assert row["missed"] == [] and rs.goals_cell(row) == "not measured"
    assert rs.targets(dict(rows=[row], starts=[]))[0][3] == "not measured"


def test_a_cold_start_without_a_chart_says_why():
    start = dict(model="m", label="Model", tokens=512, first_s=None, goal_s=10.0, why="no chart within 300 s")
    assert rs.targets(dict(rows=[], starts=[start]))[-1] == [
        "real sizes: cold start to the first chart, Model, 512 tokens", "≤ 10 s", "—", "not measured",
        "no chart within 300 s"]
    drawn = dict(start, first_s=8.5, why="", up_s=6.0, navigation_s=6.1, peak_mb=2048.0, rss_mb=1536.0)
    assert rs.start_row(drawn)[2:5] == ["8.5", "≤ 10 s", "met"]


def test_only_real_size_puts_table_10_and_its_rows_into_benchmarks_md_once(tmp_path, monkeypatch):
    from bench import run
    from bench.core import ROOT

    out = tmp_path / "BENCHMARKS.md"
    out.write_text((ROOT / "BENCHMARKS.md").read_text(encoding="utf-8"), encoding="utf-8")
    rows = [made_row(512, result(1.8, 1100.0), result(1.9, 700.0))]
    monkeypatch.setattr(run, "real_size_benchmark", lambda step, q: (rs.section(dict(rows=rows, starts=[])),
                                                                     rs.targets(dict(rows=rows, starts=[]))))
    for _ in range(2):  # the second run replaces what the first put in
        assert run.update_real_size(str(out)) == 0
        text = out.read_text(encoding="utf-8")
        assert text.count(rs.HEAD) == 1 and text.index("## 9. ") < text.index(rs.HEAD) < text.index("## Targets")
        assert text.count("| real sizes: traced forward, every value, time vs transformers | ≤ 1.0× | 0.90× (Model, 512) "
                          "| met |") == 1
