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


def numbered(model: spm.SentencePieceProcessor, added: tuple[str, ...]) -> dict[str, int]:
    """Every token's id: the model's pieces by their own ids, then the `added` tokens."""
    vocab = {model.id_to_piece(i): i for i in range(model.get_piece_size())}
    vocab.update({text: model.get_piece_size() + n for n, text in enumerate(added)})
    return vocab


class SentencePieceModelTokenizer(MarianTokenizer):
    """An imported sentencepiece model numbered by its own ids (no vocab.json), behind `TokenizerLike`.

    Each role (pad, unk, bos, eos) is a piece of the model, named by its text or id (the folder's
    tokenizer_config.json or config.json names them). The model reads the text as it is, … </s> where
    `ends_with_eos` (T5's encoder), [bos] … [eos] where `frames_input`. A text starting with >>fra<< is no
    language code here: only Marian's vocabularies have them.
    """

    language_codes = False

    def __init__(self, model: spm.SentencePieceProcessor, specials: dict[str, int], ends_with_eos: bool = False,
                 frames_input: bool = False, bare: spm.SentencePieceProcessor | None = None,
                 added: tuple[str, ...] = ()):
        """`bare`: the same model without its dummy prefix (the ▁ it puts before a text), for `_cut`; `added`: the
        special tokens numbered after the model's pieces, in their ids' order."""
        vocab = numbered(model, added)
        super().__init__(model, vocab, specials, ends_with_eos, tuple(vocab[text] for text in added))
        self.frames_input = frames_input
        self._bare = bare

    @classmethod
    def read(cls, path: str | Path, roles: dict[str, str | int], ends_with_eos: bool = False,
             frames_input: bool = False, added: dict[int, str] | None = None,
             extra_ids: int = 0) -> "SentencePieceModelTokenizer":
        """The model file at `path`; `roles` maps pad, unk, bos and eos to a token's text or id; `added`: the tokens
        tokenizer_config.json adds, by id (those past the model's pieces must follow them without a gap), or else
        T5's `extra_ids` (<extra_id_0> last, as transformers numbers them). A ValueError names the file if it is no
        sentencepiece model, or a role's token if there is none."""
        path = Path(path)
        data = path.read_bytes()
        model = processor(data, path.name)
        # The same model without the dummy prefix: field 3 (normalizer_spec) again, holding only its field 3
        # (add_dummy_prefix) false; protobuf merges a repeated message field into the first.
        bare = processor(data + b"\x1a\x02\x18\x00", path.name) if model.encode(" ") else None
        size = model.get_piece_size()
        after = sorted((i, text) for i, text in (added or {}).items() if i >= size)
        after = after or [(size + extra_ids - 1 - k, f"<extra_id_{k}>") for k in reversed(range(extra_ids))]
        if [i for i, _ in after] != list(range(size, size + len(after))):
            raise CodedError(f"The tokens tokenizer_config.json adds leave a gap after the {size} pieces of "
                             f"{path.name}.", "tokenizer_added_gap", {"file": path.name, "n": size})
        added_texts = tuple(text for _, text in after)
        vocab, ids = numbered(model, added_texts), {}
        for role, token in roles.items():
            ids[role] = token if isinstance(token, int) else vocab.get(token, -1)
            if not 0 <= ids[role] < len(vocab):
                raise CodedError(f"The tokenizer has no {token} token for {role}.", "tokenizer_no_token",
                                 {"token": str(token), "role": role})
        return cls(model, ids, ends_with_eos, frames_input, bare, added_texts)

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
