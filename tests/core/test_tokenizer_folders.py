"""Tokenizers read from the files a Hugging Face folder has, each form made here (sentencepiece trains the models,
transformers' own tokenizer classes write the folders) and compared with transformers' AutoTokenizer of the same
folder: the ids, the framing, the text decoded; and what the app shows of them (pieces, words)."""
from __future__ import annotations

import json
import os
import shutil

import pytest

from core_model.messages import CodedError
from core_model.tokenizers import (ByteLevelBPETokenizer, MetaspaceTokenizer, SentencePieceModelTokenizer,
                                   TokenizerLike, WordPieceTokenizer)
from core_model.tokenizers import folder as folder_tokenizer
from tests.families.compare import SENTENCES

os.environ["HF_HUB_OFFLINE"] = "1"  # everything is made here; nothing is fetched
transformers = pytest.importorskip("transformers")
pytest.importorskip("sentencepiece")
tokenizers = pytest.importorskip("tokenizers")

from tests.families.tokenizers import (CORPUS, LLAMA2_SPM, T5_SPM, byte_bpe, sentencepiece,  # noqa: E402
                                       spm_model)

EOT = "<|endoftext|>"
TEXTS = [*SENTENCES, "xé一 😀 <unk> [UNK]"]  # characters no piece has: bytes (Llama 2) or <unk> (T5); specials
T5_ROLES = dict(eos_token="</s>", unk_token="<unk>", pad_token="<pad>", extra_ids=0)
LLAMA2_ROLES = dict(bos_token="<s>", eos_token="</s>", unk_token="<unk>")
# Sentencepiece-style folders: (model options, the model's file, transformers' class, tokenizer_config's roles)
FORMS = {"t5": (T5_SPM, "spiece.model", "T5Tokenizer", T5_ROLES),
         "llama2": (LLAMA2_SPM, "tokenizer.model", "LlamaTokenizer", LLAMA2_ROLES)}
# Our roles in each (T5's decoder starts from <pad>; Llama 2 has no pad token: eos pads)
ROLES = {"t5": {"pad": "<pad>", "unk": "<unk>", "bos": "<pad>", "eos": "</s>"},
         "llama2": {"pad": "</s>", "unk": "<unk>", "bos": "<s>", "eos": "</s>"}}


@pytest.fixture(scope="module")
def spm_folders(tmp_path_factory):
    """Each sentencepiece-style form's folder: its model file, tokenizer_config.json and tokenizer.json."""
    out = {}
    for name, (options, file, cls, roles) in FORMS.items():
        out[name] = tmp_path_factory.mktemp("spm") / name
        sentencepiece(out[name], spm_model(**options), file, cls, **roles)
    return out


def metaspace(folder, frames_input=None):
    return MetaspaceTokenizer.load(folder / "tokenizer.json", ROLES[folder.name], frames_input)


def same_as_transformers(tok, folder, framed: bool):
    fast = transformers.AutoTokenizer.from_pretrained(folder)
    for text in TEXTS:
        ids = tok.encode(text)
        assert ids == fast(text, add_special_tokens=False)["input_ids"], text
        assert tok.frame(ids) == (fast(text)["input_ids"] if framed else ids), text
        assert tok.decode(ids) == fast.decode(ids), text


@pytest.mark.parametrize("form", list(FORMS))
def test_a_sentencepiece_style_tokenizer_json_gives_transformers_ids(spm_folders, form):
    tok = metaspace(spm_folders[form])
    assert isinstance(tok, TokenizerLike)
    same_as_transformers(tok, spm_folders[form], framed=False)
    same_as_transformers(metaspace(spm_folders[form], frames_input=True), spm_folders[form], framed=True)


def test_the_pieces_show_a_space_as_the_mark_and_a_byte_as_its_label(spm_folders):
    tok = metaspace(spm_folders["llama2"])
    ids = tok.encode("xé一 😀")
    assert "".join(tok.display_pieces(ids)) == "▁xé<E4><B8><80>▁<F0><9F><98><80>"
    assert [tok.display_pieces([i])[0] for i in tok.encode("\t")] == ["▁", "<09>"]
    assert tok.word_ids(ids) == [-1, 0, 0, 0, 0, 0, -1, 1, 1, 1, 1]
    assert tok.decode_visible(ids[:-1]) == "xé一 <F0><9F><98>"  # an emoji cut short: its bytes' labels


def test_an_unknown_piece_stays_in_its_word(spm_folders):
    tok = metaspace(spm_folders["t5"])
    ids = tok.encode("café: 猫")
    assert tok.unk_id in ids
    assert tok.word_ids(ids) == [-1 if p == "▁" else (0 if n < ids.index(tok.unk_id) + 1 else 1)
                                 for n, p in enumerate(tok.display_pieces(ids))]


def test_a_byte_level_file_is_not_sentencepiece_style(tmp_path):
    byte_bpe(tmp_path, ["<unk>", "<s>", "</s>"])
    with pytest.raises(CodedError) as refused:
        MetaspaceTokenizer.load(tmp_path / "tokenizer.json", {"pad": "<unk>", "unk": "<unk>", "bos": "<s>",
                                                              "eos": "</s>"})
    assert refused.value.code == "tokenizer_not_sentencepiece" and refused.value.fields == {"file": "tokenizer.json"}


# ----- the other files a folder may ship instead of tokenizer.json, read through folder.read -----------------------

def gpt2_vocab_files(dest):
    """GPT-2's files before tokenizer.json: vocab.json, merges.txt, tokenizer_config.json naming its one special."""
    dest.mkdir(parents=True)
    trained = byte_bpe(dest, [EOT])
    (dest / "tokenizer.json").unlink()
    trained.model.save(str(dest))
    (dest / "tokenizer_config.json").write_text(json.dumps(
        {"tokenizer_class": "GPT2Tokenizer", "bos_token": EOT, "eos_token": EOT, "unk_token": EOT}))
    return dest


def bert_vocab_file(dest):
    """BERT's vocab.txt with tokenizer_config.json (lowercasing) and special_tokens_map.json naming the specials."""
    dest.mkdir(parents=True)
    trained = tokenizers.BertWordPieceTokenizer()
    trained.train_from_iterator(CORPUS, vocab_size=300, show_progress=False,
                                special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    trained.save_model(str(dest))
    (dest / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "BertTokenizer", "do_lower_case": True}))
    (dest / "special_tokens_map.json").write_text(json.dumps(
        {"pad_token": "[PAD]", "unk_token": {"content": "[UNK]", "special": True}, "cls_token": "[CLS]",
         "sep_token": "[SEP]", "mask_token": "[MASK]"}))
    return dest


@pytest.fixture(scope="module")
def vocab_folders(tmp_path_factory, spm_folders):
    """Each form without tokenizer.json: a sentencepiece model alone, vocab.json + merges.txt, vocab.txt."""
    root = tmp_path_factory.mktemp("vocab")
    out = {"gpt2": gpt2_vocab_files(root / "gpt2"), "bert": bert_vocab_file(root / "bert")}
    for name in FORMS:
        out[name] = root / name
        shutil.copytree(spm_folders[name], out[name])
        (out[name] / "tokenizer.json").unlink()
    return out


# What each form's importer passes (a config.json's ids, or nothing) and how the model reads a text
READS = {"t5": ({"bos": "<pad>"}, dict(ends_with_eos=True), SentencePieceModelTokenizer),
         "llama2": ({"pad": "</s>"}, {}, SentencePieceModelTokenizer),
         "gpt2": ({"pad": None}, {}, ByteLevelBPETokenizer),
         "bert": ({"bos": "[CLS]", "eos": "[SEP]"}, dict(frames_input=True), WordPieceTokenizer)}


@pytest.mark.parametrize("form", list(READS))
def test_a_folder_without_tokenizer_json_gives_transformers_ids(vocab_folders, form):
    folder, (roles, framing, kind) = vocab_folders[form], READS[form]
    tok = folder_tokenizer.read(folder, roles, **framing)
    assert type(tok) is kind and isinstance(tok, TokenizerLike)
    fast = transformers.AutoTokenizer.from_pretrained(folder)
    assert tok.vocab_size == len(fast)
    for text in TEXTS:
        ids = tok.encode(text)
        assert ids == fast(text, add_special_tokens=False)["input_ids"], text
        assert tok.frame(ids) == fast(text)["input_ids"], text
        if tok.unk_id not in ids:
            assert tok.decode(ids).strip() == fast.decode(ids, skip_special_tokens=True).strip(), text
    pad = fast.pad_token_id if fast.pad_token_id is not None else fast.eos_token_id  # none named: eos pads
    assert (tok.pad_id, tok.unk_id) == (pad, fast.unk_token_id)


@pytest.mark.parametrize("form", list(FORMS))
def test_read_picks_the_sentencepiece_style_kind_from_tokenizer_json(spm_folders, form):
    tok = folder_tokenizer.read(spm_folders[form], ROLES[form])
    assert type(tok) is MetaspaceTokenizer
    same_as_transformers(tok, spm_folders[form], framed=False)


def test_the_specials_are_read_from_the_files(vocab_folders, spm_folders):
    assert folder_tokenizer.specials(vocab_folders["bert"]) == {"pad": "[PAD]", "unk": "[UNK]", "cls": "[CLS]",
                                                                "sep": "[SEP]", "mask": "[MASK]"}
    assert folder_tokenizer.specials(vocab_folders["gpt2"]) == {"unk": EOT, "bos": EOT, "eos": EOT}
    assert folder_tokenizer.specials(spm_folders["t5"]) == {"pad": "<pad>", "unk": "<unk>", "eos": "</s>"}
    # a role the importer leaves open takes the files' token, through the vocabulary: GPT-2's pad is <|endoftext|>
    tok = folder_tokenizer.read(vocab_folders["gpt2"], {})
    assert tok.pad_id == tok.bos_id == tok.eos_id == tok.piece_to_id(EOT) == 0


def test_a_role_nobody_names_takes_eos_and_eos_must_be_named(vocab_folders):
    tok = folder_tokenizer.read(vocab_folders["t5"], {})  # T5 names no bos (its importer passes <pad>)
    assert tok.bos_id == tok.eos_id == 1
    with pytest.raises(CodedError) as refused:
        folder_tokenizer.read(vocab_folders["bert"], {})  # BERT names [SEP], no eos: its importer passes [SEP]
    assert refused.value.code == "tokenizer_no_role" and refused.value.fields["role"] == "eos"


def test_a_folder_with_no_tokenizer_file_is_refused_naming_the_files_looked_for(tmp_path):
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"unk_token": "<unk>"}))
    with pytest.raises(CodedError) as refused:
        folder_tokenizer.read(tmp_path, {"pad": 0, "bos": 0, "eos": 0})
    assert refused.value.code == "tokenizer_none"
    assert all(name in refused.value.fields["files"] for name in ("tokenizer.json", "spiece.model",
                                                                   "tokenizer.model", "merges.txt", "vocab.txt"))


def test_a_broken_tokenizer_config_is_named(tmp_path):
    (tmp_path / "tokenizer_config.json").write_text("[1, 2]")
    with pytest.raises(CodedError) as refused:
        folder_tokenizer.specials(tmp_path)
    assert (refused.value.code, refused.value.fields) == ("tokenizer_not_json", {"file": "tokenizer_config.json"})
