"""Tests for our sentencepiece Tokenizer (core_model/tokenizers/sentencepiece.py): exact round trip, fixed specials,
word ids, clear errors."""
from __future__ import annotations

import io
import random

import pytest
import sentencepiece as spm
from hypothesis import given, settings
from hypothesis import strategies as st

from core_model.tokenizers import MIN_VOCAB_SIZE, Tokenizer

SUBJECTS = [("the cat", "le chat"), ("the dog", "le chien"), ("my sister", "ma sœur"),
            ("the old man", "le vieil homme"), ("a child", "un enfant"), ("the teacher", "la maîtresse"),
            ("our neighbour", "notre voisin"), ("the baker", "le boulanger"), ("his brother", "son frère"),
            ("the young woman", "la jeune femme"), ("every student", "chaque étudiant")]
VERBS = [("eats", "mange"), ("sees", "voit"), ("likes", "aime"), ("draws", "dessine"), ("wants", "veut"),
         ("buys", "achète"), ("forgets", "oublie"), ("carries", "porte"), ("paints", "peint"),
         ("finds", "trouve"), ("throws", "lance"), ("washes", "lave")]
OBJECTS = [("a red apple", "une pomme rouge"), ("the big house", "la grande maison"),
           ("two small fish", "deux petits poissons"), ("the blue sky", "le ciel bleu"),
           ("an extra box", "une boîte en plus"), ("the French café", "le café français"),
           ("a green bicycle", "un vélo vert"), ("the yellow umbrella", "le parapluie jaune"),
           ("three heavy stones", "trois pierres lourdes"), ("the quiet garden", "le jardin tranquille"),
           ("a strange letter", "une lettre étrange"), ("the warm bread", "le pain chaud")]
TIMES = [("today", "aujourd'hui"), ("at 10 o'clock", "à 10 heures"), ("in 1999", "en 1999"),
         ("every morning", "chaque matin"), ("before dinner", "avant le dîner"), ("", "")]

UNICODE_CASES = [
    "猫が好き 我爱你",
    "👩‍👩‍👧 🇫🇷",
    "e\u0301",
    "שלום עולם",
    "  two  spaces ",
    "tab\tnew\nline",
    "",
    " ",
    "   ",
    "\u2581",  # sentencepiece's own space symbol, as literal text
    " \u2581 x\u2581\u2581y \u2581",
    "Ａ ﬁ ½ ℌ",  # NFKC would change each of these
    "\r\n\x00\x1f\x7f",
    "\ue000\U0010fffd",  # private-use characters: the wrapper's stand-ins for "▁"
]


def make_corpus(n_lines: int = 300, seed: int = 0) -> list[str]:
    """English/French sentence pairs from a tiny grammar, one sentence per line."""
    rng = random.Random(seed)
    lines = []
    for _ in range(n_lines // 2):
        parts = [rng.choice(options) for options in (SUBJECTS, VERBS, OBJECTS, TIMES)]
        english = " ".join(p[0] for p in parts if p[0]).capitalize() + "."
        french = " ".join(p[1] for p in parts if p[1]).capitalize() + "."
        lines += [english, french]
    return lines


CORPUS = make_corpus()


@pytest.fixture(scope="module")
def tok(tmp_path_factory) -> Tokenizer:
    path = tmp_path_factory.mktemp("tok") / "spm.model"
    return Tokenizer.train(CORPUS, path, vocab_size=400)


@pytest.fixture(scope="module")
def model_path(tok, tmp_path_factory):
    path = tmp_path_factory.mktemp("saved") / "spm.model"
    tok.save(path)
    return path


def is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# ----- round trip ---------------------------------------------------------------------


def test_round_trip_on_the_training_text(tok):
    for line in CORPUS:
        assert tok.decode(tok.encode(line)) == line


@pytest.mark.parametrize("text", UNICODE_CASES)
def test_round_trip_on_hard_unicode(tok, text):
    assert tok.decode(tok.encode(text)) == text
    assert tok.decode(tok.encode(text, add_bos=True, add_eos=True)) == text


@settings(max_examples=200, deadline=None)
@given(st.text().filter(is_utf8))
def test_round_trip_on_any_text(tok, text):
    assert tok.decode(tok.encode(text)) == text


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from(" \t\n\u2581\u3000ae猫\u0301\ue000"), max_size=12))
def test_round_trip_on_whitespace_heavy_text(tok, text):
    # Spaces, "▁" and the stand-in's neighbours are where an exact round trip can slip.
    assert tok.decode(tok.encode(text)) == text


def test_literal_meta_symbol_is_kept_apart_from_spaces(tok):
    assert tok.decode(tok.encode("a\u2581b")) == "a\u2581b"
    assert tok.pieces("a\u2581b")[-4:-1] == ["<0xE2>", "<0x96>", "<0x81>"]


def test_lone_surrogate_is_refused_with_a_sentence(tok):
    with pytest.raises(ValueError, match="lone surrogate"):
        tok.encode("ab\ud800c")


# ----- specials -----------------------------------------------------------------------


def test_specials_are_fixed(tok):
    assert (tok.pad_id, tok.unk_id, tok.bos_id, tok.eos_id) == (0, 1, 2, 3)
    assert [tok.id_to_piece(i) for i in range(4)] == ["<pad>", "<unk>", "<s>", "</s>"]
    assert [tok.piece_to_id(p) for p in ["<pad>", "<unk>", "<s>", "</s>"]] == [0, 1, 2, 3]
    assert [tok.is_special(i) for i in range(6)] == [True] * 4 + [False] * 2
    assert tok.vocab_size == 400


def test_bos_eos_are_added_and_decode_drops_specials(tok):
    plain = tok.encode("the cat")
    framed = tok.encode("the cat", add_bos=True, add_eos=True)
    assert framed == [2] + plain + [3]
    assert tok.decode([0, 2] + plain + [3, 0, 0]) == "the cat"


def test_out_of_range_id_is_refused(tok):
    with pytest.raises(IndexError, match="outside the vocabulary"):
        tok.decode([5, tok.vocab_size])


# ----- pieces and words ---------------------------------------------------------------


def test_pieces_and_display_pieces(tok):
    ids = tok.encode("the 猫")
    pieces = tok.pieces("the 猫")
    assert pieces == [tok.id_to_piece(i) for i in ids]
    assert pieces[-3:] == ["<0xE7>", "<0x8C>", "<0xAB>"]
    labels = tok.display_pieces(ids)
    assert len(labels) == len(ids)
    assert labels[-3:] == ["<E7>", "<8C>", "<AB>"]
    assert tok.display_pieces([2, 3]) == ["<s>", "</s>"]
    assert labels[0].startswith("\u2581")  # the app decides how to show "▁"


def test_split_digits(tok):
    # split_digits: "1999" from the corpus is still one piece per digit.
    digits = [p.lstrip("\u2581") for p in tok.pieces("1999")]
    assert [d for d in digits if d] == ["1", "9", "9", "9"]


def test_word_ids_of_a_known_piece_sequence(tok):
    pieces = ["<s>", "\u2581", "t", "h", "e", "\u2581", "c", "a", "t", "<0x09>", "x",
              "\u2581", "<0xE7>", "<0x8C>", "<0xAB>", "\u2581", "</s>", "<pad>"]
    ids = [tok.piece_to_id(p) for p in pieces]
    assert tok.unk_id not in ids[1:]
    assert tok.decode(ids) == "the cat\tx 猫 "
    assert tok.word_ids(ids) == [-1, -1, 0, 0, 0, -1, 1, 1, 1, -1, 2, -1, 3, 3, 3, -1, -1, -1]


def test_word_ids_of_an_encoded_sentence(tok):
    sentence = "The cat eats  a red apple, 猫 too."
    ids = tok.encode(sentence, add_bos=True, add_eos=True)
    words = sentence.split()
    word_ids = tok.word_ids(ids)
    assert word_ids[0] == word_ids[-1] == -1
    for w, word in enumerate(words):
        members = [i for i, wid in zip(ids, word_ids) if wid == w]
        assert tok.decode(members).strip() == word


@settings(max_examples=100, deadline=None)
@given(st.text().filter(is_utf8))
def test_word_ids_count_the_words_of_split(tok, text):
    word_ids = [w for w in tok.word_ids(tok.encode(text)) if w >= 0]
    assert word_ids == sorted(word_ids)
    assert len(set(word_ids)) == len(text.split())


# ----- files and errors ---------------------------------------------------------------


def test_load_and_bytes_give_the_same_tokenizer(tok, model_path):
    loaded = Tokenizer.load(model_path)
    assert loaded.to_bytes() == tok.to_bytes() == model_path.read_bytes()
    assert Tokenizer.from_bytes(tok.to_bytes()).encode("le chat") == tok.encode("le chat")


def test_missing_file_is_named(tmp_path):
    missing = tmp_path / "nope.model"
    with pytest.raises(ValueError, match=r"No tokenizer model file at .*nope\.model"):
        Tokenizer.load(missing)


def test_random_bytes_are_refused(tmp_path):
    path = tmp_path / "random.model"
    path.write_bytes(random.Random(1).randbytes(2000))
    with pytest.raises(ValueError, match=r"random\.model is not a sentencepiece model"):
        Tokenizer.load(path)


@pytest.mark.parametrize("fraction", [0.0, 0.1, 0.5, 0.99])
def test_truncated_file_is_refused(model_path, tmp_path, fraction):
    data = model_path.read_bytes()
    path = tmp_path / "cut.model"
    path.write_bytes(data[: int(len(data) * fraction)])
    with pytest.raises(ValueError, match=r"cut\.model is (empty|not a sentencepiece model)"):
        Tokenizer.load(path)


def train_foreign(**options) -> bytes:
    """A model trained by sentencepiece directly, with options this wrapper would not use."""
    buffer = io.BytesIO()
    options = dict(vocab_size=400, byte_fallback=True, hard_vocab_limit=False, num_threads=1) | options
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(CORPUS), model_writer=buffer, minloglevel=2, **options)
    return buffer.getvalue()


def test_foreign_models_are_refused():
    # Default ids put <unk> at 0 and have no <pad>.
    with pytest.raises(ValueError, match="has '<unk>' at id 0, where '<pad>' must be"):
        Tokenizer.from_bytes(train_foreign())
    # Right ids, but the default NFKC normalization and whitespace trimming lose text.
    fixed_ids = dict(pad_id=0, unk_id=1, bos_id=2, eos_id=3)
    with pytest.raises(ValueError, match="does not give text back exactly"):
        Tokenizer.from_bytes(train_foreign(**fixed_ids))
    with pytest.raises(ValueError, match="lacks byte-fallback pieces"):
        Tokenizer.from_bytes(train_foreign(**fixed_ids, byte_fallback=False))


def test_vocab_too_small_is_refused(tmp_path):
    with pytest.raises(ValueError, match=f"at least {MIN_VOCAB_SIZE}"):
        Tokenizer.train(CORPUS, tmp_path / "a.model", vocab_size=100)
    # Above the fixed minimum, but short of one piece per distinct character in the corpus.
    with pytest.raises(ValueError, match="too small for these texts"):
        Tokenizer.train(CORPUS, tmp_path / "b.model", vocab_size=MIN_VOCAB_SIZE + 2)


def test_bad_training_input_is_refused(tmp_path):
    with pytest.raises(ValueError, match="empty"):
        Tokenizer.train([], tmp_path / "a.model", vocab_size=300)
    with pytest.raises(ValueError, match="training text 1 has a lone surrogate"):
        Tokenizer.train(["ok", "bad\udfff"], tmp_path / "b.model", vocab_size=300)
    with pytest.raises(ValueError, match="model_type"):
        Tokenizer.train(CORPUS, tmp_path / "c.model", vocab_size=300, model_type="wordpiece")


def test_same_input_trains_the_same_model(tmp_path):
    first = Tokenizer.train(CORPUS[:100], tmp_path / "a.model", vocab_size=320)
    second = Tokenizer.train(CORPUS[:100], tmp_path / "b.model", vocab_size=320)
    assert first.to_bytes() == second.to_bytes()


def test_bpe_trains_and_round_trips(tmp_path):
    tok = Tokenizer.train(CORPUS[:100], tmp_path / "bpe.model", vocab_size=320, model_type="bpe")
    for text in UNICODE_CASES + CORPUS[:20]:
        assert tok.decode(tok.encode(text)) == text


def test_small_corpus_gives_a_smaller_vocabulary(tmp_path):
    tok = Tokenizer.train(["a b a b"], tmp_path / "tiny.model", vocab_size=1000)
    assert MIN_VOCAB_SIZE <= tok.vocab_size < 1000
