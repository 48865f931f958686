"""Corpus generators: a toy English→French grammar with gold word alignments, and reversal.

Both are plain Python (standard library only), deterministic from a seed, and return
``{"train": [...], "valid": [...], "test": [...]}`` lists of `Pair`.
"""
from __future__ import annotations

from .en_fr import (PHENOMENA, VOCABULARY, Clause, NounPhrase, PrepPhrase, english_sentences, make_corpus,
                    translate)
from .pair import Pair
from .reverse import make_reverse_corpus

__all__ = ["Pair", "PHENOMENA", "VOCABULARY", "Clause", "NounPhrase", "PrepPhrase",
           "english_sentences", "make_corpus", "make_reverse_corpus", "translate"]
