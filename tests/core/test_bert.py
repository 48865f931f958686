"""The imported all-MiniLM-L6-v2 against an independent implementation: transformers' BertModel."""
from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file

from core_model import checkpoints
from core_model.importers import bert
from core_model.checkpoints import CheckpointError
from core_model.trace import run_with_trace
from tests.tolerance import assert_activations_close

os.environ["HF_HUB_OFFLINE"] = "1"  # the reference reads the installed package's folder, nothing else
transformers = pytest.importorskip("transformers")  # a dev requirement: present whenever the tests run

# Attention weights and the unit-length sentence embedding lie in -1..1: an absolute bound suits them.
TOL = 1e-5
SENTENCES = [
    "The cat sat on the mat.",
    "Attention heads in BERT often attend to [SEP], or to the previous token!",
    "naïve café owners don't tokenize unaffable words like antidisestablishmentarianism",
]
# About 256 WordPiece tokens once framed by [CLS] and [SEP]; checked in the test.
LONG = " ".join(["the model reads every word of this rather long sentence"] * 25)


@pytest.fixture(scope="module")
def ours():
    return checkpoints.load(bert.minilm_path())


@pytest.fixture(scope="module")
def reference():
    return transformers.BertModel.from_pretrained(str(bert.minilm_path()), attn_implementation="eager").eval()


def framed(loaded, texts):
    """Ids [b, n] framed by [CLS] … [SEP] and right-padded, with the mask of real tokens."""
    tok = loaded.tokenizers["src"]
    rows = [tok.encode(t, add_bos=True, add_eos=True) for t in texts]
    n = max(map(len, rows))
    ids = torch.tensor([r + [tok.pad_id] * (n - len(r)) for r in rows])
    return ids, ids != tok.pad_id


def compare(ours, reference, texts):
    ids, keep = framed(ours, texts)
    out, trace = run_with_trace(ours.model, ids)
    with torch.no_grad():
        ref = reference(ids, attention_mask=keep.long(), output_attentions=True, output_hidden_states=True)
    real = keep.numpy()
    assert_activations_close(trace["src_embed.out"][real], ref.hidden_states[0].numpy()[real], "embeddings")
    for i in range(ours.config.n_encoder_layers):
        got, want = trace.layer_output("encoder", i), ref.hidden_states[i + 1].numpy()  # [b, n, d]
        assert_activations_close(got[real], want[real], f"layer {i} hidden states")  # [real tokens, d]
        error = np.abs(got - want)
        # A padding position's state is never read (its key is masked, pooling skips it). Its
        # rounding drifts further over the layers (up to 2e-5 of the vector's length measured),
        # so it is held to a relative bound of 1e-4.
        if (~real).any():
            length = np.linalg.norm(ref.hidden_states[i + 1].numpy(), axis=-1)[~real]
            assert (np.linalg.norm(error[~real], axis=-1) / length).max() <= 1e-4
        pattern = trace.attn("encoder", i, "self_attn").pattern
        assert pattern.shape == ref.attentions[i].shape
        error = np.abs(pattern - ref.attentions[i].numpy()).transpose(0, 2, 1, 3)  # [b, q, h, k]
        assert error[real].max() <= TOL, f"layer {i} attention"
        assert error[~real].max(initial=0) <= 10 * TOL  # the rows of padding queries, as above
    # sentence-transformers' pooling, written out here from transformers' last hidden state
    weights = keep[..., None].float()
    mean = (ref.last_hidden_state * weights).sum(1) / weights.sum(1)
    expected = mean / mean.norm(dim=-1, keepdim=True)
    got = bert.sentence_embedding(out, keep)
    assert torch.allclose(got.norm(dim=-1), torch.ones(len(texts)))
    assert (got - expected).abs().max() <= TOL
    return ids


@pytest.mark.parametrize("text", SENTENCES)
def test_one_sentence_matches_transformers(ours, reference, text):
    compare(ours, reference, [text])


def test_a_long_sentence_matches_transformers(ours, reference):
    ids = compare(ours, reference, [LONG])
    assert 250 <= ids.shape[1] <= 256


def test_a_padded_batch_matches_transformers_and_each_sentence_alone(ours, reference):
    texts = [SENTENCES[0], LONG, SENTENCES[2]]
    ids = compare(ours, reference, texts)
    assert (ids == 0).sum() > 200  # the short rows really are padded
    out, _ = run_with_trace(ours.model, ids)
    for row, text in enumerate(texts):
        alone, _ = run_with_trace(ours.model, framed(ours, [text])[0])
        n = alone.shape[1]
        # padding changes nothing for real tokens, but the longer rows are summed in other blocks
        assert_activations_close(out[row, :n], alone[0], f"row {row} padded vs alone")


def test_the_import_has_minilms_shape(ours):
    cfg = ours.config
    assert (cfg.architecture, cfg.n_encoder_layers, cfg.n_heads, cfg.d_model, cfg.d_ff) == ("encoder", 6, 12, 384, 1536)
    assert (cfg.positional, cfg.type_vocab_size, cfg.norm_placement, cfg.norm_eps, cfg.activation) == \
        ("learned", 2, "post", 1e-12, "gelu")
    assert "all-MiniLM-L6-v2" in ours.card


def test_the_tokenizer_does_not_pad_or_cut(ours):
    tok = ours.tokenizers["src"]
    ids = tok.encode("hello world")
    assert ids == [tok.piece_to_id("hello"), tok.piece_to_id("world")]  # the file would pad to 128
    assert len(tok.encode(LONG)) > 128  # and would cut at 128
    framed_ids = tok.encode("hello", add_bos=True, add_eos=True)
    assert tok.display_pieces(framed_ids) == ["[CLS]", "hello", "[SEP]"]
    first, second = tok.encode("unaffable"), tok.encode("cats")
    assert len(first) > 1  # a word WordPiece splits: all its pieces belong to word 0
    assert tok.word_ids(tok.encode("unaffable cats", True, True)) == [-1] + [0] * len(first) + [1] * len(second) + [-1]


def copy_of_minilm(tmp_path):
    dest = tmp_path / "bert"
    shutil.copytree(bert.minilm_path(), dest)
    return dest


def test_a_wrong_shape_is_named(tmp_path):
    folder = copy_of_minilm(tmp_path)
    tensors = load_file(folder / "model.safetensors")
    tensors["encoder.layer.3.intermediate.dense.weight"] = torch.zeros(1000, 384)
    save_file(tensors, folder / "model.safetensors")
    with pytest.raises(CheckpointError, match=r"encoder\.layer\.3\.intermediate\.dense\.weight has shape \[1000, 384\]"):
        checkpoints.load(folder)


def test_a_missing_tensor_is_named(tmp_path):
    folder = copy_of_minilm(tmp_path)
    tensors = load_file(folder / "model.safetensors")
    del tensors["encoder.layer.5.output.LayerNorm.bias"]
    save_file(tensors, folder / "model.safetensors")
    with pytest.raises(CheckpointError, match=r"lacks tensor\(s\) the config needs: encoder\.layer\.5\.output\.LayerNorm\.bias"):
        checkpoints.load(folder)


def test_a_setting_it_cannot_reproduce_is_refused(tmp_path):
    folder = copy_of_minilm(tmp_path)
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps(dict(config, position_embedding_type="relative_key")))
    with pytest.raises(CheckpointError, match="position_embedding_type"):
        checkpoints.load(folder)
