"""What the Phi importer (core_model/importers/phi.py) reads of its folder and what it refuses. Its numbers against
transformers' PhiForCausalLM are tested with every family's in tests/core/test_families.py, on the folder of
tests/families/neox.py: a Phi with partial_rotary_factor 0.5 (RoPE on 4 of each head's 8 dimensions)."""
from __future__ import annotations

import os

import pytest
import torch

from core_model import checkpoints
from core_model.checkpoints import CheckpointError
from core_model.trace import run_with_trace

os.environ["HF_HUB_OFFLINE"] = "1"  # everything is made here; nothing is fetched
pytest.importorskip("transformers")

from tests.families.compare import SENTENCES, feed  # noqa: E402  (after the skip: it imports transformers)
from tests.families.build import copy_with_config  # noqa: E402


@pytest.fixture(scope="module")
def phi(hub_folder):
    return checkpoints.load(hub_folder("phi"))


def test_the_import_has_the_familys_shape(phi):
    cfg = phi.config
    assert (cfg.block, cfg.norm, cfg.norm_placement, cfg.positional, cfg.rope_layout, cfg.ffn) == \
        ("parallel_shared", "layernorm", "pre", "rope", "halves", "plain")
    assert (cfg.rope_dims, cfg.bias, cfg.attn_out_bias, cfg.ffn_bias, cfg.output_bias, cfg.activation) == \
        (4, True, True, True, True, "gelu_tanh")
    layer = phi.model.decoder.layers[0]
    assert layer.norm2 is None and phi.model.generator.bias is not None  # one norm per layer; lm_head's bias


def test_one_norm_feeds_both_blocks(phi):
    _, trace = run_with_trace(phi.model, None, feed(phi, SENTENCES[:1]).tgt)
    here = "decoder.layers.0."
    assert (trace[here + "norm2"] == trace[here + "norm1"]).all()
    total = trace[here + "resid_pre"] + trace[here + "self_attn.out"] + trace[here + "ffn.out"]
    torch.testing.assert_close(torch.tensor(trace[here + "resid_post"]), torch.tensor(total))


@pytest.mark.parametrize("field, value", [("qk_layernorm", True), ("head_dim", 16), ("hidden_act", "tanh")])
def test_a_setting_it_cannot_reproduce_is_named(hub_folder, tmp_path, field, value):
    with pytest.raises(CheckpointError, match=f"config.json has {field} = ") as caught:
        checkpoints.load(copy_with_config(hub_folder("phi"), tmp_path / "x", **{field: value}))
    assert caught.value.code == "import_setting" and caught.value.fields["family"] == "Phi"
    assert caught.value.fields["name"] == field


def test_an_older_config_with_partial_rotary_factor_beside_the_others_loads(hub_folder, tmp_path):
    copy = copy_with_config(hub_folder("phi"), tmp_path / "x", rope_parameters=None, partial_rotary_factor=0.25,
                            rope_theta=500.0)
    cfg = checkpoints.load(copy).config
    assert (cfg.rope_dims, cfg.positional_base) == (2, 500.0)
    whole = checkpoints.load(copy_with_config(copy, tmp_path / "y", partial_rotary_factor=1.0)).config
    assert (whole.rope_dims, whole.rotary_dims) == (0, 8)  # the whole head: 0, as a config that never says
