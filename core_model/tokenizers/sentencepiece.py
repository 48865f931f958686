"""Our own tokenizer: a sentencepiece model, trained here, whose round trip is exact.

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
from .text import BYTE_PIECE, META, checked_text, chunk_words

PAD_ID, UNK_ID, BOS_ID, EOS_ID = 0, 1, 2, 3
SPECIAL_PIECES = ("<pad>", "<unk>", "<s>", "</s>")  # indexed by id
N_BYTE_PIECES = 256
# Specials and byte pieces come first; at least one more piece is needed to hold a character.
MIN_VOCAB_SIZE = len(SPECIAL_PIECES) + N_BYTE_PIECES + 1
MODEL_TYPES = ("unigram", "bpe")

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
        texts = [checked_text(t, f"training text {i}") for i, t in enumerate(texts)]
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
        ids = self._encode_body(checked_text(text, "The text"))
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
                run.append(int(BYTE_PIECE.fullmatch(self._sp.id_to_piece(i))[1], 16))
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
            match = BYTE_PIECE.fullmatch(piece)
            labels.append(f"<{match[1]}>" if match and self._sp.is_byte(int(i)) else piece)
        return labels

    # ----- pieces -> words --------------------------------------------------------------

    def word_ids(self, ids: Sequence[int]) -> list[int]:
        """For each id, the index of its word in `decode(ids).split()`, or -1 (specials, whitespace)."""
        return chunk_words([self._token_bytes(i) for i in ids])

    def _token_bytes(self, i: int) -> bytes:
        """The bytes token `i` stands for in the text (nothing for a special)."""
        i = self._checked_id(i)
        if self.is_special(i):
            return b""
        piece = self._sp.id_to_piece(i)
        if self._sp.is_byte(i):
            return bytes([int(BYTE_PIECE.fullmatch(piece)[1], 16)])
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

