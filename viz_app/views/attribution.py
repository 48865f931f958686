"""One output's attributions over the input tokens, the four methods side by side (numpy): the attribution page.

The methods differ in kind and in units (rollout and flow are shares of attention, gradient × input and integrated
gradients are changes of the log-probability), so the chart scales each method's row by its own largest |value|;
the table keeps the numbers as computed.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

METHODS = ("rollout", "flow", "times_input", "integrated")  # the page's order: attention first, then gradients


def outputs(tokens, limit: int) -> tuple[str, ...]:
    """A decoder's outputs to explain, position by position: "i: the token read → the token predicted", from its
    tokens followed by the model's pick after the last; at most `limit` positions."""
    return tuple(f"{i}: {read} → {then}" for i, (read, then) in enumerate(zip(tokens, tokens[1:])))[:limit]


@dataclass(frozen=True)
class SideBySide:
    methods: tuple[str, ...]  # those computed, in METHODS order
    values: np.ndarray  # [m, n] as computed
    scaled: np.ndarray  # [m, n] each row divided by its largest |value| (a row of zeros stays zeros)
    labels: tuple[str, ...]  # the n input tokens
    top: tuple[str, ...]  # per method, its input token with the largest value


def side_by_side(methods: dict, labels) -> SideBySide:
    names = tuple(m for m in METHODS if m in methods)
    values = np.array([np.asarray(methods[m], dtype=np.float64) for m in names])
    largest = np.abs(values).max(axis=1, keepdims=True)
    scaled = np.divide(values, largest, out=np.zeros_like(values), where=largest > 0)
    top = tuple(labels[int(np.argmax(row))] for row in values)
    return SideBySide(names, values, scaled, tuple(labels), top)


@dataclass(frozen=True)
class Completeness:
    total: float  # Σ integrated gradients
    change: float  # f(input) − f(baseline)
    gap: float  # |total − change| / |change|


def completeness(integrated, f_input: float, f_baseline: float) -> Completeness:
    """How well the integrated gradients add up to the change of the output from the baseline to the input."""
    total, change = float(np.sum(integrated)), f_input - f_baseline
    return Completeness(total, change, abs(total - change) / max(abs(change), 1e-12))
