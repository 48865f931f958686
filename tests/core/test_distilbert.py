"""What the DistilBERT importer (core_model/importers/distilbert.py) reads of its folders: no token types, LayerNorm
eps 1e-12, and a sinusoidal model's table read as it is stored. Their numbers against transformers' are tested in
tests/core/test_families.py on tests/families/encoders.py's folders (DistilBertForMaskedLM, a sinusoidal
DistilBertModel)."""
from __future__ import annotations

import os

import pytest
from safetensors.torch import load_file

from core_model import checkpoints

os.environ["HF_HUB_OFFLINE"] = "1"  # everything is made here; nothing is fetched
pytest.importorskip("transformers")


@pytest.mark.parametrize("kind, prefix", [("distilbert", "distilbert."), ("distilbert-sin", "")])
def test_the_import_has_distilberts_shape_and_its_stored_positions(hub_folder, kind, prefix):
    folder = hub_folder(kind)
    ours = checkpoints.load(folder)
    cfg = ours.config
    assert (cfg.architecture, cfg.n_encoder_layers, cfg.d_model, cfg.d_ff, cfg.type_vocab_size, cfg.norm_eps) == \
        ("encoder", 2, 32, 64, 0, 1e-12)
    assert ours.model.src_embed.token_type is None
    tensors = load_file(folder / "model.safetensors")
    state = ours.model.state_dict()
    assert (state["src_embed.pos.weight"] == tensors[f"{prefix}embeddings.position_embeddings.weight"]).all()
    assert (state["encoder.layers.1.norm1.weight"] == tensors[f"{prefix}transformer.layer.1.sa_layer_norm.weight"]).all()
