"""Tokenizers read from a Hugging Face `tokenizer.json` by the `tokenizers` library: what the WordPiece and
byte-level BPE kinds share (loading, the special roles, encode and decode), and `rust_call`, the guard around
every call into the library."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from ..messages import CodedError
from .base import SpecialIds
from .text import checked_text


def rust_call(call, *args, **kwargs):
    """Call into the tokenizers library, whose Rust panics (a regex that backtracks past its limit, say)
    reach Python as PanicException, a BaseException that `except Exception` lets through: ValueError instead."""
    try:
        return call(*args, **kwargs)
    except Exception as err:
        raise CodedError(f"The tokenizer failed: {str(err)[:120]}", "tokenizer_failed") from None
    except BaseException as err:
        if type(err).__name__ != "PanicException":  # KeyboardInterrupt, SystemExit: not the tokenizer's
            raise
        raise CodedError(f"The tokenizer failed: {str(err)[:120]}", "tokenizer_failed") from None


class HubTokenizer(SpecialIds):
    """A Hugging Face `tokenizer.json`, read by the tokenizers package, behind `TokenizerLike` (base.py).

    The file's own padding and truncation are switched off; the caller cuts to the model's length.
    The subclasses say how a piece is shown and which word it belongs to.
    """

    frames_input = False

    def __init__(self, tokenizer, specials: dict[str, str | int], frames_input: bool | None = None):
        """Wrap a `tokenizers.Tokenizer`; `specials` maps pad, unk, bos, eos to its tokens, each by its text
        or by the id of one of the file's special tokens (a model's config names them by id). `frames_input`
        overrides the class's (BART's encoder reads <s> … </s>, its decoder the text as it is)."""
        if frames_input is not None:
            self.frames_input = frames_input
        self._tk = tokenizer
        self._tk.no_padding()
        self._tk.no_truncation()
        self._added = {int(i): t for i, t in tokenizer.get_added_tokens_decoder().items()}
        own = {i for i, t in self._added.items() if t.special}  # the file's special tokens
        self._ids = {}
        for role, token in specials.items():
            if isinstance(token, int):
                if token not in own:
                    raise CodedError(f"The tokenizer has no special token at id {token} for {role}.",
                                     "tokenizer_no_special", {"id": token, "role": role})
                self._ids[role] = token
                continue
            ident = tokenizer.token_to_id(token)
            if ident is None:
                raise CodedError(f"The tokenizer has no {token} token for {role}.", "tokenizer_no_token",
                                 {"token": token, "role": role})
            self._ids[role] = ident
        self._special = own | set(self._ids.values())

    @classmethod
    def load(cls, path: str | Path, specials: dict[str, str | int], frames_input: bool | None = None):
        """Load a `tokenizer.json` (`specials` and `frames_input` as in __init__); a missing or unusable file
        raises ValueError naming it."""
        from tokenizers import Tokenizer as HFTokenizer

        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise CodedError(f"No tokenizer file at {path}.", "tokenizer_missing", {"path": str(path)}) from None
        except UnicodeDecodeError:
            raise CodedError(f"The tokenizer file {Path(path).name} is not UTF-8 text.", "tokenizer_not_utf8",
                             {"file": Path(path).name}) from None
        try:
            tokenizer = rust_call(HFTokenizer.from_str, text)
        except ValueError as err:
            raise CodedError(f"The tokenizer file {Path(path).name} is not a Hugging Face tokenizer: {err}",
                             "tokenizer_not_hf", {"file": Path(path).name}) from None
        loaded = cls(tokenizer, specials, frames_input)
        problem = loaded._problem()
        if problem:  # a file of another kind than the class reads: named with why
            name = Path(path).name
            raise CodedError(f"The tokenizer file {name} is not a {cls.KIND} tokenizer: {problem}.", cls.KIND_CODE,
                             {"file": name})
        return loaded

    KIND, KIND_CODE = "Hugging Face", "tokenizer_not_hf"  # what a subclass reads, and the code of a file it cannot

    def _problem(self) -> str | None:
        """Why the file is not of the kind this class reads (KIND), or None; any tokenizer.json here."""
        return None

    @property
    def vocab_size(self) -> int:
        return self._tk.get_vocab_size(with_added_tokens=True)

    def pad_vocabulary(self, n: int) -> None:
        """Give each id from vocab_size up to n a special token of its own, <unused_k>, that no text but its own
        spelling encodes to: an embedding rounded up past the vocabulary (OPT's 50,272 rows for 50,265 tokens) can
        then name every id the model may output."""
        from tokenizers import AddedToken

        first = self.vocab_size
        rust_call(self._tk.add_special_tokens, [AddedToken(f"<unused_{k}>", special=True) for k in range(n - first)])
        self._added = {int(i): t for i, t in self._tk.get_added_tokens_decoder().items()}
        self._special |= set(range(first, n))

    def id_to_piece(self, i: int) -> str:
        piece = self._tk.id_to_token(int(i))
        if piece is None:
            raise IndexError(f"Token id {i} is outside the vocabulary (0 to {self.vocab_size - 1}).")
        return piece

    def piece_to_id(self, piece: str) -> int:
        found = self._tk.token_to_id(piece)
        return self.unk_id if found is None else found

    def encode(self, text: str, add_bos: bool = False, add_eos: bool = False) -> list[int]:
        """Token ids of `text` (no bos or eos unless asked for)."""
        # encode_batch lets go of the interpreter lock while it works, encode holds it: a slow regular expression
        # then held every thread of the server (core_model/checkpoints/bounded.py)
        ids = rust_call(self._tk.encode_batch, [checked_text(text, "The text")], add_special_tokens=False)[0].ids
        return [self.bos_id] * add_bos + ids + [self.eos_id] * add_eos

    def frame(self, ids: Sequence[int]) -> list[int]:
        """The ids as the model reads a text: bos … eos around them if `frames_input` (BERT's [CLS] … [SEP],
        BART's <s> … </s>), else as they are."""
        return [self.bos_id, *ids, self.eos_id] if self.frames_input else list(ids)

    def decode(self, ids: Sequence[int]) -> str:
        """The text of `ids`, with pad, bos and eos dropped (any other special stays visible)."""
        kept = [int(i) for i in ids if int(i) not in (self.pad_id, self.bos_id, self.eos_id)]
        return rust_call(self._tk.decode, kept, skip_special_tokens=False)

    def pieces(self, text: str) -> list[str]:
        return [self.id_to_piece(i) for i in self.encode(text)]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(vocab_size={self.vocab_size})"

