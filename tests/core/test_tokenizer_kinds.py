"""Every tokenizer kind offers what the rest of the code uses: core_model/tokenizers/base.py's `TokenizerLike`.

Each kind is made here, small: our sentencepiece `Tokenizer` trained on test_tokenizer.py's corpus; a WordPiece
(BERT's kind) and two byte-level BPE tokenizer.json files (GPT-2's, whose one special token takes every role, and
BART's, whose encoder reads <s> … </s>) trained with the `tokenizers` library; and a Marian tokenizer from a
sentencepiece model and vocab.json made by test_marian_bart.py's helpers. Each is checked structurally (isinstance
with the runtime-checkable Protocol) and then by calling every member, with the values that kind must give.
"""
from __future__ import annotations

import pytest

from core_model.checkpoints import hub_encoder
from core_model.tokenizers import (ByteLevelBPETokenizer, HubTokenizer, MarianTokenizer, Tokenizer, TokenizerLike,
                                   WordPieceTokenizer)
from tests.families.marian_bart import ENGLISH, marian_vocab, spm_bytes
from tests.core.test_tokenizer import CORPUS

tokenizers = pytest.importorskip("tokenizers")

EOT = "<|endoftext|>"
BART = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]  # BART's special tokens, in its ids' order
TEXT = "the cat sat on the red mat"  # every kind gives it back as it is
# Per kind: the pieces of pad, unk, bos and eos, as each tokenizer's own files spell them.
SPECIALS = {"sentencepiece": ("<pad>", "<unk>", "<s>", "</s>"), "wordpiece": ("[PAD]", "[UNK]", "[CLS]", "[SEP]"),
            "gpt2": (EOT,) * 4, "bart": ("<pad>", "<unk>", "<s>", "</s>"),
            "marian": ("<pad>", "<unk>", "<pad>", "</s>")}  # Marian's decoder starts from <pad>
KINDS = list(SPECIALS)


def hub_file(path, model, trainer, **parts):
    """A tokenizer.json trained on CORPUS with `model` and `parts` (normalizer, pre_tokenizer, decoder)."""
    tk = tokenizers.Tokenizer(model)
    for name, part in parts.items():
        setattr(tk, name, part)
    tk.train_from_iterator(CORPUS, trainer)
    tk.save(str(path))
    return path


def wordpiece_file(path):
    """BERT's kind, with its specials first: [PAD] 0, [UNK] 1, [CLS] 2, [SEP] 3."""
    trainer = tokenizers.trainers.WordPieceTrainer(vocab_size=400, show_progress=False,
                                                   special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    return hub_file(path, tokenizers.models.WordPiece(unk_token="[UNK]"), trainer,
                    normalizer=tokenizers.normalizers.BertNormalizer(),
                    pre_tokenizer=tokenizers.pre_tokenizers.BertPreTokenizer(),
                    decoder=tokenizers.decoders.WordPiece())


def byte_bpe_file(path, specials):
    """GPT-2's kind, as test_gpt2.py and test_marian_bart.py train it."""
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=400, special_tokens=specials, show_progress=False,
                                             initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet())
    return hub_file(path, tokenizers.models.BPE(), trainer,
                    pre_tokenizer=tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False),
                    decoder=tokenizers.decoders.ByteLevel())


def marian():
    """The encoder's side of a Marian model, with the roles as the importer finds them in vocab.json."""
    model = spm_bytes(ENGLISH, 120)
    vocab = marian_vocab([model])
    roles = {"pad": vocab["<pad>"], "unk": vocab["<unk>"], "bos": vocab["<pad>"], "eos": vocab["</s>"]}
    return MarianTokenizer.load(model, vocab, roles, ends_with_eos=True)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("kinds")
    gpt2 = byte_bpe_file(tmp / "gpt2.json", [EOT])
    eot = tokenizers.Tokenizer.from_file(str(gpt2)).token_to_id(EOT)
    bart_roles = {"pad": 1, "unk": "<unk>", "bos": 0, "eos": 2}  # as the importer gives them: by id or by text
    return {
        "sentencepiece": Tokenizer.train(CORPUS, tmp / "spm.model", vocab_size=400),
        "wordpiece": WordPieceTokenizer.load(wordpiece_file(tmp / "bert.json"), hub_encoder.BERT_SPECIALS),
        "gpt2": ByteLevelBPETokenizer.load(gpt2, {role: eot for role in ("pad", "unk", "bos", "eos")}),
        "bart": ByteLevelBPETokenizer.load(byte_bpe_file(tmp / "bart.json", BART), bart_roles, frames_input=True),
        "marian": marian(),
    }


@pytest.fixture(params=KINDS)
def kind(request, made):
    return request.param, made[request.param]


def test_every_kind_is_a_tokenizer_like(made):
    assert all(isinstance(tok, TokenizerLike) for tok in made.values()), {k: type(t) for k, t in made.items()}
    # The check is not blind: the hub kinds' shared base lacks the members each kind adds, and so is not one.
    plain = tokenizers.Tokenizer.from_str(made["gpt2"]._tk.to_str())
    assert not isinstance(HubTokenizer(plain, {"pad": EOT, "unk": EOT, "bos": EOT, "eos": EOT}), TokenizerLike)
    assert not isinstance("a str has encode but nothing else", TokenizerLike)


def test_the_protocol_is_what_the_code_uses():
    """Every member, and only those, that the app, decoding and training call on a tokenizer of any kind."""
    members = {n for n in vars(TokenizerLike) if not n.startswith("_")} | set(TokenizerLike.__annotations__)
    assert members == {"frames_input", "vocab_size", "pad_id", "unk_id", "bos_id", "eos_id", "is_special",
                       "id_to_piece", "piece_to_id", "encode", "frame", "decode", "decode_visible", "pieces",
                       "display_pieces", "word_ids"}


def test_the_special_ids_are_those_of_the_files_pieces(kind):
    name, tok = kind
    ids = (tok.pad_id, tok.unk_id, tok.bos_id, tok.eos_id)
    assert tuple(tok.id_to_piece(i) for i in ids) == SPECIALS[name]
    assert tuple(tok.piece_to_id(p) for p in SPECIALS[name]) == ids
    assert all(tok.is_special(i) for i in ids)
    assert not any(tok.is_special(i) for i in tok.encode(TEXT))
    if name == "sentencepiece":
        assert ids == (0, 1, 2, 3)  # fixed by our trainer's options, as ModelConfig's defaults are
    if name == "wordpiece":
        assert ids == (0, 1, 2, 3)  # the trainer's special_tokens order, not BERT's 0, 100, 101, 102


def test_the_vocabulary_ends_at_vocab_size(kind):
    _, tok = kind
    pieces = [tok.id_to_piece(i) for i in range(tok.vocab_size)]  # each id below it has a piece of its own
    assert 50 < len(set(pieces)) == tok.vocab_size <= 400
    with pytest.raises(IndexError, match="outside the vocabulary"):
        tok.id_to_piece(tok.vocab_size)
    assert tok.piece_to_id("no such piece \u2603\u2603") == tok.unk_id


def test_encode_decode_round_trip_with_the_specials_dropped(kind):
    _, tok = kind
    ids = tok.encode(TEXT)
    assert ids and all(isinstance(i, int) and 0 <= i < tok.vocab_size for i in ids)
    assert tok.encode(TEXT, add_bos=True, add_eos=True) == [tok.bos_id, *ids, tok.eos_id]
    assert tok.decode(ids) == tok.decode([tok.bos_id, *ids, tok.eos_id, tok.pad_id]) == TEXT
    assert tok.decode_visible(ids) == TEXT
    with pytest.raises(ValueError, match="not a str"):
        tok.encode(b"bytes")


def test_frame_is_what_frames_input_promises(kind):
    name, tok = kind
    ids = tok.encode(TEXT)
    want = {"wordpiece": [tok.bos_id, *ids, tok.eos_id], "bart": [tok.bos_id, *ids, tok.eos_id],
            "marian": [*ids, tok.eos_id]}.get(name, ids)  # Marian's encoder reads … </s>, with no <s>
    assert tok.frame(ids) == want
    assert tok.frames_input == (name in ("wordpiece", "bart"))


def spelled(labels: list[str]) -> str:
    """The text a row of labels spells: ▁ (ours, Marian's, the byte-level kinds' space) or ## (WordPiece)."""
    return " ".join(labels).replace(" ##", "").replace(" ", "").replace("\u2581", " ").strip()


def test_pieces_and_their_labels_spell_the_text(kind):
    name, tok = kind
    ids = tok.encode(TEXT)
    assert tok.pieces(TEXT) == [tok.id_to_piece(i) for i in ids]
    labels = tok.display_pieces(ids)
    assert len(labels) == len(ids)
    joined = spelled(labels)
    assert (joined == TEXT) if name != "wordpiece" else (joined == TEXT.replace(" ", ""))  # WordPiece has no space mark


def test_word_ids_point_into_the_decoded_words(kind):
    _, tok = kind
    ids = [tok.bos_id, *tok.encode(TEXT), tok.eos_id]
    words = tok.word_ids(ids)
    assert len(words) == len(ids) and words[0] == words[-1] == -1  # specials belong to no word
    assert sorted(set(words) - {-1}) == list(range(len(TEXT.split())))
    assert [w for w in words if w >= 0] == sorted(w for w in words if w >= 0)
    for k, word in enumerate(TEXT.split()):
        assert tok.decode([i for i, w in zip(ids, words) if w == k]).strip() == word
