"""The models in assets/models/: they load, they are good at their task, and their cards tell the truth."""
from pathlib import Path

import pytest

from core_model import checkpoint
from core_model.evaluate import card_metrics, evaluate, translate_all
from core_model.train import TASKS, corpus

MODELS = Path(__file__).resolve().parents[2] / "assets" / "models"
SHIPPED = sorted(p.name for p in MODELS.iterdir() if (p / "config.json").is_file())


def test_every_task_has_a_shipped_model():
    assert SHIPPED == sorted(TASKS)


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_model_is_small_and_documented(name):
    path = MODELS / name
    assert (path / "model.safetensors").stat().st_size < 8 * 2**20
    card = checkpoint.load(path).card
    for section in ("## Data", "## Training", "## Metrics (test split)", "## Config", "## Known limits", "## Words it knows"):
        assert section in card, f"{name}'s card lacks {section}"
    assert f"--task {name}" in card  # the command that rebuilds it


def test_default_model_translates_held_out_pairs():
    loaded = checkpoint.load(MODELS / "translate-en-fr")
    pairs = corpus(TASKS["translate-en-fr"], seed=0)["test"][:300]
    outputs = translate_all(loaded, [src for src, _, _ in pairs])
    exact = sum(out == tgt for out, (_, tgt, _) in zip(outputs, pairs)) / len(pairs)
    assert exact >= 0.95


@pytest.mark.parametrize("name", SHIPPED)
def test_card_metrics_are_what_the_evaluation_prints(name):
    measured = {k: v for k, v in evaluate(MODELS / name, name).items() if k != "errors"}
    assert card_metrics(checkpoint.load(MODELS / name).card) == pytest.approx(measured, rel=1e-5)


def test_reverse_model_reverses():
    loaded = checkpoint.load(MODELS / "reverse")
    sources = ["one two three four five", "red cat up left", "a b c d e f g h"]
    assert translate_all(loaded, sources) == [" ".join(reversed(s.split())) for s in sources]
