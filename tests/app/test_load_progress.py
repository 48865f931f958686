"""While an operator's model loads, a bar names the file and the bytes read (issue 36, viz_app/load_progress.py); it
is drawn outside the model cache, so no later run replays it, and once the model is loaded no bar is left."""
from __future__ import annotations

import json
import time

import pytest
from streamlit.delta_generator import DeltaGenerator

from core_model.checkpoints import safe_load
from tests.app.conftest import assert_clean, open_page
from tests.bad_checkpoints import REVERSE, files_of, zip_of
from viz_app import cli, load_progress, own_model
from viz_app.loaders import models

pytest.importorskip("transformers")  # the folder is made by transformers (tests/families)

MB = 2**20


def test_the_label_names_the_file_and_the_bytes_in_both_languages():
    label, shard = load_progress.label, "model-00001-of-00002.safetensors"
    assert label(shard, 412 * MB, 988 * MB, "en") == "model-00001-of-00002.safetensors — 412 / 988 MB read"
    assert label(shard, 412 * MB, 988 * MB, "zh") == "model-00001-of-00002.safetensors — 已读取 412 / 988 MB"
    assert label(shard, 1234 * MB, 2048 * MB, "en").endswith("— 1,234 / 2,048 MB read")
    assert label("model.safetensors", 3 * MB // 2, 4 * MB, "en") == "model.safetensors — 1.5 / 4.0 MB read"


@pytest.fixture
def drawn(monkeypatch):
    """Every progress bar drawn, (value, text); the bar drawn at once, and the load slowed to be seen."""
    bars, real_bar, real_check = [], DeltaGenerator.progress, safe_load.check_tensor
    monkeypatch.setattr(DeltaGenerator, "progress",
                        lambda self, value, text=None, **kw: bars.append((value, text)) or real_bar(self, value, text,
                                                                                                   **kw))
    monkeypatch.setattr(load_progress, "EVERY", 0.01)
    monkeypatch.setattr(safe_load, "check_tensor", lambda *args: time.sleep(0.02) or real_check(*args))
    return bars


def test_an_operators_model_loads_under_a_bar_that_is_gone_once_loaded(hub_folder, monkeypatch, drawn):
    weights = hub_folder("gpt2") / "model.safetensors"
    monkeypatch.setenv(cli.MODELS_SETTING, json.dumps([["tiny-gpt2", str(weights.parent)]]))
    models._load_cached.clear()
    at = open_page("overview", model="tiny-gpt2")
    assert_clean(at)
    assert at.session_state["model"] == "tiny-gpt2" and not at.get("progress")
    raw = weights.read_bytes()
    stored = len(raw) - 8 - int.from_bytes(raw[:8], "little")  # the tensors' bytes: the file less its header
    assert len(drawn) >= 3
    assert all(text.startswith("model.safetensors — ") and text.endswith(f" / {stored / MB:.1f} MB read")
               for _, text in drawn)
    values = [value for value, _ in drawn]
    assert values == sorted(values) and 0 < values[0] < values[-1] <= 1
    n = len(drawn)
    at.run()  # the model comes from the cache: nothing is replayed, nothing drawn
    assert_clean(at)
    assert len(drawn) == n and not at.get("progress")


def test_an_upload_loaded_in_its_widgets_callback_draws_its_bar_and_leaves_none(monkeypatch, tmp_path, drawn):
    # The callback holds the session state until the load is done: a painter waiting for it would never finish.
    monkeypatch.setattr(own_model, "OWN_DIR", tmp_path / "own")
    at = open_page("overview")
    at.sidebar.file_uploader[0].set_value(("my-reverse.zip", zip_of(files_of(REVERSE)), "application/zip")).run()
    assert_clean(at)
    assert at.session_state["model"].startswith("own-") and not at.get("progress")
    assert drawn and all(text.startswith("model.safetensors — ") for _, text in drawn)
