"""What every tokenizer kind offers the rest of the code (`TokenizerLike`), and the special-token roles the
imported kinds share (`SpecialIds`)."""
from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable


@runtime_checkable
class TokenizerLike(Protocol):
    """Text <-> ids as the models, the decoding code and the pages use it, whatever the kind.

    How a tokenizer is made (trained, loaded from its files) differs by kind and is no part of it, nor is
    saving: only our own sentencepiece models are written into a checkpoint.
    """

    frames_input: bool  # True: the model reads bos … eos around every text (BERT's [CLS] … [SEP]); see `frame`

    @property
    def vocab_size(self) -> int:
        """Number of ids, specials included."""

    @property
    def pad_id(self) -> int:
        """Id of the padding token."""

    @property
    def unk_id(self) -> int:
        """Id of the unknown token."""

    @property
    def bos_id(self) -> int:
        """Id of the start of a sequence (BERT's [CLS]; a decoder's first token)."""

    @property
    def eos_id(self) -> int:
        """Id of the end of a sequence (BERT's [SEP])."""

    def is_special(self, i: int) -> bool:
        """Whether id `i` is a special token (at least pad, unk, bos and eos)."""

    def id_to_piece(self, i: int) -> str:
        """The piece of id `i` as the vocabulary spells it; an IndexError outside it."""

    def piece_to_id(self, piece: str) -> int:
        """The id of `piece`, or `unk_id` if the vocabulary lacks it."""

    def encode(self, text: str, add_bos: bool = False, add_eos: bool = False) -> list[int]:
        """Token ids of `text`, with bos and eos only if asked for; a ValueError if `text` is no valid str."""

    def frame(self, ids: Sequence[int]) -> list[int]:
        """The ids as the model reads a text (with the specials its kind puts around it)."""

    def decode(self, ids: Sequence[int]) -> str:
        """The text of `ids`, pad, bos and eos dropped."""

    def decode_visible(self, ids: Sequence[int]) -> str:
        """`decode` for a reader: a byte that is no valid UTF-8 shows as its label `<C3>`, never as U+FFFD."""

    def pieces(self, text: str) -> list[str]:
        """The pieces of `text` as the vocabulary spells them."""

    def display_pieces(self, ids: Sequence[int]) -> list[str]:
        """One readable label per id (a byte piece as `<E4>`)."""

    def word_ids(self, ids: Sequence[int]) -> list[int]:
        """For each id, the index of its word in `decode(ids).split()`, or -1 (specials, whitespace)."""


class SpecialIds:
    """The four roles' ids (`_ids`: pad, unk, bos, eos) and the set of special ids (`_special`) of an imported
    tokenizer (HubTokenizer, MarianTokenizer): ids found in the tokenizer's own files, never fixed numbers."""

    pad_id = property(lambda self: self._ids["pad"])
    unk_id = property(lambda self: self._ids["unk"])
    bos_id = property(lambda self: self._ids["bos"])
    eos_id = property(lambda self: self._ids["eos"])

    def is_special(self, i: int) -> bool:
        return int(i) in self._special
