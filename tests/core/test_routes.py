"""Limits that fit the route (core_model/checkpoints/safe_load.Route): a visitor's model keeps every hostile-input
limit; the operator's own (folder.load(path, trusted=True): `attention-viz --model`, the cache on a local run) is
bounded only by the machine's memory, refused with the figures when it cannot fit, and memory-mapped."""
from __future__ import annotations

import os
import sys

import pytest

from core_model import checkpoints
from core_model.checkpoints import CheckpointError, folder, safe_load
from core_model.checkpoints.safe_load import Route

pytest.importorskip("transformers")  # the folder is made by transformers (tests/families)


@pytest.fixture
def small_visitor_limit(monkeypatch):
    """A visitor's weights limited to 10 KB, far below the tiny GPT-2's: what an upload of a real model meets."""
    monkeypatch.setattr(folder, "VISITOR", Route("visitor", 10_000))


def test_a_visitor_model_over_the_limit_is_refused_and_the_operators_same_folder_loads(hub_folder, small_visitor_limit):
    with pytest.raises(CheckpointError) as caught:
        checkpoints.load(hub_folder("gpt2"))
    assert caught.value.code in ("file_too_big", "model_too_big") and "10 KB" in str(caught.value)
    loaded = checkpoints.load(hub_folder("gpt2"), trusted=True)
    assert loaded.config.n_decoder_layers == 2


def test_the_operators_model_too_big_for_the_memory_is_refused_with_the_figures(hub_folder, monkeypatch):
    monkeypatch.setattr(safe_load, "available_memory", lambda: 100_000)
    with pytest.raises(CheckpointError) as caught:
        checkpoints.load(hub_folder("gpt2"), trusted=True)
    e = caught.value
    n = safe_load.weight_count(checkpoints.load(hub_folder("gpt2")).config)  # a visitor's load is not bounded so
    assert (e.code, e.kind, e.fields["free"], e.fields["need"]) == ("model_no_memory", "memory", "98 KB",
                                                                    safe_load.size_text(8 * n))
    assert "98 KB free" in str(e)


def test_the_operators_weights_are_memory_mapped_and_a_visitors_read_and_checked_whole(hub_folder, monkeypatch):
    read = []
    real = safe_load.load_safetensors
    monkeypatch.setattr(safe_load, "load_safetensors", lambda data: read.append(len(data)) or real(data))
    checkpoints.load(hub_folder("gpt2"), trusted=True)
    assert read == []  # safetensors mapped the file: no whole copy read into memory
    checkpoints.load(hub_folder("gpt2"))
    assert read == [(hub_folder("gpt2") / "model.safetensors").stat().st_size]


def test_the_route_ends_with_the_load(hub_folder, small_visitor_limit):
    checkpoints.load(hub_folder("gpt2"), trusted=True)
    assert safe_load.weight_limit() == safe_load.MAX_WEIGHT_BYTES  # the next load is a visitor's again
    with pytest.raises(CheckpointError):
        checkpoints.load(hub_folder("gpt2"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="read from /proc/meminfo")
def test_available_memory_is_read_on_linux():
    free = safe_load.available_memory()
    assert isinstance(free, int) and 0 < free <= os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
