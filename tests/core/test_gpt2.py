"""What the GPT-2 importer (core_model/importers/gpt2.py) reads of a folder and what it refuses; its numbers against
transformers' GPT2LMHeadModel are tested with every family's in tests/core/test_families.py.

The folder (tests/families/gpt2.py) is made by transformers itself (random weights, save_pretrained with safetensors)
with a byte-level BPE tokenizer trained by `tokenizers` and saved through GPT2TokenizerFast, as a real one is.
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
from safetensors.torch import load_file, save_file

from core_model import ModelConfig, Transformer, checkpoints
from core_model.importers import gpt2
from core_model.checkpoints import CheckpointError, hub
from core_model.decoding import greedy
from core_model.nn.layers import FeedForward
from core_model.tokenizers import BYTE_CHARS
from core_model.trace import run_with_trace
from tests.bad_checkpoints import REVERSE, assert_pickle_only_is_refused_unread

os.environ["HF_HUB_OFFLINE"] = "1"  # everything is made here; nothing is fetched
transformers = pytest.importorskip("transformers")  # a dev requirement: present whenever the tests run
tokenizers = pytest.importorskip("tokenizers")
from tests.families.build import copy_with_config  # noqa: E402

EOT = "<|endoftext|>"
SENTENCES = ["The cat sat on the lazy dog.", "naïve café: 猫!", "  two  spaces,\ta tab and a newline\n"]


@pytest.fixture(scope="module")
def folder(hub_folder):
    return hub_folder("gpt2")  # tests/families/gpt2.py


@pytest.fixture(scope="module")
def ours(folder):
    return checkpoints.load(folder)  # the dispatch: a GPT-2 folder goes to gpt2.load


@pytest.fixture(scope="module")
def reference(folder):
    return transformers.GPT2LMHeadModel.from_pretrained(folder, attn_implementation="eager").eval()


def batch(ours, texts):
    """Ids [b, n]: <|endoftext|> (bos) + the text, right-padded with <|endoftext|>; and the mask of real tokens."""
    tok, bos = ours.tokenizers["tgt"], ours.config.bos_id
    rows = [[bos] + tok.encode(t) for t in texts]
    n = max(map(len, rows))
    keep = torch.tensor([[True] * len(r) + [False] * (n - len(r)) for r in rows])
    return torch.tensor([r + [ours.config.pad_id] * (n - len(r)) for r in rows]), keep


def test_the_first_token_is_attended_although_it_is_also_the_pad_token(ours):
    ids, _ = batch(ours, [SENTENCES[0]])
    _, trace = run_with_trace(ours.model, None, ids)
    pattern = trace.attn("decoder", 0, "self_attn").pattern  # [1, h, q, k]
    assert ids[0, 0] == ours.config.pad_id
    assert np.allclose(pattern[0, :, 0, 0], 1.0)  # <|endoftext|> at 0 sees itself: no row is blocked
    assert (pattern[0, :, 1:, 0] > 0).all()


def generate(reference, prompt, max_new, eos):
    with torch.no_grad():
        out = reference.generate(torch.tensor([prompt]), attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
                                 max_new_tokens=max_new, do_sample=False, eos_token_id=eos, pad_token_id=eos)
    return out[0, len(prompt):].tolist()


def test_greedy_stops_where_generate_stops(ours, reference):
    # The third token transformers picks is made the end-of-text token of both: both stop right there.
    tok, cfg = ours.tokenizers["tgt"], ours.config
    prompt = tok.encode("The cat")
    stop = generate(reference, [cfg.bos_id] + prompt, 12, cfg.eos_id)[2]
    model = Transformer(dataclasses.replace(cfg, eos_id=stop))
    model.load_state_dict(ours.model.state_dict())
    got = greedy(model.eval(), prompt, max_len=12)
    want = generate(reference, [cfg.bos_id] + prompt, 12, stop)
    assert want[-1] == stop and len(want) <= 3
    assert list(got.ids) + [got.steps[-1].chosen] == want and got.finished_by == "eos"


def test_the_import_has_gpt2s_shape(ours, folder):
    cfg, eot = ours.config, ours.tokenizers["tgt"].piece_to_id(EOT)
    assert (cfg.architecture, cfg.n_decoder_layers, cfg.n_heads, cfg.d_model, cfg.d_ff, cfg.max_len) == \
        ("decoder", 2, 2, 32, 128, 64)
    assert (cfg.positional, cfg.norm_placement, cfg.activation, cfg.scale_embedding, cfg.tie_embeddings) == \
        ("learned", "pre", "gelu_tanh", False, True)
    assert (cfg.output_bias, cfg.mask_padding) == (False, False)
    assert (cfg.pad_id, cfg.unk_id, cfg.bos_id, cfg.eos_id) == (eot,) * 4
    assert ours.model.generator.weight is ours.model.tgt_embed.tok.weight and ours.model.generator.bias is None
    assert "tiny-gpt2" in ours.card and str(folder.parent) not in ours.card  # no server path in the card


def test_checkpoint_load_hands_a_gpt2_folder_to_the_importer(folder, monkeypatch):
    calls = []
    monkeypatch.setattr(gpt2, "load", lambda path: calls.append(path) or "imported")
    assert checkpoints.load(folder) == "imported" and calls == [folder]
    assert not hub.reads(REVERSE, gpt2.MODEL_TYPES)  # one of our own checkpoints is not taken for one
    assert checkpoints.load(REVERSE).config.architecture == "encoder-decoder" and calls == [folder]


def test_names_without_the_transformer_prefix_and_with_mask_buffers_load_the_same(ours, folder, tmp_path):
    # The first GPT-2 files on the hub were saved from GPT2Model: no "transformer." prefix, and a causal-mask
    # buffer per layer beside the weights.
    copy = Path(shutil.copytree(folder, tmp_path / "hub-style"))
    tensors = {k.removeprefix("transformer."): v for k, v in load_file(copy / "model.safetensors").items()}
    for i in range(2):
        tensors[f"h.{i}.attn.bias"] = torch.tril(torch.ones(1, 1, 64, 64))
    save_file(tensors, copy / "model.safetensors")
    loaded = checkpoints.load(copy)
    for name, value in ours.model.state_dict().items():
        assert torch.equal(loaded.model.state_dict()[name], value), name


# ----- the tokenizer ---------------------------------------------------------------------------------------

def test_the_byte_alphabet_is_gpt2s():
    assert sorted(BYTE_CHARS) == sorted(tokenizers.pre_tokenizers.ByteLevel.alphabet())
    assert [BYTE_CHARS[c] for c in "Ġ!Ċ"] == [32, 33, 10]  # GPT-2 spells a space Ġ and a newline Ċ


@pytest.mark.parametrize("text", SENTENCES + ["emoji 🙂 and \u2581 and <0xE4>", ""])
def test_the_tokenizer_gives_transformers_ids_and_the_text_back(ours, folder, text):
    tok = ours.tokenizers["tgt"]
    fast = transformers.AutoTokenizer.from_pretrained(folder)
    assert tok.encode(text) == fast(text, add_special_tokens=False)["input_ids"]
    assert tok.decode(tok.encode(text)) == text  # byte-level: nothing is normalized or lost
    assert tok.decode_visible(tok.encode(text)) == text


def test_pieces_are_shown_readably(ours):
    tok = ours.tokenizers["tgt"]
    ids = tok.encode("the cat\n")
    assert [tok.id_to_piece(i) for i in ids][-1] == "Ċ"  # as the vocabulary spells it
    assert "".join(tok.display_pieces(ids)) == "the▁cat<0A>"  # a space as ▁, a newline as its byte
    assert tok.display_pieces([tok.bos_id]) == [EOT] and tok.is_special(tok.bos_id)
    assert tok.frames_input is False  # the decoder adds its bos itself


def test_a_stray_byte_is_shown_as_its_label(ours):
    tok = ours.tokenizers["tgt"]
    first_byte_of_e_acute = tok.piece_to_id("Ã")  # é is C3 A9; C3 alone is no character
    assert tok.display_pieces([first_byte_of_e_acute]) == ["<C3>"]
    assert tok.decode_visible(tok.encode("x") + [first_byte_of_e_acute]) == "x<C3>"
    assert tok.decode(tok.encode("x") + [first_byte_of_e_acute]) == "x\ufffd"


def test_word_ids_follow_whitespace_words(ours):
    tok = ours.tokenizers["tgt"]
    ids = [tok.bos_id] + tok.encode("naïve  café au lait") + [tok.eos_id]
    words = tok.word_ids(ids)
    assert words[0] == words[-1] == -1 and sorted(set(words) - {-1}) == [0, 1, 2, 3]
    for w, word in enumerate(tok.decode(ids).split()):  # a word's tokens, and only they, spell it
        assert tok.decode([i for i, at in zip(ids, words) if at == w]).strip() == word


# ----- what is refused ---------------------------------------------------------------------------------------

def test_a_folder_with_only_pytorch_model_bin_is_refused_unread(folder, tmp_path):
    assert_pickle_only_is_refused_unread(folder, tmp_path)


UNSUPPORTED = [("scale_attn_by_inverse_layer_idx", True), ("reorder_and_upcast_attn", True),
               ("add_cross_attention", True), ("scale_attn_weights", False), ("activation_function", "silu"),
               ("eos_token_id", [0, 1])]


@pytest.mark.parametrize("field, value", UNSUPPORTED)
def test_a_setting_it_cannot_reproduce_is_named(folder, tmp_path, field, value):
    with pytest.raises(CheckpointError, match=f"config.json has {field} = ") as caught:
        checkpoints.load(copy_with_config(folder, tmp_path / "x", **{field: value}))
    assert caught.value.code == "import_setting" and caught.value.fields["name"] == field
    assert caught.value.fields["family"] == "GPT-2"


def test_a_missing_field_is_named(folder, tmp_path):
    with pytest.raises(CheckpointError, match="config.json lacks n_head") as caught:
        checkpoints.load(copy_with_config(folder, tmp_path / "x", drop=("n_head",)))
    assert caught.value.code == "import_lacks" and caught.value.fields["family"] == "GPT-2"


def test_a_wrong_shape_is_named(folder, tmp_path):
    copy = Path(shutil.copytree(folder, tmp_path / "x"))
    tensors = load_file(copy / "model.safetensors")
    tensors["transformer.h.1.attn.c_attn.weight"] = tensors["transformer.h.1.attn.c_attn.weight"].t().contiguous()
    save_file(tensors, copy / "model.safetensors")
    with pytest.raises(CheckpointError, match=r"transformer\.h\.1\.attn\.c_attn\.weight has shape \[96, 32\], "
                                              r"but the config needs \[32, 96\]"):
        checkpoints.load(copy)


def test_a_missing_tensor_is_named(folder, tmp_path):
    copy = Path(shutil.copytree(folder, tmp_path / "x"))
    tensors = load_file(copy / "model.safetensors")
    del tensors["transformer.ln_f.bias"]
    save_file(tensors, copy / "model.safetensors")
    with pytest.raises(CheckpointError, match=r"lacks tensor\(s\) the config needs: transformer\.ln_f\.bias"):
        checkpoints.load(copy)


def test_a_tokenizer_that_is_not_byte_level_is_refused(folder, tmp_path):
    copy = Path(shutil.copytree(folder, tmp_path / "x"))
    data = json.loads((copy / "tokenizer.json").read_text())
    data["decoder"] = None
    (copy / "tokenizer.json").write_text(json.dumps(data))
    with pytest.raises(CheckpointError, match="not a byte-level BPE tokenizer") as caught:
        checkpoints.load(copy)
    assert caught.value.code == "tokenizer_not_byte_level"


def test_an_end_of_text_id_that_is_no_special_token_is_refused(folder, tmp_path):
    with pytest.raises(CheckpointError, match="no special token at id 5 for bos") as caught:
        checkpoints.load(copy_with_config(folder, tmp_path / "x", bos_token_id=5))
    assert caught.value.code == "tokenizer_no_special"


def test_every_code_raised_here_is_worded_in_both_languages():
    from viz_app.i18n import STRINGS

    for code in ("import_setting", "import_lacks", "tokenizer_not_byte_level", "tokenizer_no_special",
                 "pickle_checkpoint"):
        assert STRINGS[f"error.{code}"]["en"] and STRINGS[f"error.{code}"]["zh"]


# ----- what the core gained for it ------------------------------------------------------------------------

def test_gelu_tanh_is_the_tanh_formula():
    ffn = FeedForward(ModelConfig(activation="gelu_tanh", d_model=4, n_heads=1, d_ff=8))
    x = torch.linspace(-6, 6, 101)
    # GPT-2's gelu_new, written out: 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))
    want = 0.5 * x * (1 + torch.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    assert torch.allclose(ffn.activation(x), want, atol=1e-6)
    assert (ffn.activation(x) - torch.nn.functional.gelu(x)).abs().max() > 1e-4  # not the exact GELU


def test_an_old_config_without_the_new_fields_loads_with_their_defaults():
    data = ModelConfig().to_dict()
    del data["output_bias"], data["mask_padding"]
    cfg = ModelConfig.from_dict(data)
    assert cfg.output_bias is True and cfg.mask_padding is True


@pytest.mark.parametrize("overrides, field", [({"output_bias": "no"}, "output_bias"),
                                              ({"mask_padding": 0}, "mask_padding"),
                                              ({"mask_padding": False}, "mask_padding"),  # an encoder-decoder
                                              ({"activation": "gelu_new"}, "activation")])
def test_bad_new_fields_are_refused_naming_them(overrides, field):
    with pytest.raises(ValueError, match=field):
        ModelConfig(**overrides)


def test_without_mask_padding_a_decoder_attends_to_pad_ids_and_with_it_does_not():
    cfg = ModelConfig(architecture="decoder", n_decoder_layers=1, dropout=0.0, mask_padding=False)
    model = Transformer(cfg).eval()
    ids = [cfg.bos_id, 7, cfg.pad_id, 8]
    _, trace = run_with_trace(model, None, ids)
    assert (trace.attn("decoder", 0, "self_attn").pattern[0, :, 3, 2] > 0).all()
    masked = Transformer(dataclasses.replace(cfg, mask_padding=True)).eval()
    masked.load_state_dict(model.state_dict())
    _, trace = run_with_trace(masked, None, ids)
    assert (trace.attn("decoder", 0, "self_attn").pattern[0, :, 3, 2] == 0).all()
