"""Tokenizer.decode_visible: what a reader is shown. A byte piece that forms no valid UTF-8 shows as its label
<C3> (as display_pieces has it), never as U+FFFD; everything else decodes exactly as `decode` does."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from core_model.tokenizers import Tokenizer, WordPieceTokenizer

TGT = Path(__file__).resolve().parents[2] / "assets" / "models" / "translate-en-fr" / "tgt.model"


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    return Tokenizer.load(TGT)


def byte(tok: Tokenizer, value: int) -> int:
    i = tok.piece_to_id(f"<0x{value:02X}>")
    assert tok.id_to_piece(i) == f"<0x{value:02X}>"
    return i


def test_a_stray_byte_piece_shows_as_its_label_not_a_broken_glyph(tok):
    ids = tok.encode("la") + [byte(tok, 0xC3)] + tok.encode("rouge")  # seed 6's `la� rouge`
    assert "\ufffd" in tok.decode(ids)  # evaluation's decode is unchanged
    shown = tok.decode_visible(ids)
    assert "<C3>" in shown and "\ufffd" not in shown
    assert shown == tok.decode(ids).replace("\ufffd", "<C3>")
    assert tok.display_pieces([byte(tok, 0xC3)]) == ["<C3>"]  # the same label the token chips show


def test_a_valid_run_of_byte_pieces_is_the_character(tok):
    e_acute = [byte(tok, 0xC3), byte(tok, 0xA9)]  # "é" in UTF-8
    assert tok.decode_visible(e_acute) == tok.decode(e_acute) == "é"
    assert tok.decode_visible(e_acute + [byte(tok, 0xC3)]) == "é<C3>"  # a complete character, then a stray byte
    assert tok.decode_visible([byte(tok, 0xE2), byte(tok, 0x96)]) == "<E2><96>"  # a character cut short


def test_specials_and_spaces_decode_as_decode_does(tok):
    for text in ("the red car", "  a  b ", "héllo ▁ wörld", "日本語"):
        ids = [tok.bos_id] + tok.encode(text) + [tok.eos_id]
        assert tok.decode_visible(ids) == tok.decode(ids) == text
    ids = [tok.bos_id, byte(tok, 0xFF)] + tok.encode("x") + [tok.eos_id]
    assert tok.decode_visible(ids) == tok.decode(ids).replace("\ufffd", "<FF>")


def test_no_mix_of_pieces_and_bytes_ever_shows_a_broken_glyph(tok):
    rng = random.Random(0)
    for _ in range(2000):
        ids = [byte(tok, rng.randrange(256)) if rng.random() < 0.6 else rng.randrange(4, tok.vocab_size)
               for _ in range(rng.randint(1, 10))]
        shown, plain = tok.decode_visible(ids), tok.decode(ids)
        assert "\ufffd" not in shown, ids
        if "\ufffd" not in plain:
            assert shown == plain, ids


def test_wordpiece_has_no_byte_pieces_so_decode_visible_is_decode():
    from core_model.checkpoints import hub_encoder
    from core_model.importers import bert

    if bert.minilm_path() is None:
        pytest.skip("all-MiniLM-L6-v2 is not installed")
    wp = WordPieceTokenizer.load(bert.minilm_path() / "tokenizer.json", hub_encoder.BERT_SPECIALS)
    ids = [wp.bos_id] + wp.encode("The café is open") + [wp.eos_id]
    assert wp.decode_visible(ids) == wp.decode(ids) == "the cafe is open"
