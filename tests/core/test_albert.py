"""What the ALBERT importer (core_model/importers/albert.py) reads: one layer's weights in every layer, a factorised
embedding (ModelConfig.d_embed), GELU's tanh approximation, a sentencepiece tokenizer framing [CLS] … [SEP]; and what
it refuses. AlbertForMaskedLM's numbers against transformers are tested in tests/core/test_families.py."""
from __future__ import annotations

import os

import pytest
from safetensors.torch import load_file

from core_model import checkpoints
from core_model.checkpoints import CheckpointError

os.environ["HF_HUB_OFFLINE"] = "1"  # everything is made here; nothing is fetched
pytest.importorskip("transformers")

from tests.families.build import copy_with_config  # noqa: E402

SHARED = "albert.encoder.albert_layer_groups.0.albert_layers.0"


def test_every_layer_holds_the_one_shared_layer(hub_folder):
    folder = hub_folder("albert")
    ours = checkpoints.load(folder)
    cfg, state = ours.config, ours.model.state_dict()
    assert (cfg.n_encoder_layers, cfg.d_embed, cfg.d_model, cfg.activation) == (3, 16, 32, "gelu_tanh")
    shared = load_file(folder / "model.safetensors")[f"{SHARED}.attention.query.weight"]
    for i in range(3):
        assert (state[f"encoder.layers.{i}.self_attn.q_proj.weight"] == shared).all()
    tok = ours.tokenizers["src"]
    framed = tok.display_pieces(tok.frame(tok.encode("cat")))
    assert (framed[0], framed[-1]) == ("[CLS]", "[SEP]")


@pytest.mark.parametrize("field", ["num_hidden_groups", "inner_group_num"])
def test_more_than_one_shared_layer_is_refused_naming_the_field(hub_folder, tmp_path, field):
    with pytest.raises(CheckpointError, match=field):
        checkpoints.load(copy_with_config(hub_folder("albert"), tmp_path / "albert", **{field: 2}))
