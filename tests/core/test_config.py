"""The config: every bad value is refused with a message that names the field to fix."""
from __future__ import annotations

import dataclasses
import json

import pytest

from core_model import ModelConfig

# (overrides, the field the message must name). Values a config.json could plausibly hold:
# typos, strings for numbers, bools where numbers go, out-of-range numbers, and combinations.
BAD_VALUES = [
    ({"architecture": "transformer"}, "architecture"),
    ({"activation": "swish"}, "activation"),
    ({"norm": "batchnorm"}, "norm"),
    ({"norm_placement": "middle"}, "norm_placement"),
    ({"positional": "t5-relative"}, "positional"),
    ({"d_model": 0}, "d_model"),
    ({"d_model": "64"}, "d_model"),
    ({"d_model": 64.0}, "d_model"),
    ({"n_heads": 0}, "n_heads"),
    ({"n_heads": True}, "n_heads"),  # a bool is an int to Python, not a head count
    ({"d_ff": -1}, "d_ff"),
    ({"max_len": 0}, "max_len"),
    ({"src_vocab_size": 0}, "src_vocab_size"),
    ({"tgt_vocab_size": None}, "tgt_vocab_size"),
    ({"n_encoder_layers": -1}, "n_encoder_layers"),
    ({"n_decoder_layers": 1.5}, "n_decoder_layers"),
    ({"type_vocab_size": -2}, "type_vocab_size"),
    ({"pad_id": -1}, "pad_id"),
    ({"unk_id": "1"}, "unk_id"),
    ({"bos_id": None}, "bos_id"),
    ({"eos_id": False}, "eos_id"),
    ({"dropout": 1.0}, "dropout"),
    ({"dropout": -0.1}, "dropout"),
    ({"dropout": "0.1"}, "dropout"),
    ({"dropout": float("nan")}, "dropout"),
    ({"norm_eps": 0}, "norm_eps"),
    ({"norm_eps": 1.0}, "norm_eps"),
    ({"positional_base": 1}, "positional_base"),
    ({"positional_base": "10000"}, "positional_base"),
    ({"scale_embedding": "yes"}, "scale_embedding"),
    ({"tie_embeddings": "false"}, "tie_embeddings"),  # a truthy string would silently tie
    ({"embed_norm": 1}, "embed_norm"),
    ({"bias": None}, "bias"),
    ({"d_model": 30, "n_heads": 4}, "n_heads"),  # 30 dimensions do not split into 4 heads
    ({"d_model": 24, "n_heads": 8, "positional": "rope"}, "n_heads"),  # d_head 3 is odd
    ({"d_model": 15, "n_heads": 3}, "d_model"),  # sinusoid pairs need an even d_model
    ({"d_embed": -1}, "d_embed"),
    ({"d_embed": 16.0}, "d_embed"),
    ({"d_embed": 15}, "d_embed"),  # a factorised embedding's sinusoid is d_embed wide: it must be even
    ({"mlm_head": True}, "mlm_head"),  # an encoder's output layer: the default architecture has a decoder's
    ({"architecture": "encoder", "mlm_head": "yes"}, "mlm_head"),
    ({"n_encoder_layers": 0}, "n_encoder_layers"),
    ({"n_decoder_layers": 0}, "n_decoder_layers"),
    ({"architecture": "encoder", "n_encoder_layers": 0}, "n_encoder_layers"),
    ({"architecture": "decoder", "n_decoder_layers": 0}, "n_decoder_layers"),
    ({"architecture": "encoder", "tie_embeddings": True}, "tie_embeddings"),
    ({"pad_id": 1000}, "pad_id"),
    ({"src_vocab_size": 3}, "eos_id"),  # eos_id 3 does not fit a vocabulary of 3
    ({"architecture": "decoder", "tgt_vocab_size": 2}, "bos_id"),
]


@pytest.mark.parametrize("overrides, field", BAD_VALUES, ids=[repr(o) for o, _ in BAD_VALUES])
def test_bad_value_is_refused_naming_the_field(overrides, field):
    with pytest.raises(ValueError) as error:
        ModelConfig(**overrides)
    assert field in str(error.value)


def test_fields_a_model_does_not_use_are_not_checked():
    # A decoder-only model has no source vocabulary, so its size may be anything.
    cfg = ModelConfig(architecture="decoder", src_vocab_size=0, n_encoder_layers=0)
    assert cfg.sides == ("tgt",) and not cfg.has_encoder and cfg.has_decoder


def test_derived_properties():
    cfg = ModelConfig(d_model=48, n_heads=6, architecture="encoder")
    assert cfg.d_head == 8
    assert cfg.sides == ("src",) and cfg.has_encoder and not cfg.has_decoder


def test_config_is_frozen():
    # A shared, cached model must not have its config changed under it by one session.
    with pytest.raises(dataclasses.FrozenInstanceError):
        ModelConfig().d_model = 128


@pytest.mark.parametrize("cfg", [
    ModelConfig(),
    ModelConfig(architecture="decoder", positional="rope", norm="rmsnorm", norm_placement="pre",
                activation="gelu", tie_embeddings=True, dropout=0.0, positional_base=500.0),
    ModelConfig(architecture="encoder", positional="learned", embed_norm=True, type_vocab_size=2,
                norm_eps=1e-12, bias=False),
    ModelConfig(architecture="encoder", positional="learned", embed_norm=True, d_embed=16, mlm_head=True),
])
def test_round_trip_through_json(cfg):
    text = json.dumps(cfg.to_dict())
    assert ModelConfig.from_dict(json.loads(text)) == cfg


def test_from_dict_names_unknown_fields():
    data = {**ModelConfig().to_dict(), "n_layer": 6, "heads": 4}
    with pytest.raises(ValueError, match="unknown field.*heads, n_layer"):
        ModelConfig.from_dict(data)


def test_from_dict_names_missing_fields():
    data = ModelConfig().to_dict()
    del data["d_ff"], data["bos_id"]
    with pytest.raises(ValueError, match="missing field.*bos_id, d_ff"):
        ModelConfig.from_dict(data)


def test_from_dict_checks_values_too():
    with pytest.raises(ValueError, match="n_heads"):
        ModelConfig.from_dict({**ModelConfig().to_dict(), "n_heads": 5})


@pytest.mark.parametrize("data", [[], "d_model: 64", None])
def test_from_dict_wants_an_object(data):
    with pytest.raises(ValueError, match="JSON object"):
        ModelConfig.from_dict(data)
