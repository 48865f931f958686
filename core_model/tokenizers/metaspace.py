"""The sentencepiece-style kind: a Hugging Face `tokenizer.json` whose pieces mark a space with ▁ (a Metaspace
pre-tokenizer or normalizer, and its decoder), over a Unigram model (T5, ALBERT, mBART) or a BPE with byte fallback
(Llama 2, Gemma), read by the `tokenizers` library."""
from __future__ import annotations

import json
from typing import Sequence

from .hub import HubTokenizer
from .text import BYTE_PIECE, META, chunk_words, visible


def _spaced(part) -> bool:
    """Whether a tokenizer.json part (normalizer or pre-tokenizer, as JSON) writes ▁ for a space: a Metaspace
    pre-tokenizer (transformers' conversions), or a normalizer that prepends ▁ and replaces each space with it
    (Llama 2's and Gemma's files)."""
    return META in json.dumps(part, ensure_ascii=False)


class MetaspaceTokenizer(HubTokenizer):
    """An imported sentencepiece-style tokenizer: a `tokenizer.json` whose pieces spell a space as ▁.

    Its model is Unigram or BPE; a piece such as <0xC3> stands for one byte where the model falls back to bytes
    (Llama 2's, Gemma's), so no text needs <unk>. The pieces are shown as the other kinds show theirs: a space as ▁,
    a byte piece that is no whole character as its label <C3>, a special token as it is spelled. The model reads the
    text as it is (a decoder adds its bos itself); `frames_input` True (an encoder: T5, ALBERT) frames the ids as
    the file's own post-processor does (ALBERT's [CLS] … [SEP], T5's … </s>), see `frame`.
    """

    def __init__(self, tokenizer, specials: dict[str, str | int], frames_input: bool | None = None):
        super().__init__(tokenizer, specials, frames_input)
        spec = json.loads(tokenizer.to_str())
        self._byte_fallback = bool(spec["model"].get("byte_fallback"))
        self._spec = spec
        self._around = self._template() if self.frames_input else ([], [])

    KIND, KIND_CODE = "sentencepiece-style", "tokenizer_not_sentencepiece"  # HubTokenizer.load refuses a file of another kind

    def _problem(self) -> str | None:
        """Why the file is not sentencepiece-style (Unigram or BPE with ▁ for a space), or None."""
        kind = self._spec["model"].get("type")
        if kind not in ("Unigram", "BPE"):
            return f"its model is {kind}, not Unigram or BPE"
        if not any(_spaced(self._spec.get(part)) for part in ("normalizer", "pre_tokenizer")):
            return "it does not write a space as ▁"
        return None

    def _template(self) -> tuple[list[int], list[int]]:
        """The ids the file's post-processor puts before and after a text's ids (found on one word)."""
        bare = self._tk.encode("a", add_special_tokens=False).ids
        framed = self._tk.encode("a", add_special_tokens=True).ids
        for start in range(len(framed) - len(bare) + 1):
            if framed[start:start + len(bare)] == bare:
                return framed[:start], framed[start + len(bare):]
        return [], []

    def frame(self, ids: Sequence[int]) -> list[int]:
        """The ids as the model reads a text: framed as the file's post-processor frames them if `frames_input`
        (an encoder's), else as they are."""
        before, after = self._around
        return [*before, *ids, *after]

    def _text_bytes(self, i: int) -> bytes:
        """The bytes token `i` spells: ▁ a space, a byte piece its byte, an added token (<unk> too) its own text."""
        i = int(i)
        if i in self._added:
            return self._added[i].content.encode("utf-8")
        piece = self.id_to_piece(i)
        byte = BYTE_PIECE.fullmatch(piece) if self._byte_fallback else None
        return bytes([int(byte[1], 16)]) if byte else piece.replace(META, " ").encode("utf-8")

    def _token_bytes(self, i: int) -> bytes:
        """The bytes token `i` stands for in the text: nothing for a special other than unk."""
        return b"" if self.is_special(i) and int(i) != self.unk_id else self._text_bytes(i)

    def decode_visible(self, ids: Sequence[int]) -> str:
        """`decode` for a reader: a byte that forms no valid UTF-8 shows as its label `<C3>` (as in
        `display_pieces`), never as U+FFFD; the space sentencepiece puts before the first word is dropped."""
        dropped = (self.pad_id, self.bos_id, self.eos_id)
        data = b"".join(self._text_bytes(i) for i in ids if int(i) not in dropped)
        text = visible(data.decode("utf-8", errors="surrogateescape"), keep_space=True)
        return text[1:] if text.startswith(" ") else text

    def display_pieces(self, ids: Sequence[int]) -> list[str]:
        """One readable label per id: a space as ▁ (as every kind shows it), a byte piece that is no whole
        character, or a control character, as `<E4>`, `<0A>`; a special or added token as it is spelled."""
        labels = []
        for i in ids:
            if int(i) in self._added:
                labels.append(self.id_to_piece(i))
            else:
                labels.append(visible(self._text_bytes(i).decode("utf-8", errors="surrogateescape"), False))
        return labels

    def word_ids(self, ids: Sequence[int]) -> list[int]:
        """For each id, the index of its word in `decode(ids).split()`, or -1 (specials, whitespace); an unknown
        piece belongs to the word it is in."""
        return chunk_words([self._token_bytes(i) for i in ids])
