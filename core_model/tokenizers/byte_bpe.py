"""GPT-2's and BART's kind: byte-level BPE from a Hugging Face `tokenizer.json`, every piece spelling bytes."""
from __future__ import annotations

from typing import Sequence

from .hub import HubTokenizer
from .text import chunk_words, visible


def _byte_chars() -> dict[str, int]:
    """GPT-2's byte-level alphabet as character -> byte: a printable byte is its own character, every
    other byte (space, control bytes, …) is moved to U+0100 and up, in byte order (GPT-2's bytes_to_unicode)."""
    printable = {*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)}
    chars, moved = {}, 0
    for byte in range(256):
        if byte in printable:
            chars[chr(byte)] = byte
        else:
            chars[chr(256 + moved)] = byte
            moved += 1
    return chars


BYTE_CHARS = _byte_chars()


class ByteLevelBPETokenizer(HubTokenizer):
    """An imported GPT-2 tokenizer: byte-level BPE from a Hugging Face `tokenizer.json`.

    Every piece spells bytes, one character per byte (GPT-2 writes a space as "Ġ", a newline as "Ċ"),
    so any text encodes without an unknown token and decodes back exactly. GPT-2 has one special token,
    <|endoftext|>, which the importer (gpt2.py) gives every role: pad, unk, bos and eos. The model reads
    the text as it is; a decoder adds its bos itself, so `frames_input` is False. BART's tokenizer is the
    same kind, with <s>, <pad>, </s> and <unk>; its encoder reads <s> … </s> (importers/bart.py sets `frames_input`).
    """

    KIND, KIND_CODE = "byte-level BPE", "tokenizer_not_byte_level"  # HubTokenizer.load refuses a file of another kind

    def _problem(self) -> str | None:
        """Why the pieces are not GPT-2's byte-level spelling, or None."""
        from tokenizers import decoders, models

        if not isinstance(self._tk.model, models.BPE):
            return f"its model is {type(self._tk.model).__name__}, not BPE"
        if not isinstance(self._tk.decoder, decoders.ByteLevel):
            return f"its decoder is {type(self._tk.decoder).__name__}, not ByteLevel"
        outside = set("".join(self._tk.get_vocab(with_added_tokens=False))) - set(BYTE_CHARS)
        if outside:
            return f"its vocabulary has pieces spelled with {sorted(outside)[0]!r}, which stands for no byte"
        return None

    def _text_bytes(self, i: int) -> bytes:
        """The bytes token `i` spells: an added token's own text, any other piece one byte per character."""
        i = int(i)
        if i in self._added:
            return self._added[i].content.encode("utf-8")
        return bytes(BYTE_CHARS[c] for c in self.id_to_piece(i))

    def _token_bytes(self, i: int) -> bytes:
        """The bytes token `i` stands for in the text (nothing for a special)."""
        return b"" if self.is_special(i) else self._text_bytes(i)

    def decode_visible(self, ids: Sequence[int]) -> str:
        """`decode` for a reader: a byte that forms no valid UTF-8 shows as its label `<C3>` (as in
        `display_pieces`), never as U+FFFD. Specials other than pad, bos and eos stay visible, as in `decode`."""
        dropped = (self.pad_id, self.bos_id, self.eos_id)
        data = b"".join(self._text_bytes(i) for i in ids if int(i) not in dropped)
        return visible(data.decode("utf-8", errors="surrogateescape"), keep_space=True)

    def display_pieces(self, ids: Sequence[int]) -> list[str]:
        """One readable label per id: the piece's text with a space shown as ▁ (the word-start mark of our
        sentencepiece models, where GPT-2 writes Ġ), a byte that is no whole character or a control
        character as `<E4>`, `<0A>`; a special token as it is spelled."""
        labels = []
        for i in ids:
            if int(i) in self._added:
                labels.append(self.id_to_piece(i))
            else:
                labels.append(visible(self._text_bytes(i).decode("utf-8", errors="surrogateescape"), False))
        return labels

    def word_ids(self, ids: Sequence[int]) -> list[int]:
        """For each id, the index of its word in `decode(ids).split()`, or -1 (specials, whitespace)."""
        return chunk_words([self._token_bytes(i) for i in ids])

