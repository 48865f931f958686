"""What the ELECTRA importer (core_model/importers/electra.py) reads: embeddings narrower than the layers, projected
by embeddings_project (ModelConfig.d_embed), and none where the widths are equal (transformers then has no
projection). ElectraForPreTraining's numbers against transformers are tested in tests/core/test_families.py."""
from __future__ import annotations

import dataclasses
import os

import pytest

from core_model import checkpoints

os.environ["HF_HUB_OFFLINE"] = "1"  # everything is made here; nothing is fetched
pytest.importorskip("transformers")

from tests.families.build import build, reference  # noqa: E402
from tests.families.compare import SENTENCES, compare  # noqa: E402
from tests.families.encoders import ELECTRA  # noqa: E402


def test_narrow_embeddings_are_projected_to_the_layers_width(hub_folder):
    ours = checkpoints.load(hub_folder("electra"))
    assert (ours.config.d_embed, ours.config.d_model) == (16, 32)
    assert ours.model.src_embed.tok.weight.shape == (ours.config.src_vocab_size, 16)
    assert ours.model.src_embed.project.weight.shape == (32, 16)


def test_embeddings_as_wide_as_the_layers_have_no_projection(tmp_path):
    family = dataclasses.replace(ELECTRA, name="electra-wide", model_class="ElectraModel",
                                 fields={**ELECTRA.fields, "embedding_size": 32}, output="last_hidden_state")
    folder = build(family, tmp_path / "electra-wide")
    ours = checkpoints.load(folder)
    assert ours.config.d_embed == 0 and ours.model.src_embed.project is None
    seen = compare(ours, reference(family, folder), SENTENCES[:1], family.output)
    assert seen["last_hidden_state"] < 1e-4
