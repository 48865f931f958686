"""The training CLI's loop: a short run lowers the loss, and a resumed run continues exactly."""
import dataclasses
import json

import torch

from core_model import checkpoint
from core_model.train import TASKS, learning_rate, train

# A reversal model small enough to train for a few seconds in the test suite.
TINY = dataclasses.replace(
    TASKS["reverse"], config=dict(TASKS["reverse"].config, d_model=32, n_heads=2, d_ff=64, dropout=0.1),
    steps=60, warmup=20, batch_size=32, n_train=2000)


def test_learning_rate_follows_the_papers_schedule():
    d, warmup = 512, 4000
    assert learning_rate(1, d, warmup, 1.0) == d ** -0.5 * warmup ** -1.5
    assert learning_rate(warmup, d, warmup, 1.0) == d ** -0.5 * warmup ** -0.5  # the peak
    assert learning_rate(4 * warmup, d, warmup, 1.0) == d ** -0.5 * (4 * warmup) ** -0.5
    assert learning_rate(warmup // 2, d, warmup, 1.0) < learning_rate(warmup, d, warmup, 1.0)


def test_a_short_run_lowers_the_validation_loss(tmp_path):
    first = train(TINY, tmp_path / "a", steps=5, validate_every=5, save_every=5, progress=False)
    later = train(TINY, tmp_path / "b", steps=60, validate_every=60, save_every=60, progress=False)
    assert later["valid_loss"] < first["valid_loss"] - 0.5


def test_resume_continues_from_the_saved_step_exactly(tmp_path):
    straight = train(TINY, tmp_path / "straight", steps=30, validate_every=30, save_every=10, progress=False)
    train(TINY, tmp_path / "split", steps=20, validate_every=20, save_every=10, progress=False)
    saved = json.loads((tmp_path / "split" / "checkpoint" / "train_state.json").read_text())
    assert saved["step"] == 20
    resumed = train(TINY, tmp_path / "split", steps=30, resume=True, validate_every=30, save_every=10, progress=False)
    assert resumed["step"] == 30 and resumed["tokens"] == straight["tokens"]
    a = checkpoint.load(tmp_path / "straight" / "checkpoint").model.state_dict()
    b = checkpoint.load(tmp_path / "split" / "checkpoint").model.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)  # same batches, same dropout, same optimizer state
