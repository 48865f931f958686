"""A load tells how far its weights are read (issue 36, "loading fast"): checkpoints.load(folder, progress=...) calls
progress(file_name, done_bytes, total_bytes) file after file and tensor by tensor, whichever importer reads the folder
and on either route, the bytes being the tensors' as stored, done reaching total at the end. The expected bytes here
are read from the files themselves: a file's size less its 8-byte length and its header."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

from core_model import checkpoints

pytest.importorskip("transformers")  # the folders are made by transformers (tests/families)

MODELS = Path(__file__).resolve().parents[2] / "assets" / "models"


def data_bytes(f) -> int:
    """The bytes of a safetensors file's tensors: all of it but the header's length and the header."""
    raw = f.read_bytes()
    return len(raw) - 8 - int.from_bytes(raw[:8], "little")


def told(folder, **how) -> list[tuple[str, int, int]]:
    calls = []
    checkpoints.load(folder, progress=lambda *call: calls.append(call), **how)
    return calls


def shards(folder):
    return sorted(folder.glob("model-*.safetensors"))


def assert_read_in_order(calls, files):
    """Every file named in order, the bytes never going back, each file's last call at the bytes of the files so
    far, the last at the total."""
    assert [f for i, (f, _, _) in enumerate(calls) if i == 0 or calls[i - 1][0] != f] == [f.name for f in files]
    done = [d for _, d, _ in calls]
    assert done == sorted(done)
    total = sum(data_bytes(f) for f in files)
    assert {t for _, _, t in calls} == {total}
    ends = [d for i, (f, d, _) in enumerate(calls) if i + 1 == len(calls) or calls[i + 1][0] != f]
    assert ends == [sum(data_bytes(f) for f in files[:i + 1]) for i in range(len(files))]
    assert done[-1] == total


@pytest.mark.parametrize("trusted", [True, False], ids=["operator", "visitor"])
def test_a_sharded_folder_is_told_shard_after_shard(hub_folder, trusted):
    folder = hub_folder("llama-sharded")
    assert len(shards(folder)) >= 3
    assert_read_in_order(told(folder, trusted=trusted), shards(folder))


def test_one_file_moves_tensor_by_tensor(hub_folder):
    weights = hub_folder("gpt2") / "model.safetensors"
    calls = told(weights.parent, trusted=True)
    assert len(calls) == len(load_file(weights)) > 10  # once per tensor, not once at the end
    assert 0 < calls[0][1] < calls[1][1] < calls[-1][1]  # the bar moves within the file
    assert_read_in_order(calls, [weights])


def test_the_bytes_are_the_stored_ones_of_bfloat16_shards(hub_folder, tmp_path):
    folder = shutil.copytree(hub_folder("llama-sharded"), tmp_path / "bf16")
    float32 = sum(data_bytes(f) for f in shards(folder))
    for f in shards(folder):
        save_file({k: v.to(torch.bfloat16) for k, v in load_file(f).items()}, f, metadata={"format": "pt"})
    calls = told(folder, trusted=True)
    assert_read_in_order(calls, shards(folder))
    assert calls[-1][2] == float32 // 2  # what is read from disk, not the float32 it becomes


def test_the_callback_ends_with_its_load(hub_folder):
    calls = []
    checkpoints.load(hub_folder("gpt2"), trusted=True, progress=lambda *call: calls.append(call))
    n = len(calls)
    checkpoints.load(hub_folder("gpt2"), trusted=True)
    assert n > 0 and len(calls) == n  # the next load, without a callback, tells nobody


def test_our_own_folder_is_told_too():
    weights = MODELS / "reverse" / "model.safetensors"  # read by folder.py, not by an importer
    calls = told(weights.parent)
    assert len(calls) == len(load_file(weights))
    assert_read_in_order(calls, [weights])
