"""What the RoBERTa importer (core_model/importers/roberta.py) reads of its folder and refuses: positions offset by
the padding id, one token type, <s> … </s> framing. Its numbers against transformers' RobertaForMaskedLM are tested in
tests/core/test_families.py on tests/families/encoders.py's folder."""
from __future__ import annotations

import os

import pytest
from safetensors.torch import load_file

from core_model import checkpoints
from core_model.checkpoints import CheckpointError

os.environ["HF_HUB_OFFLINE"] = "1"  # everything is made here; nothing is fetched
pytest.importorskip("transformers")

from tests.families.build import copy_with_config  # noqa: E402


def test_position_p_is_the_stored_tables_row_p_plus_pad_plus_one(hub_folder):
    folder = hub_folder("roberta")
    ours = checkpoints.load(folder)
    cfg = ours.config
    assert (cfg.max_len, cfg.pad_id, cfg.bos_id, cfg.eos_id, cfg.type_vocab_size) == (128, 1, 0, 2, 1)  # 130 - 2
    table = load_file(folder / "model.safetensors")["roberta.embeddings.position_embeddings.weight"]  # [130, d]
    assert (ours.model.state_dict()["src_embed.pos.weight"] == table[2:]).all()
    tok = ours.tokenizers["src"]
    framed = tok.display_pieces(tok.frame(tok.encode("cat")))
    assert (framed[0], framed[-1]) == ("<s>", "</s>")


@pytest.mark.parametrize("fields, named", [
    (dict(max_position_embeddings=2), "max_position_embeddings"),  # no row left after the offset
    (dict(position_embedding_type="relative_key"), "position_embedding_type"),
    (dict(pad_token_id=0), "pad_token_id"),  # the tokenizer pads with <pad>, id 1
])
def test_what_it_cannot_reproduce_is_refused_naming_the_field(hub_folder, tmp_path, fields, named):
    with pytest.raises(CheckpointError, match=named):
        checkpoints.load(copy_with_config(hub_folder("roberta"), tmp_path / "roberta", **fields))
