"""What the mBART importer (core_model/importers/mbart.py) reads of its folders and what it refuses. Its numbers
against transformers' MBartForConditionalGeneration are tested with every family's in tests/core/test_families.py, on
the folder of tests/families/mbart.py: pre-norm layers with a final norm per stack, embeddings × √d_model, a
sentencepiece-style tokenizer whose encoder reads `tokens </s> en_XX`, and a decoder that starts from </s> and is
forced to write ro_RO first (generation_config.json's forced_bos_token_id).
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from core_model import ModelConfig, checkpoints
from core_model.checkpoints import CheckpointError
from core_model.decoding import greedy

os.environ["HF_HUB_OFFLINE"] = "1"  # everything is made here; nothing is fetched
transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def folder(hub_folder):
    return hub_folder("mbart")


@pytest.fixture(scope="module")
def ours(folder):
    return checkpoints.load(folder)


@pytest.fixture(scope="module")
def fast(folder):
    return transformers.AutoTokenizer.from_pretrained(folder)


def test_the_import_has_the_familys_shape(ours, fast):
    cfg, model = ours.config, ours.model
    assert (cfg.architecture, cfg.norm_placement, cfg.positional, cfg.embed_norm, cfg.scale_embedding) == \
        ("encoder-decoder", "pre", "learned", True, True)
    assert model.encoder.final_norm is not None and model.decoder.final_norm is not None
    ro = fast.convert_tokens_to_ids("ro_RO")
    assert (cfg.bos_id, cfg.forced_bos_id, cfg.decoder_start, cfg.eos_id, cfg.pad_id) == (2, ro, (2, ro), 2, 1)


def test_the_decoder_starts_from_eos_and_the_forced_language(ours, fast):
    src = ours.tokenizers["src"]
    decoded = greedy(ours.model, src.frame(src.encode("The cat sat.")), max_len=3)
    assert decoded.steps[0].prefix == (2, fast.convert_tokens_to_ids("ro_RO"))


def test_the_source_ends_in_eos_and_its_language_code(ours, fast):
    src = ours.tokenizers["src"]
    assert src.frame([7, 8]) == [7, 8, 2, fast.convert_tokens_to_ids("en_XX")]


def copy_of(folder: Path, dest: Path, config: dict | None = None, generation: dict | None = None) -> Path:
    """A copy of the folder with config.json's and generation_config.json's fields set (None: a field removed)."""
    copy = Path(shutil.copytree(folder, dest))
    for name, fields in (("config.json", config), ("generation_config.json", generation)):
        data = json.loads((copy / name).read_text())
        data.update(fields or {})
        (copy / name).write_text(json.dumps({k: v for k, v in data.items() if v is not None}))
    return copy


def test_another_source_language_is_read_from_tokenizer_config(folder, tmp_path):
    copy = Path(shutil.copytree(folder, tmp_path / "x"))
    transformers.AutoTokenizer.from_pretrained(copy, src_lang="de_DE").save_pretrained(copy)
    fast = transformers.AutoTokenizer.from_pretrained(copy)
    src = checkpoints.load(copy).tokenizers["src"]
    ids = src.encode("The cat sat.")
    assert src.frame(ids) == fast("The cat sat.")["input_ids"] == ids + [2, fast.convert_tokens_to_ids("de_DE")]


def test_a_tokenizer_framing_another_language_than_its_config_names_is_refused(folder, tmp_path):
    copy = Path(shutil.copytree(folder, tmp_path / "x"))
    settings = json.loads((copy / "tokenizer_config.json").read_text())
    (copy / "tokenizer_config.json").write_text(json.dumps({**settings, "src_lang": "fr_XX"}))
    with pytest.raises(CheckpointError, match="must end in </s> fr_XX") as caught:
        checkpoints.load(copy)
    assert caught.value.code == "mbart_src_lang" and caught.value.fields["got"] == "</s> en_XX"


def test_without_a_forced_language_the_decoder_starts_from_its_start_token_alone(folder, tmp_path, fast):
    assert checkpoints.load(copy_of(folder, tmp_path / "a", generation={"forced_bos_token_id": None})) \
        .config.decoder_start == (2,)
    ro = fast.convert_tokens_to_ids("ro_RO")  # mbart-large-en-ro starts from the language code itself
    copy = copy_of(folder, tmp_path / "b", generation={"decoder_start_token_id": ro, "forced_bos_token_id": None})
    assert checkpoints.load(copy).config.decoder_start == (ro,)


def test_config_jsons_start_is_read_only_without_a_generation_config(folder, tmp_path, fast):
    ro, de = fast.convert_tokens_to_ids("ro_RO"), fast.convert_tokens_to_ids("de_DE")
    copy = copy_of(folder, tmp_path / "x", {"decoder_start_token_id": ro, "forced_bos_token_id": de})
    assert checkpoints.load(copy).config.decoder_start == (2, ro)  # generate() reads generation_config.json alone
    (copy / "generation_config.json").unlink()
    assert checkpoints.load(copy).config.decoder_start == (ro, de)


def test_an_older_config_naming_its_pre_norm_loads(folder, tmp_path):
    # transformers' MBart is pre-norm with final norms whatever these say; BART's import refuses them
    copy = copy_of(folder, tmp_path / "x", {"normalize_before": True, "add_final_layer_norm": True})
    assert checkpoints.load(copy).config.norm_placement == "pre"


@pytest.mark.parametrize("config, generation, file, field", [
    ({"add_bias_logits": True}, None, "config.json", "add_bias_logits"),
    ({"decoder_ffn_dim": 48}, None, "config.json", "decoder_ffn_dim"),
    ({"activation_function": "tanh"}, None, "config.json", "activation_function"),
    (None, {"forced_bos_token_id": [250020]}, "generation_config.json", "forced_bos_token_id")])
def test_a_setting_it_cannot_reproduce_is_named(folder, tmp_path, config, generation, file, field):
    with pytest.raises(CheckpointError, match=f"^{file} has {field} = ") as caught:
        checkpoints.load(copy_of(folder, tmp_path / "x", config, generation))
    assert caught.value.code == "import_setting"
    assert (caught.value.fields["name"], caught.value.fields["family"]) == (field, "mBART")


def test_a_start_token_config_json_gives_without_a_generation_config_is_checked(folder, tmp_path):
    copy = copy_of(folder, tmp_path / "x", {"decoder_start_token_id": "</s>"})
    (copy / "generation_config.json").unlink()
    with pytest.raises(CheckpointError, match="^config.json has decoder_start_token_id = '</s>'") as caught:
        checkpoints.load(copy)
    assert caught.value.fields["name"] == "decoder_start_token_id"


# ----- what the core gained for it ------------------------------------------------------------------------------

def test_an_old_config_without_forced_bos_id_starts_from_bos_alone():
    data = ModelConfig().to_dict()
    del data["forced_bos_id"]
    assert ModelConfig.from_dict(data).decoder_start == (2,)


@pytest.mark.parametrize("overrides, words", [
    ({"forced_bos_id": -1}, "at least 0"), ({"forced_bos_id": True}, "at least 0"),
    ({"forced_bos_id": 1000}, "below tgt_vocab_size"),
    ({"forced_bos_id": 5, "architecture": "decoder"}, "continues its prompt")])
def test_a_bad_forced_bos_id_is_refused_naming_it(overrides, words):
    with pytest.raises(ValueError, match=f"forced_bos_id.*{words}"):
        ModelConfig(**overrides)
