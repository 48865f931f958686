"""Models found on this machine by name (core_model/checkpoints/hub_cache.py): a folder, or a hub name in a Hugging Face
cache laid out as huggingface_hub lays it out (refs/, snapshots/ linking into blobs/), read offline."""
from __future__ import annotations

import os
import time

import pytest

from core_model import checkpoints
from core_model.checkpoints import CheckpointError, hub_cache
from tests.hf_cache import add_to_cache

pytest.importorskip("transformers")  # the folder is made by transformers (tests/families)


@pytest.fixture
def cache(tmp_path, hub_folder):
    cache = tmp_path / "hub"
    add_to_cache(cache, "openai-community/tiny-gpt2", hub_folder("gpt2"))
    return cache


def test_a_hub_name_opens_the_snapshot_refs_main_points_to(cache, hub_folder):
    newer = add_to_cache(cache, "openai-community/tiny-gpt2", hub_folder("llama-gqa"), commit="b" * 40, main=False)
    os.utime(newer, (time.time() + 60, time.time() + 60))  # newer, but refs/main says which is current
    name, folder = hub_cache.resolve("openai-community/tiny-gpt2", cache)
    assert name == "openai-community/tiny-gpt2" and folder.parent.name == "snapshots" and folder != newer
    assert (folder / "config.json").is_symlink()  # read through the cache's links into blobs/
    assert checkpoints.load(folder).config.architecture == "decoder"


def test_without_refs_main_the_newest_snapshot_is_opened(tmp_path, hub_folder):
    cache = tmp_path / "hub"
    add_to_cache(cache, "org/m", hub_folder("gpt2"), commit="a" * 40, main=False)
    newer = add_to_cache(cache, "org/m", hub_folder("qwen2"), commit="b" * 40, main=False)
    os.utime(newer, (time.time() + 60, time.time() + 60))
    assert hub_cache.resolve("org/m", cache)[1] == newer


def test_a_folder_is_opened_as_it_is(hub_folder):
    assert hub_cache.resolve(str(hub_folder("gpt2"))) == ("tiny-gpt2", hub_folder("gpt2").resolve())


@pytest.mark.parametrize("name", ["openai-community/gpt2", "tiny-gpt2", "a/b/c", "", "../hub"])
def test_a_name_not_in_the_cache_says_where_it_looked(cache, name):
    with pytest.raises(CheckpointError) as caught:
        hub_cache.resolve(name, cache)
    assert caught.value.code == "model_not_found" and str(cache) in str(caught.value)


def test_the_cache_is_where_its_settings_put_it(monkeypatch, tmp_path):
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "home"))
    assert hub_cache.cache_dir() == tmp_path / "home" / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "elsewhere"))
    assert hub_cache.cache_dir() == tmp_path / "elsewhere"


def test_a_link_that_leads_outside_the_cache_is_refused(cache, tmp_path):
    snapshot = hub_cache.resolve("openai-community/tiny-gpt2", cache)[1]
    (tmp_path / "secret.txt").write_text("not the model's")
    os.symlink(tmp_path / "secret.txt", snapshot / "notes.txt")
    with pytest.raises(CheckpointError) as caught:
        hub_cache.resolve("openai-community/tiny-gpt2", cache)
    assert caught.value.code == "cache_link_outside" and "notes.txt" in str(caught.value)


def test_the_cache_list_holds_the_models_an_importer_reads(cache, hub_folder, tmp_path):
    add_to_cache(cache, "meta/tiny-llama", hub_folder("llama-gqa"))
    unknown = tmp_path / "unknown"
    unknown.mkdir()
    (unknown / "config.json").write_text('{"model_type": "no-such-family"}')
    add_to_cache(cache, "org/unknown", unknown)
    listed = hub_cache.cached_models(cache)
    assert [(m.name, m.family) for m in listed] == [("meta/tiny-llama", "Llama"), ("openai-community/tiny-gpt2", "GPT-2")]
    assert all(m.size.endswith(("KB", "MB")) and (m.path / "config.json").is_file() for m in listed)


def test_no_cache_lists_nothing(tmp_path):
    assert hub_cache.cached_models(tmp_path / "none") == []
