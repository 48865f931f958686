"""Marian's kind: a sentencepiece unigram model cuts the text into pieces and vocab.json numbers them, as
transformers' MarianTokenizer reads source.spm, target.spm and vocab.json."""
from __future__ import annotations

import re
from typing import Sequence

import sentencepiece as spm

from ..messages import CodedError
from .base import SpecialIds
from .text import BYTE_PIECE, META, checked_text, chunk_words, visible


def _language_code(text: str) -> int:
    """How many characters of `text` are a leading target-language code such as >>fra<< (0 if none), found as
    transformers' MarianTokenizer finds it: `text` starts with >> and has a << after."""
    end = text.find("<<", 2) if text.startswith(">>") else -1
    return end + 2 if end >= 0 else 0


def processor(model: bytes, name: str) -> spm.SentencePieceProcessor:
    """A sentencepiece model from its bytes (the file `name`); a ValueError names the file if it is none."""
    if not model:
        raise CodedError(f"The tokenizer model file {name} is empty.", "tokenizer_empty", {"file": name})
    try:
        return spm.SentencePieceProcessor(model_proto=bytes(model))
    except (RuntimeError, OSError):
        raise CodedError(f"The tokenizer model file {name} is not a sentencepiece model: it is corrupt or "
                         "truncated.", "tokenizer_corrupt", {"file": name}) from None


class MarianTokenizer(SpecialIds):
    """An imported Marian tokenizer, as transformers' MarianTokenizer reads it: a sentencepiece model
    (source.spm for the encoder's text, target.spm for the decoder's) cuts the text into pieces, and
    vocab.json numbers them.

    The ids are vocab.json's, not sentencepiece's: a piece vocab.json lacks is <unk>. Marian's sentencepiece
    models normalize (NFKC) and drop extra spaces, so the round trip is not exact; the Moses punctuation
    normalizer transformers runs first when sacremoses is installed is not run here. A text may start with a
    target-language token such as >>fra<<, and </s>, <unk> and <pad> written in the text are those tokens, as
    in transformers. Marian's encoder reads the text and then </s>, with no <s> (`frame`): `frames_input`, which
    promises bos … eos, is False.
    """

    frames_input = False
    language_codes = True  # a leading >>fra<< is one token (a sentencepiece model read alone has none: spm_model.py)

    def __init__(self, processor: spm.SentencePieceProcessor, vocab: dict[str, int], specials: dict[str, int],
                 ends_with_eos: bool):
        """`vocab` maps every piece to its id 0 … n-1; `specials` maps pad, unk, bos, eos to ids of `vocab`;
        `ends_with_eos`: the model reads </s> after the text (the encoder's side)."""
        self._sp, self._vocab, self._ids, self._ends_with_eos = processor, vocab, dict(specials), ends_with_eos
        self._pieces = {i: piece for piece, i in vocab.items()}
        self._special = set(self._ids.values())
        self._special_pieces = {self._pieces[i]: i for i in self._special}
        longest_first = sorted(self._special_pieces, key=len, reverse=True)
        self._split = re.compile("(" + "|".join(map(re.escape, longest_first)) + ")")

    @classmethod
    def load(cls, model: bytes, vocab: dict[str, int], specials: dict[str, int], ends_with_eos: bool,
             name: str = "source.spm") -> "MarianTokenizer":
        """A tokenizer from a sentencepiece model's bytes (the file `name`) and vocab.json's mapping, which the
        caller has read and checked."""
        return cls(processor(model, name), vocab, specials, ends_with_eos)

    @property
    def vocab_size(self) -> int:
        return len(self._vocab)

    def id_to_piece(self, i: int) -> str:
        piece = self._pieces.get(int(i))
        if piece is None:
            raise IndexError(f"Token id {i} is outside the vocabulary (0 to {self.vocab_size - 1}).")
        return piece

    def piece_to_id(self, piece: str) -> int:
        return self._vocab.get(piece, self.unk_id)

    def encode(self, text: str, add_bos: bool = False, add_eos: bool = False) -> list[int]:
        """Token ids of `text` (no bos or eos unless asked for; see `frame`)."""
        ids = []
        for n, part in enumerate(self._split.split(checked_text(text, "The text"))):
            if part in self._special_pieces:
                ids.append(self._special_pieces[part])
                continue
            code = _language_code(part) if self.language_codes else 0  # off each stretch between specials
            if code:
                ids.append(self.piece_to_id(part[:code]))
                part = part[code:]
            ids += [self.piece_to_id(p) for p in self._cut(part, first=n == 0)]
        return [self.bos_id] * add_bos + ids + [self.eos_id] * add_eos

    def _cut(self, part: str, first: bool) -> list[str]:
        """The pieces of one stretch of text between specials (`first`: the text's first stretch)."""
        return self._sp.encode(part, out_type=str)

    def frame(self, ids: Sequence[int]) -> list[int]:
        """The ids as the model reads a text: the encoder's followed by </s>, the decoder's as they are."""
        return [*ids, self.eos_id] if self._ends_with_eos else list(ids)

    def pieces(self, text: str) -> list[str]:
        return [self.id_to_piece(i) for i in self.encode(text)]

    def _token_bytes(self, i: int) -> bytes:
        """The bytes token `i` stands for in the text: nothing for pad, bos and eos, ⁇ for unk (sentencepiece's
        mark, without the spaces it puts around it: an unknown letter stays inside its word)."""
        i = int(i)
        if i == self.unk_id:
            return "⁇".encode("utf-8")
        if i in (self.pad_id, self.bos_id, self.eos_id):
            return b""
        piece = self.id_to_piece(i)
        byte = BYTE_PIECE.fullmatch(piece)
        if byte and self._sp.is_byte(self._sp.piece_to_id(piece)):
            return bytes([int(byte[1], 16)])
        return piece.replace(META, " ").encode("utf-8")

    def decode(self, ids: Sequence[int]) -> str:
        """The text of `ids` without pad, bos and eos, outer spaces stripped (as transformers does); unk shows as
        ⁇, a byte run that is no UTF-8 as U+FFFD."""
        return b"".join(self._token_bytes(i) for i in ids).decode("utf-8", errors="replace").strip()

    def decode_visible(self, ids: Sequence[int]) -> str:
        """`decode` for a reader: a byte piece that forms no valid UTF-8 shows as its label `<C3>`."""
        data = b"".join(self._token_bytes(i) for i in ids)
        return visible(data.decode("utf-8", errors="surrogateescape"), keep_space=True).strip()

    def display_pieces(self, ids: Sequence[int]) -> list[str]:
        """The pieces as vocab.json spells them (`▁the`), a byte piece `<0xE4>` as `<E4>`."""
        labels = []
        for i in ids:
            piece = self.id_to_piece(i)
            byte = BYTE_PIECE.fullmatch(piece)
            labels.append(f"<{byte[1]}>" if byte and self._sp.is_byte(self._sp.piece_to_id(piece)) else piece)
        return labels

    def word_ids(self, ids: Sequence[int]) -> list[int]:
        """For each id, the index of its word in `decode(ids).split()`, or -1 (pad, bos, eos, whitespace); an
        unknown piece belongs to the word it is in, so the caller can name the words the vocabulary lacks."""
        return chunk_words([self._token_bytes(i) for i in ids])

    def __repr__(self) -> str:
        return f"MarianTokenizer(vocab_size={self.vocab_size})"
