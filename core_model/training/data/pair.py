"""The example type every corpus generator returns; its own module so that the generators and the
package that re-exports them import it from below, not from each other."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Pair:
    """One source/target example with its gold word alignment.

    `alignment` holds (src word index, tgt word index) links into ``src.split()`` and
    ``tgt.split()``; every target word has at least one. `combos` names the word combinations
    the pair contains (``"adj:red+car"``, ``"verb:see+cat"``): the held-out split is built on them.
    `also` holds the other right translations of ``src``, if it has any (a noun's second French word).
    """
    src: str
    tgt: str
    alignment: tuple[tuple[int, int], ...]
    phenomena: frozenset[str] = frozenset()
    combos: frozenset[str] = frozenset()
    also: frozenset[str] = frozenset()

    @property
    def right(self) -> frozenset[str]:
        """Every right translation: ``tgt`` and ``also``."""
        return self.also | {self.tgt}
