"""What the GPT-NeoX importer (core_model/importers/gpt_neox.py) reads of its folders and what it refuses, and the
core options it needed: ModelConfig.block (parallel layers) and rope_dims (RoPE on part of each head). Its numbers
against transformers' GPTNeoXForCausalLM are tested with every family's in tests/core/test_families.py, on the
folders of tests/families/neox.py: a Pythia (parallel blocks, rotary_pct 0.25) and a sequential GPT-NeoX (rotary_pct
0.5, base 500, gelu_new, a pad token of its own).
"""
from __future__ import annotations

import os

import pytest
import torch
from safetensors import safe_open

from core_model import ModelConfig, checkpoints
from core_model.checkpoints import CheckpointError
from core_model.nn.positional import rope_rotate
from core_model.trace import run_with_trace

os.environ["HF_HUB_OFFLINE"] = "1"  # everything is made here; nothing is fetched
pytest.importorskip("transformers")

from tests.families.compare import SENTENCES, feed  # noqa: E402  (after the skip: it imports transformers)
from tests.families.build import copy_with_config  # noqa: E402


@pytest.fixture(scope="module")
def pythia(hub_folder):
    return checkpoints.load(hub_folder("pythia"))


def test_the_import_has_the_familys_shape(pythia, hub_folder):
    cfg = pythia.config
    assert (cfg.block, cfg.norm, cfg.norm_placement, cfg.positional, cfg.rope_layout, cfg.ffn) == \
        ("parallel", "layernorm", "pre", "rope", "halves", "plain")
    assert (cfg.d_head, cfg.rope_dims, cfg.rotary_dims, cfg.positional_base) == (8, 2, 2, 10000.0)  # 0.25 × 8
    assert (cfg.bias, cfg.ffn_bias, cfg.output_bias, cfg.tie_embeddings, cfg.activation) == \
        (True, True, False, False, "gelu")
    assert (cfg.bos_id, cfg.eos_id, cfg.pad_id, cfg.mask_padding) == (0, 0, 0, False)  # no pad id: eos, unmasked
    sequential = checkpoints.load(hub_folder("neox-sequential")).config
    assert (sequential.block, sequential.rope_dims, sequential.positional_base, sequential.activation) == \
        ("sequential", 4, 500, "gelu_tanh")
    assert (sequential.pad_id, sequential.mask_padding) == (1, True)


def test_query_key_value_is_split_head_by_head(pythia, hub_folder):
    # The fused rows are [h, 3, d_head]: head 1's query rows are rows 24 … 31, its key rows 32 … 39.
    with safe_open(hub_folder("pythia") / "model.safetensors", "pt") as f:
        fused = f.get_tensor("gpt_neox.layers.0.attention.query_key_value.weight")  # [3 × 32, 32]
        bias = f.get_tensor("gpt_neox.layers.0.attention.query_key_value.bias")
    attn = pythia.model.decoder.layers[0].self_attn
    assert torch.equal(attn.q_proj.weight[8:16], fused[24:32]) and torch.equal(attn.k_proj.weight[8:16], fused[32:40])
    assert torch.equal(attn.v_proj.bias[24:32], bias[88:96])  # head 3's values: the last rows


def test_a_parallel_layer_adds_attention_and_ffn_to_its_input(pythia):
    _, trace = run_with_trace(pythia.model, None, feed(pythia, SENTENCES[:1]).tgt)

    def leaf(name):
        return torch.tensor(trace[f"decoder.layers.1.{name}"])

    attn, ffn = leaf("self_attn.out"), leaf("ffn.out")
    torch.testing.assert_close(leaf("resid_post"), leaf("resid_pre") + attn + ffn)
    layer = pythia.model.decoder.layers[1]
    with torch.no_grad():  # each branch reads the layer's input through its own norm
        torch.testing.assert_close(leaf("norm2"), layer.norm2(leaf("resid_pre")))
    assert not torch.allclose(leaf("norm2"), leaf("norm1"), atol=1e-3)


# ----- what is refused ---------------------------------------------------------------------------------------

REFUSED = [("rope_parameters.rope_type", {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 2.0}),
           ("partial_rotary_factor", {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.1}),
           ("use_parallel_residual", "yes"), ("attention_bias", 1)]


@pytest.mark.parametrize("field, value", REFUSED)
def test_a_setting_it_cannot_reproduce_is_named(hub_folder, tmp_path, field, value):
    key = "rope_parameters" if field in ("partial_rotary_factor", "rope_parameters.rope_type") else field
    with pytest.raises(CheckpointError, match=f"config.json has {field} = ") as caught:
        checkpoints.load(copy_with_config(hub_folder("pythia"), tmp_path / "x", **{key: value}))
    assert caught.value.code == "import_setting" and caught.value.fields["family"] == "GPT-NeoX"


def test_an_older_config_with_rotary_pct_and_rotary_emb_base_loads(hub_folder, tmp_path):
    copy = copy_with_config(hub_folder("pythia"), tmp_path / "x", ("rope_parameters",), rotary_pct=0.5,
                            rotary_emb_base=321)
    cfg = checkpoints.load(copy).config
    assert (cfg.rope_dims, cfg.positional_base) == (4, 321)
    with pytest.raises(CheckpointError, match="config.json has rotary_pct = 0.1") as caught:  # int(0.8): no pair
        checkpoints.load(copy_with_config(copy, tmp_path / "y", rotary_pct=0.1))
    assert caught.value.fields["name"] == "rotary_pct"


# ----- what the core gained for it ------------------------------------------------------------------------

def test_rope_dims_turns_the_first_dimensions_as_a_head_of_that_width_and_passes_the_rest():
    x, positions = torch.randn(1, 2, 5, 8), torch.arange(3, 8)
    turned = rope_rotate(x, positions, 100.0, "halves", dims=4)
    assert torch.equal(turned[..., 4:], x[..., 4:])
    assert torch.equal(turned[..., :4], rope_rotate(x[..., :4], positions, 100.0, "halves"))
    assert not torch.allclose(turned[..., :4], x[..., :4])
    assert torch.equal(rope_rotate(x, positions, 100.0, "halves", dims=8), rope_rotate(x, positions, 100.0, "halves"))


def test_an_old_config_without_block_and_rope_dims_loads_sequential_and_fully_rotated():
    data = ModelConfig().to_dict()
    del data["block"], data["rope_dims"]
    cfg = ModelConfig.from_dict(data)
    assert (cfg.block, cfg.rope_dims, cfg.rotary_dims) == ("sequential", 0, cfg.d_head)


@pytest.mark.parametrize("overrides, field", [
    ({"block": "side_by_side"}, "block"), ({"block": "parallel", "norm_placement": "post"}, "block"),
    ({"block": "parallel", "architecture": "encoder-decoder", "norm_placement": "pre"}, "block"),
    ({"rope_dims": 4}, "rope_dims"),  # a sinusoidal model has no rotation
    ({"rope_dims": 3, "positional": "rope"}, "rope_dims"), ({"rope_dims": 18, "positional": "rope"}, "rope_dims"),
    ({"rope_dims": -2, "positional": "rope"}, "rope_dims"), ({"rope_dims": True, "positional": "rope"}, "rope_dims")])
def test_bad_block_and_rope_dims_are_refused_naming_them(overrides, field):
    with pytest.raises(ValueError, match=field):
        ModelConfig(**overrides)
