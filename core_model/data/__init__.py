"""Corpus generators: a toy English→French grammar with gold word alignments, and reversal.

Both are plain Python (standard library only), deterministic from a seed, and return
``{"train": [...], "valid": [...], "test": [...]}`` lists of `Pair`.
"""
from __future__ import annotations

from dataclasses import dataclass


# Defined before the submodules are imported, because they import it from here.
@dataclass(frozen=True)
class Pair:
    """One source/target example with its gold word alignment.

    `alignment` holds (src word index, tgt word index) links into ``src.split()`` and
    ``tgt.split()``; every target word has at least one. `combos` names the word combinations
    the pair contains (``"adj:red+car"``, ``"verb:see+cat"``): the held-out split is built on them.
    """
    src: str
    tgt: str
    alignment: tuple[tuple[int, int], ...]
    phenomena: frozenset[str] = frozenset()
    combos: frozenset[str] = frozenset()


from .en_fr import (PHENOMENA, VOCABULARY, Clause, NounPhrase, PrepPhrase,  # noqa: E402
                    english_sentences, make_corpus, translate)
from .reverse import make_reverse_corpus  # noqa: E402

__all__ = ["Pair", "PHENOMENA", "VOCABULARY", "Clause", "NounPhrase", "PrepPhrase",
           "english_sentences", "make_corpus", "make_reverse_corpus", "translate"]
