"""Tokenizers read from the files a Hugging Face folder has, each form made here (sentencepiece trains the models,
transformers' own tokenizer classes write the folders) and compared with transformers' AutoTokenizer of the same
folder: the ids, the framing, the text decoded; and what the app shows of them (pieces, words)."""
from __future__ import annotations

import os

import pytest

from core_model.messages import CodedError
from core_model.tokenizers import MetaspaceTokenizer, TokenizerLike
from tests.families.compare import SENTENCES

os.environ["HF_HUB_OFFLINE"] = "1"  # everything is made here; nothing is fetched
transformers = pytest.importorskip("transformers")
pytest.importorskip("sentencepiece")

from tests.families.tokenizers import (LLAMA2_SPM, T5_SPM, byte_bpe, sentencepiece,  # noqa: E402
                                       spm_model)

TEXTS = [*SENTENCES, "xé一 😀 <unk>"]  # a character no piece has: bytes (Llama 2) or <unk> (T5)
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
