"""Weights as hub folders ship them: in shards (model-0000N-of-0000M.safetensors named by model.safetensors.index.json)
and in float16 or bfloat16, computed here in float32. A small Llama of tests/families, saved by transformers with
max_shard_size (the llama-sharded family, which the shared family tests and the app's upload test read too) or in
another dtype, must load through the same importer and give the float32 folder's logits (within float16's precision
where the weights were rounded); a broken index is refused naming what is wrong."""
from __future__ import annotations

import io
import json
import os
import shutil
import zipfile

import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file

from core_model import checkpoints
from core_model.checkpoints import CheckpointError, probe
from core_model.checkpoints.safe_load import INDEX, tensor_names
from tests.families.compare import SENTENCES, feed
from tests.tolerance import assert_activations_close

os.environ["HF_HUB_OFFLINE"] = "1"  # everything is made here; nothing is fetched
transformers = pytest.importorskip("transformers")

FAMILY = "llama-gqa"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")


def saved_again(base, dest, **how):
    """The base folder's model saved by transformers into `dest` (`how`: max_shard_size, dtype), tokenizer beside."""
    model = transformers.AutoModelForCausalLM.from_pretrained(base, dtype=how.pop("dtype", torch.float32))
    model.save_pretrained(dest, safe_serialization=True, **how)
    for name in TOKENIZER_FILES:
        if (base / name).is_file():
            shutil.copy(base / name, dest / name)
    return dest


@pytest.fixture(scope="module")
def base(hub_folder):
    return hub_folder(FAMILY)


@pytest.fixture(scope="module")
def sharded(hub_folder):
    return hub_folder("llama-sharded")  # llama-gqa's weights, saved with max_shard_size (tests/families/llama.py)


def logits(folder) -> torch.Tensor:
    loaded = checkpoints.load(folder)
    fed = feed(loaded, SENTENCES[:2])
    with torch.no_grad():
        return loaded.model(None, fed.tgt)


def test_a_sharded_folder_loads_as_the_whole_one(base, sharded):
    shards = sorted(p.name for p in sharded.glob("model-*.safetensors"))
    assert len(shards) >= 3 and not (sharded / "model.safetensors").exists()
    assert set(json.loads((sharded / INDEX).read_text())["weight_map"].values()) == set(shards)
    whole, parts = checkpoints.load(base), checkpoints.load(sharded)
    assert parts.config == whole.config  # the same importer read it: dispatch is config.json's model_type
    assert sorted(tensor_names(sharded)) == sorted(tensor_names(base))
    assert torch.equal(logits(sharded), logits(base))
    assert "stored in" not in parts.card


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_weights_are_computed_in_float32(base, tmp_path, dtype):
    folder = saved_again(base, tmp_path / "half", dtype=dtype, max_shard_size="60KB")
    loaded = checkpoints.load(folder)
    assert {p.dtype for p in loaded.model.parameters()} == {torch.float32}
    name = str(dtype).removeprefix("torch.")
    assert f"stored in {name}, computed in float32" in loaded.card
    got, want = logits(folder), logits(base)
    eps = {torch.float16: 2**-11, torch.bfloat16: 2**-8}[dtype]  # each weight's rounding, relative
    size = float(want.abs().max())
    assert 0 < float((got - want).abs().max()) <= 64 * eps * size  # rounded weights, computed in float32
    reference = transformers.AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
    fed = feed(loaded, SENTENCES[:1])
    with torch.no_grad():
        theirs = reference(input_ids=fed.tgt).logits
    assert_activations_close(loaded.model(None, fed.tgt).detach(), theirs, "the same rounded weights in float32")


def test_a_gpt2_in_bfloat16_shards_keeps_its_prefixed_names_and_transformers_numbers(tmp_path, hub_folder):
    folder = saved_again(hub_folder("gpt2"), tmp_path / "gpt2-bf16", dtype=torch.bfloat16,
                         max_shard_size="40KB")
    assert len(list(folder.glob("model-*.safetensors"))) >= 2
    assert all(n.startswith(("transformer.", "lm_head.")) for n in tensor_names(folder))  # GPT2LMHeadModel's names
    loaded = checkpoints.load(folder)
    assert loaded.config.architecture == "decoder" and "GPT-2" in loaded.card and "stored in bfloat16" in loaded.card
    reference = transformers.AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
    ids = torch.tensor([[loaded.config.bos_id, *loaded.tokenizers["tgt"].encode(SENTENCES[0])]])
    with torch.no_grad():
        assert_activations_close(loaded.model(None, ids), reference(input_ids=ids).logits, "GPT-2 from bfloat16")


def broken(sharded, tmp_path, change) -> Exception:
    folder = tmp_path / "broken"
    shutil.copytree(sharded, folder)
    change(folder)
    with pytest.raises(CheckpointError) as refused:
        checkpoints.load(folder)
    return refused.value


def edit_index(change):
    def edit(folder):
        index = json.loads((folder / INDEX).read_text())
        change(index["weight_map"])
        (folder / INDEX).write_text(json.dumps(index))
    return edit


def first_shard(folder):
    return sorted(folder.glob("model-*.safetensors"))[0]


def test_a_missing_shard_is_refused_naming_it(sharded, tmp_path):
    error = broken(sharded, tmp_path, lambda f: first_shard(f).unlink())
    assert error.code == "shard_missing" and error.fields["shard"] == first_shard(sharded).name


def test_a_shard_outside_the_folder_is_refused(sharded, tmp_path):
    def outside(weight_map):
        weight_map[next(iter(weight_map))] = "../model-00001-of-00009.safetensors"
    error = broken(sharded, tmp_path, edit_index(outside))
    assert (error.code, error.kind) == ("shard_name", "unsafe") and error.fields["shard"].startswith("../")


def test_a_tensor_in_two_shards_is_refused(sharded, tmp_path):
    def twice(folder):
        shards = sorted(folder.glob("model-*.safetensors"))
        first, second = load_file(shards[0]), load_file(shards[1])
        name = next(iter(first))
        save_file({**second, name: first[name]}, shards[1], metadata={"format": "pt"})
    error = broken(sharded, tmp_path, twice)
    assert error.code == "shard_mismatch" and error.fields["file"] == INDEX


def test_a_tensor_the_index_places_elsewhere_is_refused(sharded, tmp_path):
    shards = sorted(p.name for p in sharded.glob("model-*.safetensors"))

    def moved(weight_map):
        name = next(n for n, s in weight_map.items() if s == shards[0])
        weight_map[name] = shards[1]
    error = broken(sharded, tmp_path, edit_index(moved))
    assert error.code == "shard_mismatch" and error.fields["shard"] in shards


def test_an_index_without_a_weight_map_is_refused(sharded, tmp_path):
    error = broken(sharded, tmp_path, lambda f: (f / INDEX).write_text(json.dumps({"metadata": {}})))
    assert (error.code, error.fields) == ("index_invalid", {"file": INDEX})


def test_a_zipped_sharded_folder_unpacks_copies_and_passes_the_probe(sharded, tmp_path):
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        for f in sorted(sharded.iterdir()):
            archive.write(f, f"tiny/{f.name}")
    unpacked = checkpoints.extract_zip(data.getvalue(), tmp_path / "unzipped")
    copied = checkpoints.copy_folder(sharded, tmp_path / "copied")
    wanted = {*(p.name for p in sharded.glob("model-*.safetensors")), INDEX, "config.json", "tokenizer.json"}
    for folder in (unpacked, copied):
        assert {p.name for p in folder.iterdir()} >= wanted
    probe.check(unpacked)  # the upload's bounded child process loads it and runs it
    assert np.array_equal(logits(unpacked).numpy(), logits(sharded).numpy())
