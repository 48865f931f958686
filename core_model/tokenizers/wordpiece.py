"""BERT's kind: WordPiece from a Hugging Face `tokenizer.json`."""
from __future__ import annotations

from typing import Sequence

from .hub import HubTokenizer, rust_call


class WordPieceTokenizer(HubTokenizer):
    """An imported BERT tokenizer (a Hugging Face `tokenizer.json`) behind the same interface.

    Unlike our sentencepiece models (sentencepiece.py) it normalizes (lowercases, cleans control characters),
    so its round trip is not exact, and its model reads every input framed as [CLS] … [SEP]:
    `frames_input` tells the caller to add them (bos is [CLS], eos is [SEP]).
    """

    frames_input = True

    def decode_visible(self, ids: Sequence[int]) -> str:
        """`decode`: WordPiece has no byte pieces, so there is no stray byte to show."""
        return self.decode(ids)

    def display_pieces(self, ids: Sequence[int]) -> list[str]:
        """WordPiece spells a word's continuation `##ing`; the pieces are shown as they are."""
        return [self.id_to_piece(i) for i in ids]

    def word_ids(self, ids: Sequence[int]) -> list[int]:
        """For each id, the index of its word in `decode(ids).split()`, or -1 for specials."""
        # Re-read the decoded text with offsets and give each token the whitespace word its
        # first character falls in; specials are left out of the text, so they get -1.
        body = [i for i in ids if not self.is_special(i) or i == self.unk_id]
        text = self.decode(body)
        encoding = rust_call(self._tk.encode, text, add_special_tokens=False)
        if encoding.ids != [int(i) for i in body]:  # the text does not read back the same
            return [-1] * len(ids)
        char_words, word, in_word = [], -1, False  # str.split()'s words, by character
        for char in text:
            if not char.isspace() and not in_word:
                word += 1
            in_word = not char.isspace()
            char_words.append(word if in_word else -1)
        found = iter(char_words[start] if start < len(char_words) else -1 for start, _ in encoding.offsets)
        return [next(found) if not self.is_special(i) or i == self.unk_id else -1 for i in ids]

