"""What the GPT-Neo importer (core_model/importers/gpt_neo.py) reads of its folder and what it refuses. Its numbers
against transformers' GPTNeoForCausalLM are tested with every family's in tests/core/test_families.py, on the folder
of tests/families/neo.py (a global and a local layer, window 4); decoding past the window in test_windows.py."""
from __future__ import annotations

import os

import numpy as np
import pytest

from core_model import checkpoints
from core_model.checkpoints import CheckpointError
from core_model.trace import run_with_trace

os.environ["HF_HUB_OFFLINE"] = "1"  # everything is made here; nothing is fetched
transformers = pytest.importorskip("transformers")

from tests.families.compare import SENTENCES, compare, feed  # noqa: E402
from tests.families.build import copy_with_config, reference  # noqa: E402
from tests.families.neo import GPT_NEO  # noqa: E402


@pytest.fixture(scope="module")
def ours(hub_folder):
    return checkpoints.load(hub_folder("gpt-neo"))


def test_the_import_has_gpt_neos_shape(ours):
    cfg = ours.config
    assert (cfg.window, cfg.window_layers, cfg.scale_scores, cfg.qkv_bias, cfg.bias) == (4, (1,), False, False, True)
    assert (cfg.positional, cfg.norm, cfg.norm_placement, cfg.activation, cfg.tie_embeddings) == \
        ("learned", "layernorm", "pre", "gelu_tanh", True)
    assert (cfg.bos_id, cfg.eos_id, cfg.pad_id, cfg.unk_id, cfg.mask_padding) == (0, 0, 0, 0, False)
    attn = ours.model.decoder.layers[0].self_attn
    assert attn.q_proj.bias is None and attn.k_proj.bias is None and attn.out_proj.bias is not None
    assert "local, window 4: 1" in ours.card


def test_only_the_local_layer_is_cut_to_the_window(ours):
    fed = feed(ours, SENTENCES[:1])
    _, trace = run_with_trace(ours.model, None, fed.tgt)
    n = fed.tgt.shape[1]
    far = np.tril(np.ones((n, n), dtype=bool), -4)  # keys 4 or more tokens before the query
    assert far.sum() > 10
    local, full = trace.attn("decoder", 1), trace.attn("decoder", 0)
    assert (local.pattern[..., far] == 0).all() and np.isneginf(local.scores_masked[..., far]).all()
    assert (full.pattern[..., far] > 0).all() and np.isfinite(full.scores_masked[..., far]).all()


@pytest.mark.parametrize("fields, drop", [({"attention_layers": ["global", "global"]}, ()),
                                         ({"attention_types": [[["global"], 2]]}, ("attention_layers",))])
def test_every_layer_global_has_no_window_and_matches_transformers(hub_folder, tmp_path, fields, drop):
    copy = copy_with_config(hub_folder("gpt-neo"), tmp_path / "x", drop, **fields)
    loaded = checkpoints.load(copy)
    assert (loaded.config.window, loaded.config.window_layers) == (0, ())
    compare(loaded, reference(GPT_NEO, copy), SENTENCES[:1])


def test_attention_layers_is_read_before_attention_types_as_transformers_does(hub_folder, tmp_path):
    copy = copy_with_config(hub_folder("gpt-neo"), tmp_path / "x", attention_layers=["local", "global"])
    loaded = checkpoints.load(copy)
    assert loaded.config.window_layers == (0,)
    compare(loaded, reference(GPT_NEO, copy), SENTENCES[:1])


@pytest.mark.parametrize("field, value", [("attention_layers", ["global"]), ("attention_layers", ["global", "sparse"]),
                                          ("attention_types", [[["global", "local"], 2]]),
                                          ("attention_types", [[["global", "sparse"], 1]]),
                                          ("attention_types", [["global", 2]]), ("attention_types", [[["local"], "2"]]),
                                          ("attention_types", "global")])
def test_layer_types_it_cannot_spell_out_are_named(hub_folder, tmp_path, field, value):
    drop = ("attention_layers",) if field == "attention_types" else ()
    with pytest.raises(CheckpointError, match=f"config.json has {field} = ") as caught:
        checkpoints.load(copy_with_config(hub_folder("gpt-neo"), tmp_path / "x", drop, **{field: value}))
    assert caught.value.code == "import_setting" and caught.value.fields["family"] == "GPT-Neo"
