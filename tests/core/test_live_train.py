"""The live run of the Training page (core_model.training.live_train): it learns the reversal within its time bound, stops
when asked or out of time, leaves no temporary folder, and lets go of its model when it ends."""
from __future__ import annotations

import dataclasses
import gc
import time
import weakref

import numpy as np
import pytest

from core_model.training.live_train import SECONDS, TINY, LiveRun, mirrored_share

SHORT = dataclasses.replace(TINY, n_train=1000)  # quicker set-up for the tests that do not need it to learn


@pytest.fixture(scope="module")
def full_run():
    """One whole run at the shipped settings: (run, records, a weak reference to its model, wall seconds)."""
    run = LiveRun()
    records, model = [], None
    started = time.monotonic()
    for record in run:
        records.append(record)
        if model is None:
            model = weakref.ref(run.model)
    return run, records, model, time.monotonic() - started


def test_the_run_learns_within_the_bound(full_run):
    run, records, _, seconds = full_run
    first, last = records[0], records[-1]
    assert last.ended == "steps" and last.step == TINY.steps, (last.ended, last.step, seconds)
    assert seconds <= SECONDS + 5
    assert first.step == 0 and last.loss < 0.4 * first.loss, (first.loss, last.loss)
    assert mirrored_share(first.cross) < 0.5 <= 0.8 <= mirrored_share(last.cross)
    assert alignment_error(first.cross) > 0.5 and alignment_error(last.cross) < 0.3  # the bound
    assert last.cross.shape == (1, 2, len(run.probe.tgt_in), len(run.probe.src))
    np.testing.assert_allclose(last.cross.sum(-1), 1, atol=1e-5)  # each query's weights over the source
    assert first.output != run.probe.target
    assert last.output.split()[:5] == run.probe.target.split()[:5]  # right, or nearly so
    assert [r.step for r in records] == sorted({r.step for r in records})
    assert all(r.ended is None for r in records[:-1])


def alignment_error(cross) -> float:
    """AER = 1 − 2|A∩G| / (|A| + |G|) of the probe (one-token words): A links each target word to the source word its
    last layer's mean head weighs most, G is the reversal's gold alignment (target i ↔ source n − 1 − i)."""
    weights = cross[-1].mean(0)
    n = weights.shape[1]
    predicted = {(int(weights[i].argmax()), i) for i in range(n)}  # the </s> row left out: it aligns to nothing
    gold = {(n - 1 - i, i) for i in range(n)}
    return 1 - 2 * len(predicted & gold) / (len(predicted) + len(gold))


def test_the_temporary_folder_is_gone_and_the_model_let_go(full_run):
    run, _, model, _ = full_run
    assert run.folder is not None and not run.folder.exists()
    assert run.model is None
    gc.collect()
    assert model() is None, "something still holds the trained model"


def test_stop_ends_the_run_within_one_record():
    run = LiveRun(dataclasses.replace(SHORT, steps=10_000), every=5)
    records = []
    for record in run:
        records.append(record)
        if record.step == 10:
            run.stop()
    assert records[-2].step == 10 and records[-1].ended == "stopped"
    assert records[-1].step == 10  # no step after stop()
    assert len(records) == 4  # steps 0, 5, 10 and the last


def test_the_time_budget_holds():
    budget = 3.0
    run = LiveRun(dataclasses.replace(SHORT, steps=100_000), every=50, seconds=budget)
    started = time.monotonic()
    records = list(run)
    elapsed = time.monotonic() - started
    assert records[-1].ended == "time" and records[-1].step < 100_000
    assert elapsed < max(budget, records[0].seconds) + 2.0  # checked between steps: at most one step and a record more


def test_a_run_elsewhere_writes_each_record_pickled_then_its_last_word():
    import io
    import pickle

    from core_model.training.live_train import train_elsewhere

    # What the server sends the run's process: the task pickled, and no line after it, as if the server were gone:
    # the run stops at its first step.
    commands, data = io.BytesIO(pickle.dumps((SHORT, 5, SECONDS))), io.BytesIO()
    train_elsewhere(data, commands)
    data.seek(0)
    items = []
    while True:
        items.append(pickle.load(data))
        if items[-1] is None:
            break
    records = [item[2] for item in items[:-1]]
    assert [item[0] for item in items[:-1]] == ["record"] * len(records) and len(records) >= 2
    assert records[0].step == 0 and records[-1].ended == "stopped" and records[-1].step <= 5
    probe = items[0][1]
    assert probe.source == "red cat two sun left big one" and probe.target == "one big left sun two cat red"


def test_the_runs_process_exits_cleanly_while_its_parent_still_holds_its_stdin():
    """The parent reads the last word, then closes the run's stdin: the run must end with 0 though its stop-waiting
    thread still reads from it (a normal interpreter shutdown aborted there, exit code -6)."""
    import pickle
    import subprocess
    import sys

    from viz_app.live_training import CHILD
    from viz_app.registry import ROOT

    process = subprocess.Popen([sys.executable, "-c", CHILD], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    pickle.dump((dataclasses.replace(SHORT, steps=3), 1, SECONDS), process.stdin)
    process.stdin.flush()
    while pickle.load(process.stdout) is not None:  # the records, then None
        pass
    try:
        assert process.wait(60) == 0  # stdin still open
    finally:
        process.stdin.close()
        process.stdout.close()


def test_the_runs_process_ends_quietly_when_the_server_is_gone_mid_run():
    """The server stopped while a run went on (its end of the run's stdout closed): the run's next record finds no
    reader, and the process ends with 0 and no traceback (it once wrote a BrokenPipeError's on every shutdown)."""
    import pickle
    import subprocess
    import sys

    from viz_app.live_training import CHILD
    from viz_app.registry import ROOT

    process = subprocess.Popen([sys.executable, "-c", CHILD], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    pickle.dump((dataclasses.replace(SHORT, steps=200), 1, SECONDS), process.stdin)
    process.stdin.flush()
    assert pickle.load(process.stdout)[0] == "record"
    process.stdout.close()
    try:
        assert process.wait(60) == 0
        assert b"Traceback" not in process.stderr.read()
    finally:
        process.stdin.close()
        process.stderr.close()
