"""Text <-> token ids, one module per kind behind one Protocol (`TokenizerLike`, base.py): our own sentencepiece
models with an exact round trip (sentencepiece.py), and the imported kinds, whose special tokens come from their own
files: BERT's WordPiece (wordpiece.py), GPT-2's and BART's byte-level BPE (byte_bpe.py) and the sentencepiece-style
files of T5, ALBERT, mBART, Gemma and Llama 2 (▁ for a space; metaspace.py), all read from a Hugging Face
tokenizer.json (hub.py), Marian's sentencepiece unigram models numbered by vocab.json (marian.py) and a sentencepiece
model read alone (spm_model.py), with the roles they share (SpecialIds, base.py). folder.py reads whichever of these
files a Hugging Face folder ships (and the special tokens its files name): the importers' one entry point. What
several kinds share about text itself is in text.py."""
from .base import SpecialIds, TokenizerLike
from .byte_bpe import BYTE_CHARS, ByteLevelBPETokenizer
from .hub import HubTokenizer, rust_call
from .marian import MarianTokenizer
from .metaspace import MetaspaceTokenizer
from .sentencepiece import MIN_VOCAB_SIZE, Tokenizer
from .spm_model import SentencePieceModelTokenizer
from .wordpiece import WordPieceTokenizer

__all__ = ["BYTE_CHARS", "MIN_VOCAB_SIZE", "ByteLevelBPETokenizer", "HubTokenizer", "MarianTokenizer",
           "MetaspaceTokenizer", "SentencePieceModelTokenizer", "SpecialIds", "Tokenizer", "TokenizerLike",
           "WordPieceTokenizer", "rust_call"]
