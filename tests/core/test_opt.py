"""What the OPT importer (core_model/importers/opt.py) reads of its folders and what it refuses. Its numbers against
transformers' OPTForCausalLM are tested with every family's in tests/core/test_families.py, on the folders of
tests/families/opt.py: a pre-norm OPT (a final LayerNorm, biases, tied output) and a post-norm one
(do_layer_norm_before false, as opt-350m: no final LayerNorm; enable_bias false; an lm_head of its own).
"""
from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path

import pytest

from core_model import checkpoints
from core_model.checkpoints import CheckpointError

os.environ["HF_HUB_OFFLINE"] = "1"  # everything is made here; nothing is fetched
transformers = pytest.importorskip("transformers")

from tests.families.compare import SENTENCES  # noqa: E402  (after the skip)
from tests.families.build import copy_with_config  # noqa: E402


@pytest.fixture(scope="module", params=["opt", "opt-post"])
def kind(request):
    return request.param


@pytest.fixture(scope="module")
def ours(hub_folder, kind):
    return checkpoints.load(hub_folder(kind))


def test_the_import_has_the_familys_shape(ours, kind):
    cfg, pre = ours.config, kind == "opt"
    assert (cfg.architecture, cfg.norm, cfg.positional, cfg.activation, cfg.scale_embedding, cfg.output_bias) == \
        ("decoder", "layernorm", "learned", "relu", False, False)
    assert (cfg.norm_placement, cfg.bias, cfg.ffn_bias, cfg.tie_embeddings) == \
        (("pre", True, True, True) if pre else ("post", False, False, False))
    assert (ours.model.decoder.final_norm is not None) == pre
    assert (ours.model.decoder.layers[0].ffn.linear1.bias is not None) == pre
    assert (cfg.bos_id, cfg.eos_id, cfg.pad_id, cfg.unk_id, cfg.mask_padding) == (2, 2, 1, 3, True)
    assert cfg.max_len == 128 and ours.model.tgt_embed.pos.weight.shape == (128, 32)


def test_the_positions_are_the_stored_table_from_its_third_row(ours, kind, hub_folder):
    reference = transformers.OPTForCausalLM.from_pretrained(hub_folder(kind))
    stored = reference.model.decoder.embed_positions.weight
    assert stored.shape[0] == 130 and bool((ours.model.tgt_embed.pos.weight == stored[2:]).all())


def test_the_decoder_reads_what_the_tokenizer_gives_a_text(ours, hub_folder):
    # OPT's tokenizer puts </s> before the text; our decoder reads bos (</s>) first: the same ids
    fast = transformers.AutoTokenizer.from_pretrained(hub_folder("opt"))
    tok = ours.tokenizers["tgt"]
    for text in SENTENCES:
        assert fast(text)["input_ids"] == [ours.config.bos_id] + tok.encode(text)


def test_a_folder_with_vocab_json_and_merges_txt_reads_the_same_ids(ours, hub_folder, tmp_path):
    # the hub's OPT folders ship GPT-2's vocab.json and merges.txt, no tokenizer.json
    copy = Path(shutil.copytree(hub_folder("opt"), tmp_path / "x"))
    tokenizers = pytest.importorskip("tokenizers")
    tokenizers.Tokenizer.from_file(str(copy / "tokenizer.json")).model.save(str(copy))
    (copy / "tokenizer.json").unlink()
    tok = checkpoints.load(copy).tokenizers["tgt"]
    assert not (copy / "tokenizer.json").exists() and (copy / "merges.txt").is_file()
    for text in SENTENCES:
        assert tok.encode(text) == ours.tokenizers["tgt"].encode(text)
    assert (tok.bos_id, tok.eos_id, tok.pad_id, tok.unk_id) == (2, 2, 1, 3)


def test_an_embedding_rounded_up_past_the_vocabulary_loads_equal_to_transformers(tmp_path):
    # the hub's OPT: vocab_size 50,272 for a tokenizer of 50,265; the ids past it are named, and never read from text
    from tests.families.build import build, reference
    from tests.families.compare import compare
    from tests.families.opt import OPT, opt_tokenizer

    def rounded(dest):
        fields = opt_tokenizer(dest)
        return {**fields, "vocab_size": fields["vocab_size"] + 7}

    folder = build(dataclasses.replace(OPT, name="opt-rounded", tokenizer=rounded), tmp_path / "x")
    loaded = checkpoints.load(folder)
    tok, n = loaded.tokenizers["tgt"], loaded.config.tgt_vocab_size
    assert tok.vocab_size == n and tok.id_to_piece(n - 1) == "<unused_6>" and tok.is_special(n - 7)
    compare(loaded, reference(OPT, folder), SENTENCES)
    assert tok.encode(SENTENCES[0]) == transformers.AutoTokenizer.from_pretrained(folder)(
        SENTENCES[0], add_special_tokens=False)["input_ids"]


# ----- what is refused ---------------------------------------------------------------------------------------

REFUSED = [("word_embed_proj_dim", 16), ("_remove_final_layer_norm", True), ("layer_norm_elementwise_affine", False),
           ("activation_function", "tanh"), ("do_layer_norm_before", "yes"), ("enable_bias", 1)]


@pytest.mark.parametrize("field, value", REFUSED)
def test_a_setting_it_cannot_reproduce_is_named(hub_folder, tmp_path, field, value):
    with pytest.raises(CheckpointError, match=f"config.json has {field} = ") as caught:
        checkpoints.load(copy_with_config(hub_folder("opt"), tmp_path / "x", **{field: value}))
    assert caught.value.code == "import_setting"
    assert (caught.value.fields["name"], caught.value.fields["family"]) == (field, "OPT")
