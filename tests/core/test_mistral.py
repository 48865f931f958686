"""What the Mistral importer (core_model/importers/mistral.py) reads of its folder, and Qwen2's sliding window
(importers/qwen2.py: use_sliding_window, layer_types, max_window_layers). Mistral's numbers against transformers'
MistralForCausalLM are tested with every family's in tests/core/test_families.py (tests/families/neo.py: a sliding
window of 4 in both layers, 4 query heads sharing 2 key/value heads); a Qwen2 with a sliding window is built here."""
from __future__ import annotations

import dataclasses
import os

import pytest

from core_model import checkpoints
from core_model.checkpoints import CheckpointError
from core_model.decoding import greedy

os.environ["HF_HUB_OFFLINE"] = "1"  # everything is made here; nothing is fetched
transformers = pytest.importorskip("transformers")

from tests.families.build import build, copy_with_config, reference  # noqa: E402  (after the skip: it imports transformers)
from tests.families.compare import SENTENCES, compare, generate  # noqa: E402
from tests.families.llama import QWEN2  # noqa: E402
from tests.families.neo import MISTRAL  # noqa: E402

# Qwen2 with a sliding window of 4 from layer 1 on (transformers: max_window_layers and every later layer)
QWEN2_SLIDING = dataclasses.replace(QWEN2, name="qwen2-sliding", fields=dict(
    QWEN2.fields, use_sliding_window=True, sliding_window=4, max_window_layers=1))


def test_the_import_has_mistrals_shape(hub_folder):
    cfg = checkpoints.load(hub_folder("mistral")).config
    assert (cfg.window, cfg.window_layers, cfg.n_heads, cfg.kv_heads, cfg.bias) == (4, (0, 1), 4, 2, False)
    assert (cfg.positional, cfg.rope_layout, cfg.ffn, cfg.scale_scores) == ("rope", "halves", "gated", True)


def test_a_null_sliding_window_is_none_and_matches_transformers(hub_folder, tmp_path):
    copy = copy_with_config(hub_folder("mistral"), tmp_path / "x", sliding_window=None)
    loaded = checkpoints.load(copy)
    assert (loaded.config.window, loaded.config.window_layers) == (0, ())
    compare(loaded, reference(MISTRAL, copy), SENTENCES[:1])


@pytest.fixture(scope="module")
def qwen2_sliding(tmp_path_factory):
    return build(QWEN2_SLIDING, tmp_path_factory.mktemp("qwen2") / "tiny-qwen2-sliding")


@pytest.mark.parametrize("drop", [(), ("layer_types",)])  # layer_types as saved, or worked out from max_window_layers
def test_qwen2s_sliding_window_loads_and_matches_transformers(qwen2_sliding, tmp_path, drop):
    folder = copy_with_config(qwen2_sliding, tmp_path / "x", drop)
    ours, theirs = checkpoints.load(folder), reference(QWEN2_SLIDING, folder)
    assert (ours.config.window, ours.config.window_layers) == (4, (1,))
    compare(ours, theirs, [SENTENCES[0], " ".join(SENTENCES)])
    prompt = ours.tokenizers["tgt"].encode(SENTENCES[0])
    got = greedy(ours.model, prompt, max_len=8)
    assert list(got.ids) + ([got.steps[-1].chosen] if got.finished_by == "eos" else []) == \
        generate(theirs, ours, prompt, 8, ours.config.eos_id)


def test_qwen2_without_use_sliding_window_has_no_window(hub_folder):
    assert checkpoints.load(hub_folder("qwen2")).config.window == 0


@pytest.mark.parametrize("family, fields, named", [
    ("qwen2", dict(use_sliding_window=True, sliding_window=4, layer_types=["full_attention", "chunked_attention"]),
     "layer_types"),
    ("qwen2", dict(use_sliding_window=True, sliding_window=4, layer_types=["sliding_attention"]), "layer_types"),
    ("qwen2", dict(use_sliding_window="yes"), "use_sliding_window"),
    ("mistral", dict(sliding_window=4.5), "sliding_window")])
def test_a_window_it_cannot_read_is_named(hub_folder, tmp_path, family, fields, named):
    with pytest.raises(CheckpointError, match=f"config.json has {named} = ") as caught:
        checkpoints.load(copy_with_config(hub_folder(family), tmp_path / "x", **fields))
    assert caught.value.code == "import_setting" and caught.value.fields["name"] == named
