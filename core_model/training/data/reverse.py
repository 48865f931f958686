"""The reversal task: the target is the source's words in reverse order.

A clean first look at cross-attention: the gold alignment is the anti-diagonal, so a trained
model's cross-attention should draw it.
"""
from __future__ import annotations

import random

from .pair import Pair

# Short, distinct words, each a single token for most tokenizers.
WORDS = ("a", "b", "c", "d", "e", "f", "g", "h", "red", "blue", "green", "cat", "dog", "sun",
         "moon", "tree", "fish", "bird", "one", "two", "three", "four", "five", "up", "down",
         "left", "right", "big", "small", "hot", "cold", "yes", "no")
MIN_LEN, MAX_LEN = 3, 12


def reverse_pair(words: list[str]) -> Pair:
    """Source words, the same reversed, and the anti-diagonal alignment (i, n-1-i)."""
    n = len(words)
    return Pair(" ".join(words), " ".join(reversed(words)),
                tuple((i, n - 1 - i) for i in range(n)), frozenset({"reversal"}))


def make_reverse_corpus(seed: int = 0, n_train: int = 20000, n_valid: int = 500,
                        n_test: int = 500) -> dict[str, list[Pair]]:
    """Distinct random sequences of 3..12 words: no valid or test sequence occurs in training."""
    rng = random.Random(seed)
    seen: set[str] = set()
    pairs: list[Pair] = []
    total = n_train + n_valid + n_test
    for _ in range(50 * total + 1000):  # a bound; short sequences repeat, long ones hardly ever
        if len(pairs) >= total:
            break
        words = rng.choices(WORDS, k=rng.randint(MIN_LEN, MAX_LEN))
        src = " ".join(words)
        if src not in seen:
            seen.add(src)
            pairs.append(reverse_pair(words))
    else:
        raise RuntimeError(f"Could not draw {total} distinct sequences; ask for fewer.")
    return {"train": pairs[:n_train], "valid": pairs[n_train:n_train + n_valid],
            "test": pairs[n_train + n_valid:]}
