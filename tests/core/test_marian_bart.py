"""Imported Marian and BART encoder-decoders (core_model/importers/marian.py, bart.py) against an independent implementation:
transformers' MarianMTModel and BartForConditionalGeneration.

Their attention weights and logits against transformers' are tested with every family's in tests/core/
test_families.py; here, what is the encoder-decoders' own. Each folder (tests/families/marian_bart.py) is made by
transformers itself (random weights, save_pretrained with safetensors) with its
tokenizer saved beside it as transformers saves it: for Marian, sentencepiece models trained here with the
`sentencepiece` package and a vocab.json numbering their pieces, written by MarianTokenizer; for BART, a
byte-level BPE trained with `tokenizers` and written by BartTokenizer.
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
from core_model.importers import bart as bart_importer, marian as marian_importer
from core_model.checkpoints import CheckpointError, hub
from core_model.decoding import greedy
from core_model.nn.layers import FeedForward
from core_model.nn.positional import SinusoidalPositions, sinusoidal_table
from core_model.trace import run_with_trace
from tests.bad_checkpoints import REVERSE, assert_pickle_only_is_refused_unread
from tests.tolerance import assert_activations_close

os.environ["HF_HUB_OFFLINE"] = "1"  # everything is made here; nothing is fetched
transformers = pytest.importorskip("transformers")  # a dev requirement: present whenever the tests run
tokenizers = pytest.importorskip("tokenizers")
sentencepiece = pytest.importorskip("sentencepiece")

from tests.families.marian_bart import quiet  # noqa: E402  (after the skips: it imports transformers)

# Attention weights lie in 0..1: a fixed absolute bound suits them (tests/tolerance.py).
ATTN_TOL = 1e-5
SENTENCES = ["the cat sat on the lazy dog", "naïve café: 1999!", "a quick brown fox jumps over the lazy dog again"]


REFERENCE = {"marian": transformers.MarianMTModel, "bart": transformers.BartForConditionalGeneration}


def imported(kind: str, folder: Path, reference_class):
    """A family's folder, our import of it (through checkpoints.load's dispatch) and transformers' reference."""
    reference = reference_class.from_pretrained(folder, attn_implementation="eager").eval()
    return kind, folder, checkpoints.load(folder), reference


@pytest.fixture(scope="module")
def marian(hub_folder):
    return imported("marian", hub_folder("marian"), transformers.MarianMTModel)  # tests/families/marian_bart.py


@pytest.fixture(scope="module")
def bart(hub_folder):
    return imported("bart", hub_folder("bart"), transformers.BartForConditionalGeneration)


@pytest.fixture(params=["marian", "bart"])
def family(request):
    """Each family in turn: (kind, folder, our import, transformers' model)."""
    return request.getfixturevalue(request.param)


# ----- the forward pass, traced -----------------------------------------------------------------------------------

TARGETS = {"marian": ["le chat est assis sur le tapis", "la petite fille", "des nombres comme 1999 et 2024"],
           "bart": ["The cat sat on the mat.", "A fox!", "Attention heads read the first token, and some the last."]}


def padded(rows: list[list[int]], pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Ids [b, n] right-padded with `pad`, and the mask of real tokens [b, n]."""
    n = max(map(len, rows))
    keep = torch.tensor([[True] * len(r) + [False] * (n - len(r)) for r in rows])
    return torch.tensor([r + [pad] * (n - len(r)) for r in rows]), keep


def batch(loaded, sources: list[str], targets: list[str]):
    """(src ids, src mask, tgt ids, tgt mask): each source framed as the encoder reads it (Marian: … </s>, BART:
    <s> … </s>), each target after the decoder's start token (Marian: <pad>, BART: </s>)."""
    src_tok, tgt_tok, cfg = loaded.tokenizers["src"], loaded.tokenizers["tgt"], loaded.config
    src, src_keep = padded([src_tok.frame(src_tok.encode(t)) for t in sources], cfg.pad_id)
    tgt, tgt_keep = padded([[cfg.bos_id] + tgt_tok.encode(t) for t in targets], cfg.pad_id)
    return src, src_keep, tgt, tgt_keep


def reference_run(reference, src, src_keep, tgt, tgt_keep):
    with torch.no_grad():
        return reference(input_ids=src, attention_mask=src_keep.long(), decoder_input_ids=tgt,
                         decoder_attention_mask=tgt_keep.long(), output_hidden_states=True, output_attentions=True)


def compare(loaded, reference, sources, targets) -> dict[str, float]:
    """Every value transformers also gives, at the real tokens: both embeddings, each encoder and decoder layer's
    output, every self- and cross-attention weight, the logits. Returns the largest absolute differences."""
    src, src_keep, tgt, tgt_keep = batch(loaded, sources, targets)
    logits, trace = run_with_trace(loaded.model, src, tgt)
    ref = reference_run(reference, src, src_keep, tgt, tgt_keep)
    n, seen = loaded.config.n_encoder_layers, {}
    pairs = [("src_embed.out", trace["src_embed.out"], ref.encoder_hidden_states[0], src_keep),
             ("tgt_embed.out", trace["tgt_embed.out"], ref.decoder_hidden_states[0], tgt_keep),
             ("logits", logits, ref.logits, tgt_keep)]
    pairs += [(f"encoder {i}", trace.layer_output("encoder", i), ref.encoder_hidden_states[i + 1], src_keep)
              for i in range(n)]
    pairs += [(f"decoder {i}", trace.layer_output("decoder", i), ref.decoder_hidden_states[i + 1], tgt_keep)
              for i in range(loaded.config.n_decoder_layers)]
    for name, got, want, keep in pairs:
        got, want, real = np.asarray(got), want.numpy(), keep.numpy()
        assert_activations_close(got[real], want[real], name)  # [real tokens, d]
        seen[name] = float(np.abs(got[real] - want[real]).max())
    attentions = [("encoder", i, "self_attn", ref.encoder_attentions[i], src_keep) for i in range(n)]
    attentions += [("decoder", i, kind, weights[i], tgt_keep) for i in range(loaded.config.n_decoder_layers)
                   for kind, weights in (("self_attn", ref.decoder_attentions), ("cross_attn", ref.cross_attentions))]
    for stack, i, kind, want, keep in attentions:
        pattern = trace.attn(stack, i, kind).pattern  # [b, h, q, k]
        assert pattern.shape == want.shape, (stack, i, kind)
        error = np.abs(pattern - want.numpy()).transpose(0, 2, 1, 3)[keep.numpy()]  # [real queries, h, k]
        assert error.max() <= ATTN_TOL, f"{stack} {i} {kind}"
        seen[f"{stack} {i} {kind}"] = float(error.max())
    return seen


def test_marians_decoder_attends_to_its_first_token_although_it_is_the_pad_token(marian):
    kind, _, loaded, _ = marian
    src, _, tgt, _ = batch(loaded, SENTENCES[:2], TARGETS[kind][:2])
    assert (tgt[:, 0] == loaded.config.pad_id).all() and (tgt[1] == loaded.config.pad_id).sum() > 1
    _, trace = run_with_trace(loaded.model, src, tgt)
    pattern = trace.attn("decoder", 0, "self_attn").pattern  # [b, h, q, k]
    assert np.allclose(pattern[:, :, 0, 0], 1.0)  # the start token sees itself: no row is blocked
    assert (pattern[:, :, 1:, 0] > 0).all()
    short = int((tgt[1] != loaded.config.pad_id).sum()) + 1  # the second row's own tokens (its start included)
    assert (pattern[1, :, :, short:] == 0).all()  # its padding, after them, is masked


# ----- decoding ---------------------------------------------------------------------------------------------------

def generate(reference, src: list[int], max_new: int, eos: int) -> tuple[list[int], list[np.ndarray]]:
    """transformers' greedy output (do_sample=False, num_beams=1) without the decoder's start token, and each
    step's logits [vocab]."""
    with torch.no_grad():
        out = reference.generate(torch.tensor([src]), attention_mask=torch.ones(1, len(src), dtype=torch.long),
                                 max_new_tokens=max_new, do_sample=False, num_beams=1, eos_token_id=eos,
                                 return_dict_in_generate=True, output_logits=True)
    assert out.sequences[0, 0] == reference.config.decoder_start_token_id
    return out.sequences[0, 1:].tolist(), [step[0].numpy() for step in out.logits]


def test_greedy_decoding_gives_generates_ids(family):
    kind, _, loaded, reference = family
    tok, cfg = loaded.tokenizers["src"], loaded.config
    wants = []
    for text in SENTENCES + ["a fox", "1999"]:
        src = tok.frame(tok.encode(text))
        got = greedy(loaded.model, src, max_len=12)
        want, logits = generate(reference, src, 12, cfg.eos_id)
        ended = [cfg.eos_id] if got.finished_by == "eos" else []
        assert list(got.ids) + ended == want, text
        for step, theirs in zip(got.steps, logits, strict=True):  # each step's scores, from the KV cache
            assert_activations_close(step.logits, theirs, f"{text!r} step {step.index}")
        wants.append(tuple(want))
    assert len(set(wants)) > 1  # a random model repeats itself, but what it repeats depends on the source


def test_greedy_stops_where_generate_stops(family):
    # The third token transformers picks is made the end-of-sequence token of both: both stop right there.
    kind, _, loaded, reference = family
    tok, cfg = loaded.tokenizers["src"], loaded.config
    src = tok.frame(tok.encode(SENTENCES[0]))
    stop = generate(reference, src, 12, cfg.eos_id)[0][2]
    model = Transformer(dataclasses.replace(cfg, eos_id=stop))
    model.load_state_dict(loaded.model.state_dict())
    got = greedy(model.eval(), src, max_len=12)
    want = generate(reference, src, 12, stop)[0]
    assert want[-1] == stop and len(want) <= 3
    assert list(got.ids) + [got.steps[-1].chosen] == want and got.finished_by == "eos"


# ----- the tokenizers ---------------------------------------------------------------------------------------------

def hub_tokenizer(folder: Path):
    return quiet(lambda: transformers.AutoTokenizer.from_pretrained(folder))


TEXTS = SENTENCES + ["  two  spaces,\tand a tab ", "zebra ü and ß", ">>fra<< the cat", ">> no code",
                     "the cat </s> sat <pad>", ""]


@pytest.mark.parametrize("text", TEXTS)
def test_the_encoders_ids_are_transformers(family, text):
    _, folder, loaded, _ = family
    tok = loaded.tokenizers["src"]
    assert tok.frame(tok.encode(text)) == hub_tokenizer(folder)(text)["input_ids"]


@pytest.mark.parametrize("text", TARGETS["marian"] + ["zebra ü", ""])
def test_marians_target_side_reads_target_spm(marian, text):
    _, folder, loaded, _ = marian
    want = hub_tokenizer(folder)(text_target=text)["input_ids"]
    assert loaded.tokenizers["tgt"].encode(text) + [loaded.config.eos_id] == want  # transformers adds </s>


@pytest.mark.parametrize("text", SENTENCES + TARGETS["bart"])
def test_decoding_gives_transformers_text(family, text):
    _, folder, loaded, _ = family
    hub = hub_tokenizer(folder)
    for tok in loaded.tokenizers.values():
        # transformers drops an unknown piece with the other specials; ours shows it (the next test)
        ids = [i for i in tok.frame(tok.encode(text)) if i != tok.unk_id]
        assert tok.decode(ids) == hub.decode(ids, skip_special_tokens=True)
        assert tok.decode_visible(ids) == tok.decode(ids)


def test_marian_pieces_words_and_unknowns(marian):
    _, _, loaded, _ = marian
    tok = loaded.tokenizers["src"]
    ids = tok.frame(tok.encode("the zebra ü café"))
    assert ids[-1] == loaded.config.eos_id and tok.unk_id in ids  # no ü in the training text, no byte fallback
    assert tok.decode(ids) == "the zebra \u2047 café"  # sentencepiece's mark for an unknown piece
    assert tok.display_pieces(ids)[0] == tok.id_to_piece(ids[0]) and tok.display_pieces(ids)[0].startswith("\u2581")
    words = tok.word_ids(ids)
    assert words[-1] == -1 and sorted(set(words) - {-1}) == [0, 1, 2, 3]
    assert words[ids.index(tok.unk_id)] == 2  # the unknown piece belongs to the word it stands in
    assert tok.is_special(tok.eos_id) and tok.is_special(tok.pad_id) and not tok.is_special(ids[0])
    assert tok.frames_input is False  # the encoder reads … </s>, with no <s>: frame() says so, not bos … eos


def test_bart_frames_the_source_and_not_the_target(bart):
    _, _, loaded, _ = bart
    src, tgt = loaded.tokenizers["src"], loaded.tokenizers["tgt"]
    assert src.frames_input and not tgt.frames_input
    assert (src.id_to_piece(src.bos_id), src.id_to_piece(src.eos_id)) == ("<s>", "</s>")
    assert tgt.bos_id == tgt.eos_id == loaded.config.bos_id == 2  # the decoder starts from </s>
    assert src.encode("The cat") == tgt.encode("The cat")


# ----- what the import maps ---------------------------------------------------------------------------------------

def test_marian_imports_as_a_post_norm_sinusoidal_translator(marian):
    _, folder, loaded, reference = marian
    cfg, vocab = loaded.config, json.loads((folder / "vocab.json").read_text())
    assert (cfg.architecture, cfg.n_encoder_layers, cfg.n_decoder_layers, cfg.n_heads, cfg.d_model, cfg.d_ff) == \
        ("encoder-decoder", 2, 2, 2, 32, 64)
    assert (cfg.positional, cfg.sinusoidal_layout, cfg.norm_placement, cfg.activation, cfg.embed_norm) == \
        ("sinusoidal", "halves", "post", "silu", False)
    assert (cfg.scale_embedding, cfg.tie_embeddings, cfg.output_bias, cfg.max_len) == (True, True, True, 64)
    assert (cfg.pad_id, cfg.unk_id, cfg.bos_id, cfg.eos_id) == (vocab["<pad>"], 1, vocab["<pad>"], 0)
    model = loaded.model
    assert model.generator.weight is model.tgt_embed.tok.weight
    assert torch.equal(model.generator.bias, reference.final_logits_bias[0])  # the logits' own bias
    assert "tiny-marian" in loaded.card and str(folder.parent) not in loaded.card  # no server path in the card


def test_marians_positions_are_its_sines_then_cosines(marian):
    _, _, loaded, reference = marian
    ours = loaded.model.src_embed.pos.table  # [max_len, d]
    for stack in (reference.model.encoder, reference.model.decoder):
        assert torch.allclose(ours, stack.embed_positions.weight, atol=1e-6)
    d = loaded.config.d_model
    paper = sinusoidal_table(64, d)  # interleaved: the same numbers in another order
    assert torch.equal(ours[:, : d // 2], paper[:, 0::2]) and torch.equal(ours[:, d // 2 :], paper[:, 1::2])
    assert not torch.allclose(ours, paper, atol=0.1)


def test_bart_imports_with_learned_positions_from_row_2(bart):
    _, _, loaded, reference = bart
    cfg = loaded.config
    assert (cfg.positional, cfg.norm_placement, cfg.activation, cfg.embed_norm, cfg.scale_embedding) == \
        ("learned", "post", "gelu", True, False)
    assert (cfg.pad_id, cfg.unk_id, cfg.bos_id, cfg.eos_id, cfg.max_len) == (1, 3, 2, 2, 64)
    for ours, theirs in ((loaded.model.src_embed, reference.model.encoder), (loaded.model.tgt_embed,
                                                                             reference.model.decoder)):
        assert theirs.embed_positions.weight.shape[0] == 66  # max_position_embeddings + the offset of 2
        assert torch.equal(ours.pos.weight, theirs.embed_positions.weight[2:])
        assert torch.equal(ours.norm.weight, theirs.layernorm_embedding.weight)
    assert torch.equal(loaded.model.generator.bias, reference.final_logits_bias[0])


def rewritten(folder: Path, dest: Path, tensors=None, **fields) -> Path:
    """A copy of the folder: config.json's `fields` set (a field given as ... taken out), `tensors(dict)` applied
    to model.safetensors' tensors."""
    copy = Path(shutil.copytree(folder, dest))
    config = json.loads((copy / "config.json").read_text())
    config.update(fields)
    (copy / "config.json").write_text(json.dumps({k: v for k, v in config.items() if v is not ...}))
    if tensors is not None:
        stored = load_file(copy / "model.safetensors")
        tensors(stored)
        save_file(stored, copy / "model.safetensors")
    return copy


def test_an_untied_output_layer_matches_transformers(family, tmp_path):
    # Untied, transformers keeps the encoder's, the decoder's and the output layer's matrices apart: each is made
    # different here, so a side reading another's shows.
    kind, folder, _, _ = family
    made = {}

    def untie(stored):
        shared = stored["model.shared.weight"]
        for name in ("model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight", "lm_head.weight"):
            made[name] = stored[name] = shared + torch.randn_like(shared) * 0.25

    copy = rewritten(folder, tmp_path / "untied", untie, tie_word_embeddings=False)
    loaded, reference = checkpoints.load(copy), REFERENCE[kind].from_pretrained(copy, attn_implementation="eager").eval()
    model = loaded.model
    assert not loaded.config.tie_embeddings and torch.equal(model.generator.weight, made["lm_head.weight"])
    assert torch.equal(model.src_embed.tok.weight, made["model.encoder.embed_tokens.weight"])
    assert torch.equal(model.tgt_embed.tok.weight, made["model.decoder.embed_tokens.weight"])
    assert torch.equal(reference.lm_head.weight, made["lm_head.weight"])  # transformers reads them apart too
    compare(loaded, reference, SENTENCES[:2], TARGETS[kind][:2])


def test_a_body_saved_without_its_head_loads_with_a_zero_logit_bias(family, tmp_path):
    # BartModel / MarianModel save their tensors without the "model." prefix and without final_logits_bias.
    kind, folder, loaded, _ = family

    def strip(stored):
        for name in list(stored):
            stored[name.removeprefix("model.")] = stored.pop(name)
        del stored["final_logits_bias"]

    bare = checkpoints.load(rewritten(folder, tmp_path / "bare", strip))
    for name, value in loaded.model.state_dict().items():
        want = torch.zeros_like(value) if name == "generator.bias" else value
        assert torch.equal(bare.model.state_dict()[name], want), name


def test_an_older_marian_file_with_its_position_tables_loads_if_they_are_the_sinusoid(marian, tmp_path):
    _, folder, loaded, reference = marian
    tables = {f"model.{s}.embed_positions.weight": getattr(reference.model, s).embed_positions.weight.clone()
              for s in ("encoder", "decoder")}
    older = checkpoints.load(rewritten(folder, tmp_path / "older", lambda stored: stored.update(tables)))
    for name, value in loaded.model.state_dict().items():
        assert torch.equal(older.model.state_dict()[name], value), name
    interleaved = torch.arange(32).reshape(2, -1).t().reshape(-1)  # sin 0, cos 0, sin 1, cos 1, …: the paper's order
    swapped = {name: table[:, interleaved] for name, table in tables.items()}
    with pytest.raises(CheckpointError, match="model.encoder.embed_positions.weight is not Marian's sinusoidal") as e:
        checkpoints.load(rewritten(folder, tmp_path / "wrong", lambda stored: stored.update(swapped)))
    assert e.value.code == "marian_positions"


def test_checkpoint_load_hands_both_families_to_the_importer(marian, bart, monkeypatch):
    calls = []
    for importer in (marian_importer, bart_importer):
        monkeypatch.setattr(importer, "load", lambda path: calls.append(path) or "imported")
    assert checkpoints.load(marian[1]) == checkpoints.load(bart[1]) == "imported" and calls == [marian[1], bart[1]]
    assert not hub.reads(REVERSE, marian_importer.MODEL_TYPES + bart_importer.MODEL_TYPES)  # one of our own checkpoints is not taken for one
    assert checkpoints.load(REVERSE).config.architecture == "encoder-decoder" and len(calls) == 2


# ----- what is refused --------------------------------------------------------------------------------------------

def test_a_folder_with_only_pytorch_model_bin_is_refused_unread(family, tmp_path):
    assert_pickle_only_is_refused_unread(family[1], tmp_path)


UNSUPPORTED = {  # (field, a value the core cannot reproduce), for both families unless named
    "both": [("normalize_before", True), ("add_final_layer_norm", True), ("add_bias_logits", True),
             ("decoder_attention_heads", 4), ("decoder_ffn_dim", 96), ("activation_function", "gelu_fast"),
             ("eos_token_id", [0, 2]), ("decoder_start_token_id", None), ("is_encoder_decoder", False)],
    "marian": [("share_encoder_decoder_embeddings", False), ("static_position_embeddings", False),
               ("normalize_embedding", True), ("decoder_vocab_size", 7)],
    "bart": [("extra_pos_embeddings", 0), ("normalize_embedding", False), ("static_position_embeddings", True)],
}
FAMILIES = {"marian": marian_importer.FAMILY, "bart": bart_importer.FAMILY}  # the name each refusal carries
CASES = [(kind, field, value) for kind in ("marian", "bart")
         for field, value in UNSUPPORTED["both"] + UNSUPPORTED[kind]]


@pytest.mark.parametrize("kind, field, value", CASES, ids=[f"{k}-{f}" for k, f, _ in CASES])
def test_a_setting_it_cannot_reproduce_is_named(request, tmp_path, kind, field, value):
    _, folder, _, _ = request.getfixturevalue(kind)
    with pytest.raises(CheckpointError, match=f"config.json has {field} = ") as caught:
        checkpoints.load(rewritten(folder, tmp_path / "x", **{field: value}))
    assert caught.value.code == "import_setting" and caught.value.fields["name"] == field
    assert caught.value.fields["family"] == FAMILIES[kind]


@pytest.mark.parametrize("field", ["d_model", "decoder_start_token_id", "pad_token_id", "max_position_embeddings"])
def test_a_missing_field_is_named(family, tmp_path, field):
    kind, folder, _, _ = family
    with pytest.raises(CheckpointError, match=f"config.json lacks {field}") as caught:
        checkpoints.load(rewritten(folder, tmp_path / "x", **{field: ...}))
    assert caught.value.code == "import_lacks" and caught.value.fields["family"] == FAMILIES[kind]


def test_a_wrong_shape_is_named(family, tmp_path):
    _, folder, _, _ = family
    name = "model.decoder.layers.1.encoder_attn.k_proj.weight"

    def widen(stored):
        stored[name] = torch.zeros(32, 33)

    with pytest.raises(CheckpointError, match=rf"{name} has shape \[32, 33\], but the config needs \[32, 32\]"):
        checkpoints.load(rewritten(folder, tmp_path / "x", widen))


def test_a_missing_tensor_is_named(family, tmp_path):
    _, folder, _, _ = family
    name = "model.encoder.layers.1.fc2.bias"
    with pytest.raises(CheckpointError, match=rf"lacks tensor\(s\) the config needs: {name}"):
        checkpoints.load(rewritten(folder, tmp_path / "x", lambda stored: stored.pop(name)))


@pytest.mark.parametrize("missing", ["source.spm", "target.spm", "vocab.json"])
def test_a_marian_folder_without_a_tokenizer_file_names_it(marian, tmp_path, missing):
    copy = Path(shutil.copytree(marian[1], tmp_path / "x"))
    (copy / missing).unlink()
    with pytest.raises(CheckpointError, match=f"has no {missing}") as caught:
        checkpoints.load(copy)
    assert caught.value.code == "file_missing"


@pytest.mark.parametrize("change, code", [(lambda v: v.update({"▁extra": len(v) + 3}), "marian_vocab_ids"),
                                          (lambda v: v.update({"</s>": "0"}), "marian_vocab_not_map"),
                                          (lambda v: v.pop("<unk>") and v.update({"<unk2>": 1}), "tokenizer_no_token"),
                                          (lambda v: v.update({"</s>": 1, "<unk>": 0}), "special_mismatch")])
def test_a_marian_vocab_json_that_does_not_fit_is_refused(marian, tmp_path, change, code):
    copy = Path(shutil.copytree(marian[1], tmp_path / "x"))
    vocab = json.loads((copy / "vocab.json").read_text())
    change(vocab)
    (copy / "vocab.json").write_text(json.dumps(vocab))
    with pytest.raises(CheckpointError) as caught:
        checkpoints.load(copy)
    assert caught.value.code == code and caught.value.fields["file"] == "vocab.json"


def test_a_corrupt_sentencepiece_model_is_named(marian, tmp_path):
    copy = Path(shutil.copytree(marian[1], tmp_path / "x"))
    (copy / "target.spm").write_bytes(b"not a model")
    with pytest.raises(CheckpointError, match="target.spm is not a sentencepiece model") as caught:
        checkpoints.load(copy)
    assert caught.value.code == "tokenizer_corrupt"


def test_a_vocabulary_of_another_size_is_refused(family, tmp_path):
    kind, folder, loaded, _ = family
    bigger = loaded.config.src_vocab_size + 1

    def grow(stored):
        stored["model.shared.weight"] = torch.zeros(bigger, 32)
        stored["final_logits_bias"] = torch.zeros(1, bigger)

    with pytest.raises(CheckpointError, match=f"has {bigger - 1} tokens, but the config says {bigger}") as caught:
        sizes = {"vocab_size": bigger, "decoder_vocab_size": bigger} if kind == "marian" else {"vocab_size": bigger}
        checkpoints.load(rewritten(folder, tmp_path / "x", grow, **sizes))
    assert caught.value.code == "vocab_mismatch"


def test_every_code_raised_here_is_worded_in_both_languages():
    from viz_app.i18n import STRINGS

    for code in ("import_setting", "import_lacks", "marian_positions",
                 "marian_vocab_ids", "marian_vocab_not_map", "tokenizer_no_token", "special_mismatch",
                 "tokenizer_corrupt", "vocab_mismatch", "file_missing", "pickle_checkpoint"):
        assert STRINGS[f"error.{code}"]["en"] and STRINGS[f"error.{code}"]["zh"]


# ----- what the core gained for it --------------------------------------------------------------------------------

def test_silu_is_x_times_its_sigmoid():
    ffn = FeedForward(ModelConfig(activation="silu", d_model=4, n_heads=1, d_ff=8))
    x = torch.linspace(-6, 6, 101)
    assert torch.allclose(ffn.activation(x), x / (1 + torch.exp(-x)), atol=1e-6)  # Marian's "swish", written out


def test_the_halves_layout_is_the_paper_table_with_its_columns_regrouped():
    module = SinusoidalPositions(50, 8, 10000.0, "halves")
    paper = sinusoidal_table(50, 8)
    assert torch.equal(module(torch.arange(50)), torch.cat([paper[:, 0::2], paper[:, 1::2]], dim=1))
    assert torch.equal(module.table[3, :4], torch.sin(3 / 10000.0 ** (torch.arange(0, 8, 2).double() / 8)).float())


def test_an_old_config_without_the_layout_loads_interleaved():
    data = ModelConfig().to_dict()
    del data["sinusoidal_layout"]
    assert ModelConfig.from_dict(data).sinusoidal_layout == "interleaved"


@pytest.mark.parametrize("overrides", [{"sinusoidal_layout": "split"}, {"sinusoidal_layout": None},
                                       {"sinusoidal_layout": "halves", "positional": "learned"}])
def test_a_bad_layout_is_refused_naming_it(overrides):
    with pytest.raises(ValueError, match="sinusoidal_layout"):
        ModelConfig(**overrides)


def test_a_decoder_starting_from_its_pad_token_masks_its_padding_but_not_its_start():
    cfg = ModelConfig(n_encoder_layers=1, n_decoder_layers=1, dropout=0.0, bos_id=0)  # bos = pad = 0, as Marian's
    _, trace = run_with_trace(Transformer(cfg).eval(), [5, 6], [0, 7, 0, 8])
    pattern = trace.attn("decoder", 0, "self_attn").pattern[0]  # [h, q, k]
    assert (pattern[:, :, 0] > 0).all()  # the start token, though it is pad_id
    assert (pattern[:, 3, 2] == 0).all()  # a later pad_id is padding
