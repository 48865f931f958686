"""Expensive results that several tests of tests/core read, computed once per test session."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest
import torch

MODELS = Path(__file__).resolve().parents[2] / "assets" / "models"


@pytest.fixture(scope="session")
def shipped_evaluation():
    """`shipped_evaluation(name)`: what `evaluate(assets/models/<name>, <name>)` returns, i.e. what
    `python -m core_model.training.evaluate` prints for that shipped model.

    Evaluating the translator (500 held-out translations, 300 traced sentences for the AER) is the
    slowest thing in tests/core, so each model is evaluated at most once per session; every caller
    gets its own copy of the result.
    """
    from core_model.training.evaluate import evaluate

    done: dict[str, dict] = {}

    def get(name: str) -> dict:
        if name not in done:
            done[name] = evaluate(MODELS / name, name)
        return copy.deepcopy(done[name])

    return get


@pytest.fixture(scope="session")
def shipped_splits():
    """`shipped_splits(name)`: the valid and test splits of a shipped model's task (seed 0), as
    `core_model.training.tasks.held_out` draws them once per process (test_tasks.py checks them against `corpus`). Callers
    get their own lists."""
    from core_model.training.tasks import held_out

    return lambda name: {split: list(rows) for split, rows in held_out(name).items()}


@pytest.fixture(scope="session")
def shipped_test_split(shipped_splits):
    """`shipped_test_split(name)`: the held-out test split of a shipped model's task (seed 0)."""
    return lambda name: shipped_splits(name)["test"]


@pytest.fixture
def one_thread():
    """torch on one thread for the test (the benchmarks' own setting), then back to what it had."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def translator():
    """The shipped translator's model (in eval mode), loaded once per session: tests that only read it share it."""
    from core_model import checkpoints

    return checkpoints.load(MODELS / "translate-en-fr").model


@pytest.fixture(scope="session")
def lm():
    """The shipped lm-en's model, loaded once per session (as `translator`)."""
    from core_model import checkpoints

    return checkpoints.load(MODELS / "lm-en").model
