"""Gemma (core_model/importers/gemma.py), heads of their own width (ModelConfig.head_dim) and RoPE scaling
(ModelConfig.rope_scaling, read from Llama-style folders by checkpoints/hub_llama.py): what the imports read and what
they refuse. Their numbers against transformers' GemmaForCausalLM and LlamaForCausalLM are tested with every
family's in tests/core/test_families.py, on the folders of tests/families/gemma.py: a multi-query Gemma with heads of
16 in a 32-wide model, a Llama with llama3 scaling and heads of 12, a Llama with linear scaling.
"""
from __future__ import annotations

import json
import math
import os

import pytest
import torch
from safetensors.torch import load_file

from core_model import ModelConfig, checkpoints
from core_model.checkpoints import CheckpointError
from core_model.nn.positional import RopeScaling, rope_rotate

os.environ["HF_HUB_OFFLINE"] = "1"  # everything is made here; nothing is fetched
transformers = pytest.importorskip("transformers")

from tests.core.test_llama import copy_with_config  # noqa: E402  (after the skip: it imports transformers)


@pytest.fixture(scope="module")
def gemma(hub_folder):
    return checkpoints.load(hub_folder("gemma"))


def test_gemma_has_its_familys_shape(gemma):
    cfg, attn = gemma.config, gemma.model.decoder.layers[0].self_attn
    assert (cfg.head_dim, cfg.d_head, cfg.n_heads, cfg.kv_heads, cfg.d_model) == (16, 16, 4, 1, 32)
    assert (cfg.scale_embedding, cfg.activation, cfg.ffn, cfg.norm, cfg.tie_embeddings) == \
        (True, "gelu_tanh", "gated", "rmsnorm", True)
    assert attn.q_proj.weight.shape == (64, 32) and attn.k_proj.weight.shape == (16, 32)
    assert attn.out_proj.weight.shape == (32, 64) and attn.q_proj.bias is None
    assert "4 heads of width 16 sharing 1 key/value heads" in gemma.card


def test_gemmas_norm_weights_are_one_plus_the_files(gemma, hub_folder):
    theirs = load_file(hub_folder("gemma") / "model.safetensors")
    layers = gemma.model.decoder.layers
    for ours, its in ((layers[1].norm2.weight, "model.layers.1.post_attention_layernorm.weight"),
                      (gemma.model.decoder.final_norm.weight, "model.norm.weight")):
        assert torch.equal(ours.detach(), 1.0 + theirs[its])
        assert float((ours.detach() - 1).abs().max()) > 0.1  # the file's weights are far from 0 (tests/families/build)


@pytest.mark.parametrize("act", ["gelu", "gelu_pytorch_tanh"])
def test_gemmas_gelu_is_the_tanh_approximation(hub_folder, tmp_path, act):
    assert checkpoints.load(copy_with_config(hub_folder("gemma"), tmp_path / "x", hidden_act=act)).config.activation \
        == "gelu_tanh"


@pytest.mark.parametrize("field, value", [("use_bidirectional_attention", True), ("hidden_act", "tanh"),
                                          ("rope_parameters", {"rope_type": "yarn", "factor": 4.0})])
def test_gemma_refuses_what_the_core_cannot_reproduce_naming_it(hub_folder, tmp_path, field, value):
    with pytest.raises(CheckpointError, match=f"config.json has {field}") as caught:
        checkpoints.load(copy_with_config(hub_folder("gemma"), tmp_path / "x", **{field: value}))
    assert caught.value.code == "import_setting" and caught.value.fields["family"] == "Gemma"


def test_a_head_dim_of_hidden_over_heads_is_the_plain_width(hub_folder):
    assert json.loads((hub_folder("llama-gqa") / "config.json").read_text())["head_dim"] == 8  # transformers writes it
    cfg = checkpoints.load(hub_folder("llama-gqa")).config
    assert (cfg.head_dim, cfg.d_head) == (0, 8)
    assert checkpoints.load(hub_folder("llama-rope3")).config.d_head == 12


# ----- RoPE scaling, read as transformers reads it ----------------------------------------------------------------

LLAMA3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0}
READ = [  # config.json's fields -> what our config must hold (ours <- transformers' rope_parameters)
    dict(rope_parameters={**LLAMA3, "rope_theta": 500.0, "original_max_position_embeddings": 32}),
    dict(rope_scaling={**LLAMA3, "original_max_position_embeddings": 32}, rope_theta=300.0),  # older files
    dict(rope_scaling={"type": "linear", "factor": 2.0}, rope_parameters={"rope_type": "default"}),  # rope_scaling wins
    dict(rope_parameters=dict(LLAMA3)),  # original: max_position_embeddings
    dict(rope_parameters={**LLAMA3, "original_max_position_embeddings": 32}, original_max_position_embeddings=16),
    dict(rope_parameters=dict(LLAMA3), original_max_position_embeddings=16),  # beside them: Phi-3's, not Llama's
]


@pytest.mark.parametrize("fields", READ)
def test_rope_scaling_is_read_as_transformers_reads_it(hub_folder, tmp_path, fields):
    copy = copy_with_config(hub_folder("llama-gqa"), tmp_path / "x", **fields)
    if "rope_parameters" not in fields:
        config = json.loads((copy / "config.json").read_text())
        del config["rope_parameters"]
        (copy / "config.json").write_text(json.dumps(config))
    cfg, want = checkpoints.load(copy).config, transformers.AutoConfig.from_pretrained(copy).rope_parameters
    assert (cfg.rope_scaling, cfg.positional_base, cfg.rope_factor) == \
        (want["rope_type"], want["rope_theta"], want["factor"])
    if want["rope_type"] == "llama3":
        assert (cfg.rope_low_freq_factor, cfg.rope_high_freq_factor, cfg.rope_original_max_len) == \
            (want["low_freq_factor"], want["high_freq_factor"], want["original_max_position_embeddings"])


def test_llama3_frequencies_are_transformers_at_llama_3_1s_size():
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    config = transformers.LlamaConfig(hidden_size=4096, num_attention_heads=32, max_position_embeddings=131072,
                                      rope_parameters={**LLAMA3, "rope_theta": 500000.0,
                                                       "original_max_position_embeddings": 8192})
    want, _ = ROPE_INIT_FUNCTIONS["llama3"](config, "cpu")
    plain = 500000.0 ** (-torch.arange(0, 128, 2, dtype=torch.float32) / 128)
    got = RopeScaling("llama3", 8.0, 1.0, 4.0, 8192).scaled(plain)
    torch.testing.assert_close(got, want, rtol=1e-6, atol=0)
    kept, blended, slowed = (got == plain).sum(), ((got < plain) & (got > plain / 8)).sum(), (got == plain / 8).sum()
    assert min(kept, blended, slowed) > 0 and kept + blended + slowed == 64  # all three of llama3's rates


def test_linear_scaling_divides_positions_by_the_factor():
    x, positions = torch.randn(1, 2, 6, 8), torch.arange(6)
    scaled = rope_rotate(x, positions, 100.0, "halves", RopeScaling("linear", 4.0))
    torch.testing.assert_close(scaled, rope_rotate(x, positions / 4, 100.0, "halves"))
    assert not torch.allclose(scaled, rope_rotate(x, positions, 100.0, "halves"))


# ----- what the core gained for it ------------------------------------------------------------------------

def test_an_old_config_without_head_dim_or_rope_scaling_loads_with_their_defaults():
    data = ModelConfig(positional="rope").to_dict()
    for name in ("head_dim", "rope_scaling", "rope_factor", "rope_low_freq_factor", "rope_high_freq_factor",
                 "rope_original_max_len"):
        del data[name]
    cfg = ModelConfig.from_dict(data)
    assert (cfg.head_dim, cfg.d_head, cfg.rope_scaling, RopeScaling.of(cfg).scaled(torch.ones(2)).tolist()) == \
        (0, 16, "none", [1.0, 1.0])


def test_heads_of_their_own_width_need_no_divisible_width():
    cfg = ModelConfig(d_model=30, n_heads=4, head_dim=6, positional="rope")
    assert cfg.d_head == 6 and math.isclose(cfg.d_head * cfg.n_heads, 24)


@pytest.mark.parametrize("overrides, field", [
    ({"head_dim": -1}, "head_dim"), ({"head_dim": 5, "positional": "rope"}, "head's width"),
    ({"rope_scaling": "yarn", "positional": "rope"}, "rope_scaling"), ({"rope_scaling": "linear"}, "rope_scaling"),
    ({"rope_factor": 0}, "rope_factor"), ({"rope_original_max_len": 0}, "rope_original_max_len"),
    ({"rope_scaling": "llama3", "positional": "rope", "rope_low_freq_factor": 4.0}, "rope_high_freq_factor")])
def test_bad_head_dim_and_rope_scaling_are_refused_naming_them(overrides, field):
    with pytest.raises(ValueError, match=field):
        ModelConfig(**overrides)
