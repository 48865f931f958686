"""What the Llama and Qwen2 importers (core_model/importers/llama.py, qwen2.py, checkpoints/hub_llama.py) read of
their folders and what they refuse. Their numbers against transformers' LlamaForCausalLM and Qwen2ForCausalLM are
tested with every family's in tests/core/test_families.py, on the folders of tests/families/llama.py: a Llama with
grouped-query attention (4 query heads, 2 key/value heads), a multi-query Llama (1 key/value head, a pad token of
its own, tied embeddings) and a Qwen2 (biases on Q, K and V; no bos token in its config).
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import torch

from core_model import checkpoints
from core_model.checkpoints import CheckpointError
from core_model.trace import run_with_trace

os.environ["HF_HUB_OFFLINE"] = "1"  # everything is made here; nothing is fetched
transformers = pytest.importorskip("transformers")

from tests.families import FAMILIES  # noqa: E402  (after the skip: it imports transformers)
from tests.families.compare import SENTENCES, feed  # noqa: E402
from tests.families.build import copy_with_config  # noqa: E402

KINDS = ("llama-gqa", "llama-mqa", "qwen2")


@pytest.fixture(scope="module", params=KINDS)
def kind(request):
    return request.param


@pytest.fixture(scope="module")
def ours(hub_folder, kind):
    return checkpoints.load(hub_folder(kind))


def test_the_key_value_cache_holds_the_shared_heads_once(ours, kind):
    kv = FAMILIES[kind].fields["num_key_value_heads"]
    ids = feed(ours, SENTENCES[:1]).tgt
    _, trace = run_with_trace(ours.model, None, ids)
    view, n = trace.attn("decoder", 1), ids.shape[1]
    assert ours.config.kv_heads == kv and ours.config.n_heads == 4
    assert view.k.shape == view.v.shape == (1, kv, n, 8) and view.q.shape == view.z.shape == (1, 4, n, 8)
    cache = ours.model.new_cache()
    ours.model.decode(ids, cache=cache)
    assert cache.layers[0]["self_attn"]["k"].shape == (1, kv, n, 8)


def test_the_import_has_the_familys_shape(ours, kind):
    cfg, fields = ours.config, FAMILIES[kind].fields
    assert (cfg.architecture, cfg.norm, cfg.norm_placement, cfg.positional, cfg.rope_layout, cfg.ffn) == \
        ("decoder", "rmsnorm", "pre", "rope", "halves", "gated")
    assert (cfg.activation, cfg.scale_embedding, cfg.output_bias, cfg.ffn_bias) == ("silu", False, False, False)
    assert cfg.positional_base == fields.get("rope_theta", 10000.0)
    assert cfg.tie_embeddings == fields.get("tie_word_embeddings", False)
    qwen = FAMILIES[kind].model_type == "qwen2"
    assert (cfg.bias, cfg.attn_out_bias) == ((True, False) if qwen else (False, True))
    attn = ours.model.decoder.layers[0].self_attn
    assert (attn.q_proj.bias is not None, attn.out_proj.bias is None) == (qwen, True)
    if qwen:  # no bos in its config: the decoder starts from eos, which pads too, unmasked
        assert cfg.bos_id == cfg.eos_id == cfg.pad_id == 0 and cfg.mask_padding is False
    elif kind == "llama-mqa":  # a pad token of its own is masked
        assert (cfg.bos_id, cfg.eos_id, cfg.pad_id, cfg.mask_padding) == (1, 2, 0, True)


# ----- what is refused ---------------------------------------------------------------------------------------

REFUSED = [("rope_scaling", {"rope_type": "dynamic", "factor": 2.0}, "rope_scaling.rope_type"),  # (key, value, named)
           ("rope_scaling", {"type": "yarn", "factor": 8.0}, "rope_scaling.type"),
           ("rope_parameters", {"rope_type": "longrope", "rope_theta": 10000.0}, "rope_parameters.rope_type"),
           ("rope_parameters", {"rope_type": "linear", "factor": "2"}, "rope_parameters.factor"),
           ("rope_parameters", {"rope_type": "default", "partial_rotary_factor": 0.5},
            "rope_parameters.partial_rotary_factor"),
           ("hidden_act", "tanh", "hidden_act"), ("eos_token_id", [1, 2], "eos_token_id")]


@pytest.mark.parametrize("field, value, named", REFUSED)
def test_a_setting_it_cannot_reproduce_is_named(hub_folder, tmp_path, field, value, named):
    with pytest.raises(CheckpointError, match=f"config.json has {named} = ") as caught:
        checkpoints.load(copy_with_config(hub_folder("llama-gqa"), tmp_path / "x", **{field: value}))
    assert caught.value.code == "import_setting" and caught.value.fields["name"] == named


def test_llama3_scaling_lacking_a_number_is_named(hub_folder, tmp_path):
    scaling = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0}  # high_freq_factor missing
    with pytest.raises(CheckpointError, match="lacks rope_scaling.high_freq_factor") as caught:
        checkpoints.load(copy_with_config(hub_folder("llama-gqa"), tmp_path / "x", rope_scaling=scaling))
    assert caught.value.code == "import_lacks"


def test_an_older_config_with_rope_theta_and_null_rope_scaling_loads(hub_folder, tmp_path):
    copy = copy_with_config(hub_folder("llama-gqa"), tmp_path / "x", rope_theta=500.0, rope_scaling=None)
    config = json.loads((copy / "config.json").read_text())
    del config["rope_parameters"]
    (copy / "config.json").write_text(json.dumps(config))
    assert checkpoints.load(copy).config.positional_base == 500.0


def test_a_sentencepiece_style_tokenizer_is_refused_naming_the_file(hub_folder, tmp_path):
    copy = Path(shutil.copytree(hub_folder("llama-gqa"), tmp_path / "x"))
    data = json.loads((copy / "tokenizer.json").read_text())
    data["decoder"] = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}
    (copy / "tokenizer.json").write_text(json.dumps(data))
    with pytest.raises(CheckpointError, match="tokenizer.json is not a byte-level BPE tokenizer") as caught:
        checkpoints.load(copy)
    assert caught.value.code == "tokenizer_not_byte_level"


# ----- what the core gained for it ------------------------------------------------------------------------

def test_an_old_config_without_the_new_fields_loads_with_their_defaults():
    from core_model import ModelConfig

    data = ModelConfig().to_dict()
    for name in ("n_kv_heads", "rope_layout", "ffn", "ffn_bias", "attn_out_bias"):
        del data[name]
    cfg = ModelConfig.from_dict(data)
    assert (cfg.n_kv_heads, cfg.kv_heads, cfg.rope_layout, cfg.ffn, cfg.ffn_bias, cfg.attn_out_bias) == \
        (0, 4, "interleaved", "plain", True, True)
    assert [cfg.kv_head(h) for h in range(4)] == [0, 1, 2, 3]


@pytest.mark.parametrize("overrides, field", [({"n_kv_heads": 3}, "n_kv_heads"), ({"n_kv_heads": -1}, "n_kv_heads"),
                                              ({"rope_layout": "halves"}, "rope_layout"), ({"ffn": "swiglu"}, "ffn"),
                                              ({"ffn_bias": "no"}, "ffn_bias"), ({"attn_out_bias": 0}, "attn_out_bias")])
def test_bad_new_fields_are_refused_naming_them(overrides, field):
    from core_model import ModelConfig

    with pytest.raises(ValueError, match=field):
        ModelConfig(**overrides)


def test_rope_in_halves_is_the_interleaved_rotation_of_permuted_dimensions():
    from core_model.nn.positional import rope_rotate

    x, positions = torch.randn(1, 2, 5, 8), torch.arange(3, 8)
    order = torch.tensor([0, 4, 1, 5, 2, 6, 3, 7])  # dimension i pairs with i + 4 in halves, with i + 1 interleaved
    halves = rope_rotate(x, positions, 100.0, "halves")
    assert torch.allclose(halves[..., order], rope_rotate(x[..., order], positions, 100.0), atol=1e-6)


def test_a_gated_ffn_without_biases_is_down_of_silu_gate_times_up():
    from core_model import ModelConfig
    from core_model.nn.layers import FeedForward

    ffn = FeedForward(ModelConfig(d_model=8, n_heads=2, d_ff=16, ffn="gated", ffn_bias=False, activation="silu")).eval()
    x = torch.randn(2, 3, 8)
    want = ffn.linear2(torch.nn.functional.silu(ffn.gate(x)) * ffn.linear1(x))
    assert ffn.linear1.bias is None and ffn.gate.bias is None and torch.equal(ffn(x), want)
