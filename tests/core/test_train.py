"""The training CLI's loop: a short run lowers the loss, and a resumed run continues exactly."""
import dataclasses
import json

import pytest
import torch

from core_model import checkpoints
from core_model.training.snapshots import read_snapshots
from core_model.training.train import TASKS, learning_rate, train

# A reversal model small enough to train for a few seconds in the test suite. No cool-down: these tests stand in
# for an interrupted run by a shorter one, and a cool-down (over the last part of a run's steps) tells them apart.
TINY = dataclasses.replace(
    TASKS["reverse"], config=dict(TASKS["reverse"].config, d_model=32, n_heads=2, d_ff=64, dropout=0.1),
    steps=60, warmup=20, batch_size=32, n_train=2000, cooldown=0.0)
# Attention snapshots (steps 0, 1 and the last) for the runs that do not look at them: each saved step
# traces the probes and the AER pairs, 0.3 s, most of a 60-step run at the default 20.
FEW = 2


def test_learning_rate_follows_the_papers_schedule():
    d, warmup = 512, 4000
    assert learning_rate(1, d, warmup, 1.0) == d ** -0.5 * warmup ** -1.5
    assert learning_rate(warmup, d, warmup, 1.0) == d ** -0.5 * warmup ** -0.5  # the peak
    assert learning_rate(4 * warmup, d, warmup, 1.0) == d ** -0.5 * (4 * warmup) ** -0.5
    assert learning_rate(warmup // 2, d, warmup, 1.0) < learning_rate(warmup, d, warmup, 1.0)


def test_a_cool_down_scales_the_last_steps_linearly_towards_zero():
    d, warmup, steps, cooldown = 128, 400, 3000, 0.3  # the last 900 steps
    paper = [learning_rate(s, d, warmup, 1.0) for s in range(1, steps + 1)]
    cooled = [learning_rate(s, d, warmup, 1.0, steps, cooldown) for s in range(1, steps + 1)]
    assert cooled[:2100] == paper[:2100]  # untouched before the cool-down
    assert [cooled[s - 1] / paper[s - 1] for s in (2100, 2101, 2551, 3000)] == pytest.approx(
        [1.0, 900 / 901, 450 / 901, 1 / 901], rel=1e-12)
    assert learning_rate(2500, d, warmup, 1.0, steps, 0.0) == paper[2499]  # no cool-down: the paper's schedule


def test_a_short_run_lowers_the_validation_loss(tmp_path):
    first = train(TINY, tmp_path / "a", steps=5, validate_every=5, save_every=5, progress=False, snapshots=FEW)
    later = train(TINY, tmp_path / "b", steps=60, validate_every=60, save_every=60, progress=False, snapshots=FEW)
    assert later["valid_loss"] < first["valid_loss"] - 0.5
    assert read_snapshots(tmp_path / "b" / "checkpoint").steps.tolist() == [0, 1, 60]  # snapshots=FEW kept


def test_resume_continues_from_the_saved_step_exactly(tmp_path):
    straight = train(TINY, tmp_path / "straight", steps=30, validate_every=30, save_every=10, progress=False,
                     snapshots=FEW)
    train(TINY, tmp_path / "split", steps=20, validate_every=20, save_every=10, progress=False, snapshots=FEW)
    saved = json.loads((tmp_path / "split" / "checkpoint" / "train_state.json").read_text())
    assert saved["step"] == 20
    resumed = train(TINY, tmp_path / "split", steps=30, resume=True, validate_every=30, save_every=10,
                    progress=False, snapshots=FEW)
    assert resumed["step"] == 30 and resumed["tokens"] == straight["tokens"]
    a = checkpoints.load(tmp_path / "straight" / "checkpoint").model.state_dict()
    b = checkpoints.load(tmp_path / "split" / "checkpoint").model.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)  # same batches, same dropout, same optimizer state
