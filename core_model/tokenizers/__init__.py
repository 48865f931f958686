"""Text <-> token ids: a sentencepiece wrapper whose round trip is exact.

Every model this wrapper trains uses identity normalization, byte fallback, a dummy prefix,
kept whitespace, split digits, and the specials pad=0, unk=1, bos=2, eos=3, so that
`decode(encode(s)) == s` for any text and the ids agree with `ModelConfig`'s defaults.

Whitespace, as sentencepiece 0.2 does it with these options: a space becomes the meta symbol
"▁" (U+2581), none is dropped or collapsed, and one "▁" is prepended (the dummy prefix); the decoder
strips exactly that one leading space, so leading, trailing and repeated spaces come back
unchanged. Tabs, newlines and other characters are kept as they are (as byte pieces when they
have no piece of their own). The one input sentencepiece cannot return is a literal "▁" in the
text: it is read as a space and decodes to " ". The wrapper therefore encodes each literal "▁"
as its three UTF-8 byte pieces <0xE2><0x96><0x81>, which the decoder turns back into "▁", not
into a space. See `_encode_body`.
"""
from __future__ import annotations

import io
import itertools
import re
from pathlib import Path
from typing import Iterable, Sequence

import sentencepiece as spm

from ..messages import CodedError

PAD_ID, UNK_ID, BOS_ID, EOS_ID = 0, 1, 2, 3
SPECIAL_PIECES = ("<pad>", "<unk>", "<s>", "</s>")  # indexed by id
N_BYTE_PIECES = 256
# Specials and byte pieces come first; at least one more piece is needed to hold a character.
MIN_VOCAB_SIZE = len(SPECIAL_PIECES) + N_BYTE_PIECES + 1
MODEL_TYPES = ("unigram", "bpe")
META = "\u2581"  # "▁", sentencepiece's stand-in for a space

_BYTE_PIECE = re.compile(r"<0x([0-9A-F]{2})>")
# Private-use characters: candidates to stand in for a literal "▁" while sentencepiece encodes.
_STAND_INS = (range(0xE000, 0xF900), range(0xF0000, 0xFFFFE))
# A model that normalizes (NFKC turns "Ａ" into "A", "ﬁ" into "fi") or trims spaces changes this.
_PROBE = "  Ａ ﬁ\u2581x\t\n e\u0301  "


class Tokenizer:
    """A trained sentencepiece model with the fixed specials and an exact round trip."""

    frames_input = False  # the models read the text as it is (a decoder adds <s> itself)

    def __init__(self, processor: spm.SentencePieceProcessor):
        """Wrap a loaded processor; use `train`, `load` or `from_bytes` to get one checked."""
        self._sp = processor

    # ----- making one -------------------------------------------------------------------

    @classmethod
    def train(
        cls,
        texts: Iterable[str],
        path: str | Path,
        vocab_size: int,
        model_type: str = "unigram",
        character_coverage: float = 1.0,
        seed: int = 0,
    ) -> Tokenizer:
        """Train a model on `texts`, write its `.model` file to `path` and return it."""
        if model_type not in MODEL_TYPES:
            raise ValueError(f"model_type is {model_type!r}, but must be one of: {', '.join(MODEL_TYPES)}.")
        if vocab_size < MIN_VOCAB_SIZE:
            raise ValueError(
                f"vocab_size is {vocab_size}, but must be at least {MIN_VOCAB_SIZE}: the 4 specials "
                f"and the {N_BYTE_PIECES} byte-fallback pieces come first, and characters need room."
            )
        texts = [_checked_text(t, f"training text {i}") for i, t in enumerate(texts)]
        # Training is deterministic with one thread; the seed only matters if sampling ever is on.
        spm.set_random_generator_seed(seed)
        buffer = io.BytesIO()
        try:
            spm.SentencePieceTrainer.train(
                sentence_iterator=iter(texts),
                model_writer=buffer,
                vocab_size=vocab_size,
                model_type=model_type,
                character_coverage=character_coverage,
                **_FIXED_TRAINER_OPTIONS,
            )
        except RuntimeError as err:  # sentencepiece reports every problem as C++ text
            raise ValueError(_training_problem(str(err), vocab_size)) from None
        tokenizer = cls.from_bytes(buffer.getvalue(), source="the freshly trained model")
        tokenizer.save(path)
        return tokenizer

    @classmethod
    def load(cls, path: str | Path) -> Tokenizer:
        """Load a `.model` file; a missing or unusable file raises ValueError naming it."""
        path = Path(path)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise CodedError(f"No tokenizer model file at {path}.", "tokenizer_missing", {"path": str(path)}) from None
        except OSError as err:
            raise CodedError(f"Cannot read the tokenizer model file {path}: {err.strerror}.", "file_unreadable",
                             {"path": str(path)}) from None
        return cls.from_bytes(data, source=f"The tokenizer model file {path}", name=path.name)

    @classmethod
    def from_bytes(cls, data: bytes, source: str = "The given tokenizer model", name: str = "") -> Tokenizer:
        """Load a serialized model; `source` names it in the ValueError if it is unusable (`name`, its file
        name, in the error's fields)."""
        fields = {"file": name or "?"}
        if not data:
            raise CodedError(f"{source} is empty.", "tokenizer_empty", fields)
        try:
            processor = spm.SentencePieceProcessor(model_proto=bytes(data))
        except (RuntimeError, OSError):  # the C++ message says only "ParseFromArray"
            raise CodedError(f"{source} is not a sentencepiece model: it is corrupt or truncated.", "tokenizer_corrupt",
                             fields) from None
        tokenizer = cls(processor)
        problem = tokenizer._problem()
        if problem:
            raise CodedError(f"{source} {problem}", "tokenizer_unusable", fields)
        return tokenizer

    def _problem(self) -> str | None:
        """Why this model breaks the wrapper's promises (fixed specials, exact round trip), or None."""
        too_few = f"has {self.vocab_size} pieces, fewer than the {MIN_VOCAB_SIZE} a byte-fallback model has."
        if self.vocab_size < len(SPECIAL_PIECES):
            return too_few
        for i, expected in enumerate(SPECIAL_PIECES):
            if self._sp.id_to_piece(i) != expected:
                found = self._sp.id_to_piece(i)
                return f"has {found!r} at id {i}, where {expected!r} must be (pad=0, unk=1, bos=2, eos=3)."
        missing = [b for b in range(N_BYTE_PIECES) if not self._sp.is_byte(self._byte_id(b))]
        if missing:
            example = f"<0x{missing[0]:02X}>"
            return f"lacks byte-fallback pieces such as {example}: train it with byte_fallback=True."
        if self.vocab_size < MIN_VOCAB_SIZE:
            return too_few
        try:
            exact = self.decode(self.encode(_PROBE)) == _PROBE
        except ValueError:
            exact = False
        if not exact:
            return (
                "does not give text back exactly: it must use identity normalization, "
                "keep extra whitespace and fall back to bytes."
            )
        return None

    def save(self, path: str | Path) -> None:
        """Write the `.model` file to `path`, creating its folder."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self.to_bytes())

    def to_bytes(self) -> bytes:
        """The serialized model, the same bytes as the `.model` file."""
        return self._sp.serialized_model_proto()

    # ----- the vocabulary ---------------------------------------------------------------

    @property
    def vocab_size(self) -> int:
        """Number of pieces, specials and byte pieces included."""
        return self._sp.get_piece_size()

    @property
    def pad_id(self) -> int:
        """Id of `<pad>`, always 0."""
        return PAD_ID

    @property
    def unk_id(self) -> int:
        """Id of `<unk>`, always 1 (byte fallback means encode never produces it)."""
        return UNK_ID

    @property
    def bos_id(self) -> int:
        """Id of `<s>`, always 2."""
        return BOS_ID

    @property
    def eos_id(self) -> int:
        """Id of `</s>`, always 3."""
        return EOS_ID

    def is_special(self, i: int) -> bool:
        """Whether id `i` is one of pad, unk, bos, eos."""
        return 0 <= int(i) < len(SPECIAL_PIECES)

    def id_to_piece(self, i: int) -> str:
        """The piece of id `i`, as sentencepiece spells it (`▁the`, `<0xE4>`, `<s>`)."""
        return self._sp.id_to_piece(self._checked_id(i))

    def piece_to_id(self, piece: str) -> int:
        """The id of `piece`, or `unk_id` if the vocabulary has no such piece."""
        return self._sp.piece_to_id(piece)

    def _checked_id(self, i: int) -> int:
        """`i` as an int, or an IndexError that says the valid range."""
        i = int(i)
        if not 0 <= i < self.vocab_size:
            raise IndexError(f"Token id {i} is outside the vocabulary (0 to {self.vocab_size - 1}).")
        return i

    def _byte_id(self, byte: int) -> int:
        """The id of the byte-fallback piece for one byte value."""
        return self._sp.piece_to_id(f"<0x{byte:02X}>")

    # ----- text <-> ids -----------------------------------------------------------------

    def encode(self, text: str, add_bos: bool = False, add_eos: bool = False) -> list[int]:
        """Token ids of `text`, optionally framed by `<s>` and `</s>`."""
        ids = self._encode_body(_checked_text(text, "The text"))
        return [BOS_ID] * add_bos + ids + [EOS_ID] * add_eos

    def frame(self, ids: Sequence[int]) -> list[int]:
        """The ids as the model reads a text: as they are (a decoder adds <s> itself)."""
        return list(ids)

    def _encode_body(self, text: str) -> list[int]:
        """Encode exactly: sentencepiece would read a literal "▁" as a space, so swap it out."""
        if META not in text:
            return self._sp.encode(text)
        # A private-use character with no piece of its own becomes byte pieces; afterwards its
        # bytes are replaced by those of "▁". UTF-8 is self-synchronizing, so its byte run can
        # only come from that character, which does not occur in the text.
        stand_in = self._stand_in(text)
        ids = self._sp.encode(text.replace(META, stand_in))
        old, new = self._char_byte_ids(stand_in), self._char_byte_ids(META)
        out, i, swapped = [], 0, 0
        while i < len(ids):
            if ids[i : i + len(old)] == old:
                out += new
                i += len(old)
                swapped += 1
            else:
                out.append(ids[i])
                i += 1
        if swapped != text.count(META):  # only a model without byte fallback gets here
            raise ValueError("This tokenizer cannot encode the character ▁ (U+2581) exactly.")
        return out

    def _stand_in(self, text: str) -> str:
        """A private-use character that is neither in `text` nor a piece of the vocabulary."""
        for code in itertools.chain(*_STAND_INS):
            char = chr(code)
            if char not in text and self._sp.piece_to_id(char) == UNK_ID:
                return char
        raise ValueError("The text uses every private-use character, so ▁ (U+2581) cannot be encoded.")

    def _char_byte_ids(self, char: str) -> list[int]:
        """Ids of the byte pieces spelling `char` in UTF-8."""
        return [self._byte_id(b) for b in char.encode("utf-8")]

    def decode(self, ids: Sequence[int]) -> str:
        """The text of `ids`; pad, bos, eos are dropped, unk shows as " ⁇ ", bad byte runs as U+FFFD."""
        kept = [self._checked_id(i) for i in ids]
        return self._sp.decode([i for i in kept if i not in (PAD_ID, BOS_ID, EOS_ID)])

    def decode_visible(self, ids: Sequence[int]) -> str:
        """`decode` for a reader: a byte piece that forms no valid UTF-8 shows as its label `<C3>`
        (as in `display_pieces`), never as U+FFFD; a valid run of byte pieces (the two of "é") stays a character.

        Each stray byte is swapped for the byte pieces of its label's ASCII text, so everything else
        (specials, the dummy-prefix space) decodes exactly as `decode` does. Keep `decode` for evaluation.
        """
        kept = [self._checked_id(i) for i in ids]
        out, run = [], []  # run: the byte values of the byte pieces read since the last other piece
        for i in kept + [None]:
            if i is not None and self._sp.is_byte(i):
                run.append(int(_BYTE_PIECE.fullmatch(self._sp.id_to_piece(i))[1], 16))
                continue
            out += self._visible_byte_ids(bytes(run))
            run = []
            if i is not None:
                out.append(i)
        return self.decode(out)

    def _visible_byte_ids(self, data: bytes) -> list[int]:
        """Byte-piece ids spelling `data`, each byte that is not part of valid UTF-8 as the text `<XX>`."""
        # surrogateescape turns each byte that is no part of a valid character into U+DC80..U+DCFF.
        text = data.decode("utf-8", errors="surrogateescape")
        visible = "".join(f"<{ord(c) - 0xDC00:02X}>" if "\udc80" <= c <= "\udcff" else c for c in text)
        return self._char_byte_ids(visible)

    def pieces(self, text: str) -> list[str]:
        """The pieces of `text`, as sentencepiece spells them (`▁the`, `<0xE4>`)."""
        return [self._sp.id_to_piece(i) for i in self.encode(text)]

    def display_pieces(self, ids: Sequence[int]) -> list[str]:
        """One readable label per id: byte pieces `<0xE4>` become `<E4>`, the rest stay as they are."""
        labels = []
        for i in ids:
            piece = self.id_to_piece(i)
            match = _BYTE_PIECE.fullmatch(piece)
            labels.append(f"<{match[1]}>" if match and self._sp.is_byte(int(i)) else piece)
        return labels

    # ----- pieces -> words --------------------------------------------------------------

    def word_ids(self, ids: Sequence[int]) -> list[int]:
        """For each id, the index of its word in `decode(ids).split()`, or -1 (specials, whitespace)."""
        return _chunk_words([self._token_bytes(i) for i in ids])

    def _token_bytes(self, i: int) -> bytes:
        """The bytes token `i` stands for in the text (nothing for a special)."""
        i = self._checked_id(i)
        if self.is_special(i):
            return b""
        piece = self._sp.id_to_piece(i)
        if self._sp.is_byte(i):
            return bytes([int(_BYTE_PIECE.fullmatch(piece)[1], 16)])
        return piece.replace(META, " ").encode("utf-8")

    def __repr__(self) -> str:
        return f"Tokenizer(vocab_size={self.vocab_size})"


# The options that make the round trip exact and the ids fixed; see the module docstring.
_FIXED_TRAINER_OPTIONS = dict(
    normalization_rule_name="identity",
    byte_fallback=True,
    add_dummy_prefix=True,
    remove_extra_whitespaces=False,
    split_digits=True,
    pad_id=PAD_ID, unk_id=UNK_ID, bos_id=BOS_ID, eos_id=EOS_ID,
    pad_piece=SPECIAL_PIECES[PAD_ID], unk_piece=SPECIAL_PIECES[UNK_ID],
    bos_piece=SPECIAL_PIECES[BOS_ID], eos_piece=SPECIAL_PIECES[EOS_ID],
    hard_vocab_limit=False,  # a small corpus gives a smaller vocabulary instead of an error
    num_threads=1,  # one thread: the same texts always give the same model bytes
    minloglevel=2,  # sentencepiece logs every training step to stderr otherwise
)


def _checked_text(text: str, what: str) -> str:
    """`text` itself, or a ValueError if it is not a str that UTF-8 can encode."""
    if not isinstance(text, str):
        raise ValueError(f"{what} is a {type(text).__name__}, not a str.")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ValueError(
            f"{what} has a lone surrogate ({text[err.start]!r} at character {err.start}), "
            "which is not a Unicode character and cannot be tokenized."
        ) from None
    return text


def _training_problem(message: str, vocab_size: int) -> str:
    """One sentence explaining a sentencepiece training error."""
    too_small = re.search(r"required_chars\. \d+ vs (\d+)", message)
    if too_small:
        need = too_small[1]
        return (
            f"vocab_size {vocab_size} is too small for these texts: the specials, the byte pieces and "
            f"one piece per distinct character already take {need}; use more, or lower character_coverage."
        )
    if "sentences_.empty()" in message:
        return "The training texts are empty: give at least one non-empty line."
    return f"sentencepiece could not train on these texts: {message}"


def _chunk_words(chunks: list[bytes]) -> list[int]:
    """For each token's bytes, the str.split() index of the word its first non-space byte is in, or -1."""
    # Work on bytes, since a byte piece can be a fraction of a character: rebuild the text the
    # tokens spell, give each byte the index of the word it is in, then give each token the word
    # of its first non-space byte. "Word" is str.split()'s: tabs and newlines separate.
    byte_words = _byte_word_indices(b"".join(chunks))
    result, start = [], 0
    for chunk in chunks:
        words = [w for w in byte_words[start : start + len(chunk)] if w >= 0]
        result.append(words[0] if words else -1)
        start += len(chunk)
    return result


def _byte_word_indices(data: bytes) -> list[int]:
    """For each byte of `data`, the str.split() index of the word it is in, or -1 for whitespace."""
    # surrogateescape keeps one character per invalid byte, so byte offsets stay countable.
    result, word, in_word = [], -1, False
    for char in data.decode("utf-8", errors="surrogateescape"):
        escaped = "\udc80" <= char <= "\udcff"
        n_bytes = 1 if escaped else len(char.encode("utf-8"))
        if char.isspace():
            in_word = False
            result += [-1] * n_bytes
            continue
        if not in_word:
            word, in_word = word + 1, True
        result += [word] * n_bytes
    return result


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


class SpecialIds:
    """The four roles' ids (`_ids`: pad, unk, bos, eos) and the set of special ids (`_special`) of an imported
    tokenizer (HubTokenizer, MarianTokenizer)."""

    pad_id = property(lambda self: self._ids["pad"])
    unk_id = property(lambda self: self._ids["unk"])
    bos_id = property(lambda self: self._ids["bos"])
    eos_id = property(lambda self: self._ids["eos"])

    def is_special(self, i: int) -> bool:
        return int(i) in self._special


class HubTokenizer(SpecialIds):
    """A Hugging Face `tokenizer.json`, read by the tokenizers package, behind the interface of `Tokenizer`.

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
        return cls(tokenizer, specials, frames_input)

    @property
    def vocab_size(self) -> int:
        return self._tk.get_vocab_size(with_added_tokens=True)

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
        ids = rust_call(self._tk.encode, _checked_text(text, "The text"), add_special_tokens=False).ids
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


class WordPieceTokenizer(HubTokenizer):
    """An imported BERT tokenizer (a Hugging Face `tokenizer.json`) behind the same interface.

    Unlike the sentencepiece models above it normalizes (lowercases, cleans control characters),
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

    @classmethod
    def load(cls, path: str | Path, specials: dict[str, str | int],
             frames_input: bool | None = None) -> "ByteLevelBPETokenizer":
        """Load a `tokenizer.json` and check that it is byte-level BPE; a ValueError names the file if not."""
        tokenizer = super().load(path, specials, frames_input)
        problem = tokenizer._problem()
        if problem:
            name = Path(path).name
            raise CodedError(f"The tokenizer file {name} is not a byte-level BPE tokenizer: {problem}.",
                             "tokenizer_not_byte_level", {"file": name})
        return tokenizer

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
        return _visible(data.decode("utf-8", errors="surrogateescape"), keep_space=True)

    def display_pieces(self, ids: Sequence[int]) -> list[str]:
        """One readable label per id: the piece's text with a space shown as ▁ (the word-start mark of our
        sentencepiece models, where GPT-2 writes Ġ), a byte that is no whole character or a control
        character as `<E4>`, `<0A>`; a special token as it is spelled."""
        labels = []
        for i in ids:
            if int(i) in self._added:
                labels.append(self.id_to_piece(i))
            else:
                labels.append(_visible(self._text_bytes(i).decode("utf-8", errors="surrogateescape"), False))
        return labels

    def word_ids(self, ids: Sequence[int]) -> list[int]:
        """For each id, the index of its word in `decode(ids).split()`, or -1 (specials, whitespace)."""
        return _chunk_words([self._token_bytes(i) for i in ids])


def _visible(text: str, keep_space: bool) -> str:
    """`text` (decoded with surrogateescape) with each stray byte as `<XX>`; unless `keep_space`, a space
    as ▁ and every other whitespace or control character as the labels of its UTF-8 bytes (a newline: <0A>)."""
    out = []
    for char in text:
        if "\udc80" <= char <= "\udcff":
            out.append(f"<{ord(char) - 0xDC00:02X}>")
        elif keep_space:
            out.append(char)
        elif char == " ":
            out.append(META)
        elif char.isspace() or not char.isprintable():
            out.append("".join(f"<{b:02X}>" for b in char.encode("utf-8")))
        else:
            out.append(char)
    return "".join(out)


def _language_code(text: str) -> int:
    """How many characters of `text` are a leading target-language code such as >>fra<< (0 if none), found as
    transformers' MarianTokenizer finds it: `text` starts with >> and has a << after."""
    end = text.find("<<", 2) if text.startswith(">>") else -1
    return end + 2 if end >= 0 else 0


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
        if not model:
            raise CodedError(f"The tokenizer model file {name} is empty.", "tokenizer_empty", {"file": name})
        try:
            processor = spm.SentencePieceProcessor(model_proto=bytes(model))
        except (RuntimeError, OSError):
            raise CodedError(f"The tokenizer model file {name} is not a sentencepiece model: it is corrupt or "
                             "truncated.", "tokenizer_corrupt", {"file": name}) from None
        return cls(processor, vocab, specials, ends_with_eos)

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
        for part in self._split.split(_checked_text(text, "The text")):
            if part in self._special_pieces:
                ids.append(self._special_pieces[part])
                continue
            code = _language_code(part)  # transformers takes it off each stretch between specials
            if code:
                ids.append(self.piece_to_id(part[:code]))
                part = part[code:]
            ids += [self.piece_to_id(p) for p in self._sp.encode(part, out_type=str)]
        return [self.bos_id] * add_bos + ids + [self.eos_id] * add_eos

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
        byte = _BYTE_PIECE.fullmatch(piece)
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
        return _visible(data.decode("utf-8", errors="surrogateescape"), keep_space=True).strip()

    def display_pieces(self, ids: Sequence[int]) -> list[str]:
        """The pieces as vocab.json spells them (`▁the`), a byte piece `<0xE4>` as `<E4>`."""
        labels = []
        for i in ids:
            piece = self.id_to_piece(i)
            byte = _BYTE_PIECE.fullmatch(piece)
            labels.append(f"<{byte[1]}>" if byte and self._sp.is_byte(self._sp.piece_to_id(piece)) else piece)
        return labels

    def word_ids(self, ids: Sequence[int]) -> list[int]:
        """For each id, the index of its word in `decode(ids).split()`, or -1 (pad, bos, eos, whitespace); an
        unknown piece belongs to the word it is in, so the caller can name the words the vocabulary lacks."""
        return _chunk_words([self._token_bytes(i) for i in ids])

    def __repr__(self) -> str:
        return f"MarianTokenizer(vocab_size={self.vocab_size})"
