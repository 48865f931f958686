"""The operator's own models (issue 36): those `attention-viz --model` names appear in the model picker beside the
shipped ones, and on a local run the sidebar lists the Hugging Face cache's models, one click to open; a server for
others lists none."""
import json

import pytest

from core_model import checkpoints
from tests.app.conftest import assert_clean, draws, open_page
from tests.hf_cache import add_to_cache
from viz_app import cli, loaders
from viz_app.loaders import models

pytest.importorskip("transformers")  # the folders are made by transformers (tests/families)


@pytest.fixture
def cache(tmp_path, hub_folder, monkeypatch):
    cache = tmp_path / "hub"
    add_to_cache(cache, "org/tiny-llama", hub_folder("llama-gqa"))
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    models._scan.clear()
    return cache


def cache_rows(at):
    return [m.value for e in at.sidebar.expander for m in e.markdown]


def test_a_model_named_on_the_command_line_is_offered_opened_first_and_drawn(hub_folder, monkeypatch):
    monkeypatch.setenv(cli.MODELS_SETTING, json.dumps([["tiny-gpt2", str(hub_folder("gpt2"))]]))
    routes, real = [], checkpoints.load
    monkeypatch.setattr(checkpoints, "load", lambda path, trusted=False, progress=None: routes.append((path, trusted))
                        or real(path, trusted, progress))
    models._load_cached.clear()
    at = open_page("overview")
    assert "tiny-gpt2" in at.sidebar.selectbox(key="model").options
    assert at.session_state["model"] == "tiny-gpt2"  # a first visit opens the first model named, not a shipped one
    assert_clean(at)
    assert loaders.load_model("tiny-gpt2").config.n_decoder_layers == 2
    assert (hub_folder("gpt2"), True) in routes  # the operator's own: bounded by memory, not a visitor's limits
    assert all(trusted is False for path, trusted in routes if path != hub_folder("gpt2"))
    draws(at, "explorer")


def test_a_local_run_lists_the_cache_and_opens_a_model_in_one_click(cache, monkeypatch):
    monkeypatch.setenv(cli.LOCAL_SETTING, "1")
    at = open_page("overview")
    assert any("org/tiny-llama" in row and "Llama" in row for row in cache_rows(at))
    at.sidebar.button(key="sidebar.cache.0").click().run()
    assert_clean(at)
    assert at.session_state["model"] == "org/tiny-llama"
    assert loaders.load_model("org/tiny-llama").config.kv_heads == 2
    draws(at, "self_attention")


def test_a_server_for_others_lists_nothing_from_the_cache(cache, monkeypatch):
    monkeypatch.setenv(cli.LOCAL_SETTING, "")
    at = open_page("overview")
    assert not any("org/tiny-llama" in row for row in cache_rows(at))
    assert "org/tiny-llama" not in loaders.available_models()
    assert loaders.model_folder("org/tiny-llama") == models.MODELS_DIR / "org/tiny-llama"  # not the cache's
