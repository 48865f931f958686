"""BERT folders saved from any head class (tests/families/encoders.py: BertModel, BertForMaskedLM,
BertForSequenceClassification): the body read from under "bert.", the special ids read from the tokenizer's files,
and what the import refuses. Their numbers against transformers are tested in tests/core/test_families.py."""
from __future__ import annotations

import json
import os

import pytest
from safetensors.torch import load_file, save_file

from core_model import checkpoints
from core_model.checkpoints import CheckpointError

os.environ["HF_HUB_OFFLINE"] = "1"  # everything is made here; nothing is fetched
tokenizers = pytest.importorskip("tokenizers")
pytest.importorskip("transformers")

from tests.families.build import copy_with_config  # noqa: E402


@pytest.mark.parametrize("kind, head", [("bert-mlm", ("cls.predictions.bias", "cls.predictions.transform.dense.weight")),
                                        ("bert-cls", ("classifier.weight", "bert.pooler.dense.weight"))])
def test_a_body_under_bert_is_read_and_the_head_left_out(hub_folder, kind, head):
    folder = hub_folder(kind)
    tensors = load_file(folder / "model.safetensors")
    assert set(head) <= set(tensors)
    ours = checkpoints.load(folder)
    cfg = ours.config
    assert (cfg.architecture, cfg.n_encoder_layers, cfg.n_heads, cfg.d_model, cfg.type_vocab_size) == \
        ("encoder", 2, 4, 32, 2)
    state = ours.model.state_dict()
    assert (state["src_embed.tok.weight"] == tensors["bert.embeddings.word_embeddings.weight"]).all()
    assert (state["encoder.layers.1.ffn.linear2.bias"] == tensors["bert.encoder.layer.1.output.dense.bias"]).all()


def test_a_masked_lm_head_is_mapped_where_the_folder_has_one_tied_to_the_embedding(hub_folder, tmp_path):
    ours = {kind: checkpoints.load(hub_folder(kind)) for kind in ("bert-mlm", "bert-cls", "bert-base")}
    assert [ours[k].config.mlm_head for k in ours] == [True, False, False]
    model = ours["bert-mlm"].model
    assert model.generator.weight is model.src_embed.tok.weight
    bias = load_file(hub_folder("bert-mlm") / "model.safetensors")["cls.predictions.bias"]
    assert (model.generator.bias == bias).all()
    # an output layer of its own (not tied) is no masked-LM head the core has: the body alone, its last hidden state
    untied = checkpoints.load(copy_with_config(hub_folder("bert-mlm"), tmp_path / "untied", tie_word_embeddings=False))
    assert untied.config.mlm_head is False and not hasattr(untied.model, "generator")


def test_the_special_ids_are_the_tokenizers_wherever_they_sit(hub_folder):
    folder = hub_folder("bert-base")
    tk = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    cfg = checkpoints.load(folder).config
    ids = (cfg.pad_id, cfg.unk_id, cfg.bos_id, cfg.eos_id)
    assert ids == tuple(tk.token_to_id(t) for t in ("[PAD]", "[UNK]", "[CLS]", "[SEP]")) == (5, 2, 3, 1)


def test_the_roles_tokenizer_config_names_are_followed(hub_folder, tmp_path):
    folder = copy_with_config(hub_folder("bert-mlm"), tmp_path / "bert")
    settings = json.loads((folder / "tokenizer_config.json").read_text())
    (folder / "tokenizer_config.json").write_text(json.dumps({**settings, "cls_token": "[MASK]"}))
    ours = checkpoints.load(folder)
    mask = ours.tokenizers["src"].piece_to_id("[MASK]")
    assert ours.config.bos_id == mask != 2
    assert ours.tokenizers["src"].frame([7])[0] == mask


def test_a_missing_body_tensor_is_named_as_the_file_names_it(hub_folder, tmp_path):
    folder = copy_with_config(hub_folder("bert-mlm"), tmp_path / "bert")
    tensors = load_file(folder / "model.safetensors")
    del tensors["bert.encoder.layer.1.output.dense.bias"]
    save_file(tensors, folder / "model.safetensors")
    with pytest.raises(CheckpointError, match=r"lacks tensor\(s\) the config needs: bert\.encoder\.layer\.1\.output"):
        checkpoints.load(folder)


@pytest.mark.parametrize("field, value, named", [
    ("is_decoder", True, "is_decoder"),  # BertLMHeadModel's causal BERT
    ("add_cross_attention", True, "add_cross_attention"),
    ("pad_token_id", 3, "pad_token_id"),  # the tokenizer pads with [PAD], id 0
    ("architectures", ["BertLMHeadModel"], "BertLMHeadModel"),
])
def test_what_the_encoder_cannot_be_is_refused_naming_the_field(hub_folder, tmp_path, field, value, named):
    folder = copy_with_config(hub_folder("bert-mlm"), tmp_path / "bert", **{field: value})
    with pytest.raises(CheckpointError, match=named):
        checkpoints.load(folder)


def test_a_folder_with_vocab_txt_instead_of_tokenizer_json_reads_the_same_ids(hub_folder, tmp_path):
    """BERT's older repositories ship vocab.txt (one piece a line, by id) and no tokenizer.json."""
    folder = copy_with_config(hub_folder("bert-base"), tmp_path / "bert")
    tk = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    vocab = tk.get_vocab()
    (folder / "vocab.txt").write_text("".join(f"{p}\n" for p in sorted(vocab, key=vocab.get)), encoding="utf-8")
    (folder / "tokenizer.json").unlink()
    ours = checkpoints.load(folder)
    cfg, tok = ours.config, ours.tokenizers["src"]
    assert (cfg.pad_id, cfg.unk_id, cfg.bos_id, cfg.eos_id) == (5, 2, 3, 1)
    for text in ("The cat sat on the lazy dog.", "naïve café: 猫!"):
        assert tok.frame(tok.encode(text)) == tk.encode(text).ids
