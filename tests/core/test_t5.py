"""What the T5 importer (core_model/importers/t5.py) reads of its folders and what it refuses, and what the core gained
for it (positional "relative", scale_output). Its numbers against transformers' T5ForConditionalGeneration are tested
with every family's in tests/core/test_families.py, on the folders of tests/families/t5.py: a v1.1-style T5 (gated
GELU FFN, an lm_head of its own, as transformers 4 saved Flan-T5) and a v1.0-style one (ReLU FFN, tied and scaled).
"""
from __future__ import annotations

import dataclasses
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from core_model import ModelConfig, checkpoints
from core_model.checkpoints import CheckpointError
from core_model.nn.positional import relative_buckets
from core_model.trace import run_with_trace

os.environ["HF_HUB_OFFLINE"] = "1"  # everything is made here; nothing is fetched
transformers = pytest.importorskip("transformers")

from tests.families import FAMILIES  # noqa: E402  (after the skip: it imports transformers)
from tests.families.build import build, copy_with_config, reference  # noqa: E402
from tests.families.compare import SENTENCES, compare, feed  # noqa: E402

T5Attention = transformers.models.t5.modeling_t5.T5Attention


@pytest.mark.parametrize("kind, shape", [
    ("t5-gated", ("gated", "gelu_tanh", False, False)),  # its own lm_head, no scaling
    ("t5-relu", ("plain", "relu", True, True))])  # tied, the decoder's output × d_model^-0.5
def test_the_import_has_the_familys_shape(hub_folder, kind, shape):
    cfg = checkpoints.load(hub_folder(kind)).config
    assert (cfg.ffn, cfg.activation, cfg.tie_embeddings, cfg.scale_output) == shape
    assert (cfg.architecture, cfg.norm, cfg.norm_placement, cfg.positional, cfg.scale_scores, cfg.bias,
            cfg.ffn_bias, cfg.output_bias, cfg.scale_embedding) == \
        ("encoder-decoder", "rmsnorm", "pre", "relative", False, False, False, False, False)
    assert (cfg.relative_buckets, cfg.relative_max_distance, cfg.norm_eps) == (8, 20, 1e-6)
    assert (cfg.bos_id, cfg.pad_id, cfg.eos_id, cfg.unk_id) == (0, 0, 1, 2)  # the decoder starts from <pad>
    assert (cfg.n_encoder_layers, cfg.n_decoder_layers) == ((3, 3) if kind == "t5-relu" else (2, 2))


def test_a_gated_t5_as_transformers_5_saves_it_is_tied_and_unscaled(tmp_path):
    # transformers 5 ties T5's lm_head on saving and writes tie_word_embeddings true, scale_decoder_outputs false
    family = dataclasses.replace(FAMILIES["t5-gated"], edit=None)
    folder = build(family, tmp_path / "saved")
    assert json.loads((folder / "config.json").read_text())["scale_decoder_outputs"] is False
    ours = checkpoints.load(folder)
    assert (ours.config.tie_embeddings, ours.config.scale_output) == (True, False)
    compare(ours, reference(family, folder), SENTENCES[:1])


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("n_buckets, distance", [(32, 128), (8, 20), (6, 7)])
def test_the_buckets_are_transformers(bidirectional, n_buckets, distance):
    offsets = torch.arange(-300, 301)[None, :] - torch.arange(0, 5)[:, None]
    want = T5Attention._relative_position_bucket(offsets, bidirectional, n_buckets, distance)
    assert torch.equal(relative_buckets(offsets, bidirectional, n_buckets, distance), want)
    assert int(want.max()) == n_buckets - 1  # the offsets reach the last bucket


def test_every_layer_adds_its_stacks_one_bias_and_the_trace_shows_it(hub_folder):
    ours = checkpoints.load(hub_folder("t5-relu"))
    fed = feed(ours, SENTENCES[:1])
    _, trace = run_with_trace(ours.model, fed.src, fed.tgt)
    n = fed.src.shape[1]
    table = ours.model.encoder.relative_bias.weight.detach().numpy()  # [buckets, h]
    bias = trace["encoder.position_bias"]  # [1, h, n, n]
    assert bias.shape == (1, 4, n, n)
    np.testing.assert_array_equal(bias[0, :, 1, 0], table[1])  # a key 1 before the query: bucket 1 of the first half
    np.testing.assert_array_equal(bias[0, :, 0, 1], table[4 + 1])  # 1 after it: bucket 1 of the second half
    for i in range(3):
        view = trace.attn("encoder", i)
        np.testing.assert_array_equal(view.scores_scaled, view.scores + bias)  # no 1/√d_k, the same bias
    decoder = trace["decoder.position_bias"][0]  # causal: a key after the query is at offset 0, as the query itself
    np.testing.assert_array_equal(decoder[:, 0, 1], decoder[:, 0, 0])


# ----- what is refused ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("field, value", [("feed_forward_proj", "gated-tanh"),
                                          ("is_encoder_decoder", False), ("decoder_start_token_id", [0, 1])])
def test_a_setting_it_cannot_reproduce_is_named(hub_folder, tmp_path, field, value):
    with pytest.raises(CheckpointError, match=f"config.json has {field} = ") as caught:
        checkpoints.load(copy_with_config(hub_folder("t5-relu"), tmp_path / "x", **{field: value}))
    assert caught.value.code == "import_setting" and caught.value.fields["name"] == field
    assert caught.value.fields["family"] == "T5"


def test_heads_wider_than_d_model_over_num_heads_and_a_rounded_up_embedding_match_transformers(tmp_path):
    # t5-v1_1-small's heads: 6 × 64 over d_model 512 (here 4 × 16 over 32); t5-small's embedding: 32,128 rows for
    # 32,100 tokens (here 20 rows past the tokenizer's), the ids past it named <unused_k>
    base = FAMILIES["t5-relu"]
    grow = lambda dest: {**base.tokenizer(dest), "vocab_size": base.tokenizer(dest)["vocab_size"] + 20}  # noqa: E731
    wide = dataclasses.replace(base, name="t5-wide", tokenizer=grow, fields={**base.fields, "d_kv": 16})
    folder = build(wide, tmp_path / "t5-wide")
    loaded = checkpoints.load(folder)
    assert (loaded.config.head_dim, loaded.config.d_head, loaded.config.src_vocab_size) == (16, 16, loaded.tokenizers[
        "src"].vocab_size)
    assert loaded.tokenizers["tgt"].id_to_piece(loaded.config.tgt_vocab_size - 1) == "<unused_19>"
    compare(loaded, reference(wide, folder), SENTENCES[:2])


def test_num_decoder_layers_is_read_apart_from_num_layers(hub_folder, tmp_path):
    folder = copy_with_config(hub_folder("t5-relu"), tmp_path / "x", num_decoder_layers=4)
    with pytest.raises(CheckpointError) as caught:  # the file has three decoder blocks: the fourth's tensors lack
        checkpoints.load(folder)
    assert "decoder.block.3." in str(caught.value)


# ----- what the core gained for it ------------------------------------------------------------------------

def test_an_old_config_without_the_new_fields_loads_with_their_defaults():
    data = ModelConfig().to_dict()
    for name in ("relative_buckets", "relative_max_distance", "scale_output"):
        del data[name]
    cfg = ModelConfig.from_dict(data)
    assert (cfg.relative_buckets, cfg.relative_max_distance, cfg.scale_output) == (32, 128, False)


@pytest.mark.parametrize("overrides, field", [
    ({"relative_buckets": 2}, "relative_buckets"), ({"relative_max_distance": True}, "relative_max_distance"),
    ({"relative_buckets": 32, "relative_max_distance": 16}, "relative_max_distance"),
    ({"scale_output": "yes"}, "scale_output"), ({"positional": "t5"}, "positional")])
def test_bad_new_fields_are_refused_naming_them(overrides, field):
    with pytest.raises(ValueError, match=field):
        ModelConfig(**overrides)


def test_a_huge_bias_table_is_refused_before_the_model_is_built():
    from core_model.checkpoints.safe_load import check_size

    cfg = ModelConfig(positional="relative", relative_buckets=10**9, relative_max_distance=10**9)
    with pytest.raises(CheckpointError) as caught:
        check_size(cfg)
    assert caught.value.code == "model_too_big"


def test_a_folder_with_spiece_model_alone_reads_it(hub_folder, tmp_path):
    copy = Path(shutil.copytree(hub_folder("t5-relu"), tmp_path / "x"))
    (copy / "tokenizer.json").unlink()
    ours, fast = checkpoints.load(copy), transformers.AutoTokenizer.from_pretrained(hub_folder("t5-relu"))
    for text in SENTENCES:
        ids = ours.tokenizers["src"].encode(text)
        assert ours.tokenizers["src"].frame(ids) == fast(text)["input_ids"], text
