"""A sentencepiece model file read alone, as a hub folder ships it without tokenizer.json (T5's spiece.model,
Llama 2's tokenizer.model, a Marian-style source.spm): the `sentencepiece` library cuts the text and numbers the
pieces with the model's own ids, as transformers' tokenizer classes read these files. What it shares with Marian's
kind (pieces, bytes, specials written in the text, words) is MarianTokenizer's (marian.py)."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import sentencepiece as spm

from ..messages import CodedError
from .marian import MarianTokenizer, processor


class SentencePieceModelTokenizer(MarianTokenizer):
    """An imported sentencepiece model numbered by its own ids (no vocab.json), behind `TokenizerLike`.

    Each role (pad, unk, bos, eos) is a piece of the model, named by its text or id (the folder's
    tokenizer_config.json or config.json names them). The model reads the text as it is, … </s> where
    `ends_with_eos` (T5's encoder), [bos] … [eos] where `frames_input`. A text starting with >>fra<< is no
    language code here: only Marian's vocabularies have them.
    """

    language_codes = False

    def __init__(self, model: spm.SentencePieceProcessor, specials: dict[str, int], ends_with_eos: bool = False,
                 frames_input: bool = False, bare: spm.SentencePieceProcessor | None = None):
        """`bare`: the same model without its dummy prefix (the ▁ it puts before a text), for `_cut`."""
        vocab = {model.id_to_piece(i): i for i in range(model.get_piece_size())}
        super().__init__(model, vocab, specials, ends_with_eos)
        self.frames_input = frames_input
        self._bare = bare

    @classmethod
    def read(cls, path: str | Path, roles: dict[str, str | int], ends_with_eos: bool = False,
             frames_input: bool = False) -> "SentencePieceModelTokenizer":
        """The model file at `path`; `roles` maps pad, unk, bos and eos to a piece's text or id. A ValueError names
        the file if it is no sentencepiece model, or a role's piece if the model lacks it."""
        path = Path(path)
        data = path.read_bytes()
        model = processor(data, path.name)
        # The same model without the dummy prefix: field 3 (normalizer_spec) again, holding only its field 3
        # (add_dummy_prefix) false; protobuf merges a repeated message field into the first.
        bare = processor(data + b"\x1a\x02\x18\x00", path.name) if model.encode(" ") else None
        ids = {}
        for role, token in roles.items():
            ident = token if isinstance(token, int) else model.piece_to_id(token)
            if not 0 <= ident < model.get_piece_size() or (
                    not isinstance(token, int) and model.id_to_piece(ident) != token):
                raise CodedError(f"The tokenizer has no {token} token for {role}.", "tokenizer_no_token",
                                 {"token": str(token), "role": role})
            ids[role] = ident
        return cls(model, ids, ends_with_eos, frames_input, bare)

    def _cut(self, part: str, first: bool) -> list[str]:
        """The pieces of one stretch of text, as transformers' conversion of the model cuts it (tokenizers'
        Metaspace, not sentencepiece itself): where the model keeps spaces (Llama 2's), the ▁ before the text only
        before the first stretch, and only if it starts with no space of its own."""
        if self._bare is None or (first and not part.startswith(" ")):
            return self._sp.encode(part, out_type=str)
        return self._bare.encode(part, out_type=str)

    def frame(self, ids: Sequence[int]) -> list[int]:
        """The ids as the model reads a text: [bos] … [eos] if `frames_input`, … [eos] if `ends_with_eos`."""
        return [self.bos_id] * self.frames_input + list(ids) + [self.eos_id] * (self.frames_input or
                                                                              self._ends_with_eos)

    def __repr__(self) -> str:
        return f"SentencePieceModelTokenizer(vocab_size={self.vocab_size})"
