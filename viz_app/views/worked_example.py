"""The worked example: three tokens, d_model = 4, hand-set weights, every stage of one head with its numbers.

The stages themselves come from core_model's own attention() (core_model.heads.worked_attention); this module
holds the example's defaults and formulas, reads the edited grids, and lays the stages out.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .self_attention import MASKED

LIMIT = 100.0  # hand-set numbers stay readable and far from float overflow in exp()

# Defaults chosen so that every token looks mostly at a different token (I → cats, love → I,
# cats → love) with weights well away from 0, 1 and 1/3: nothing uniform, nothing saturated.
WORKED = {
    "X": [[1, 0, 1, 0], [0, 2, 0, 1], [1, 1, 1, 1]],
    "W_Q": [[0.5, 0.5, 0, 0.5], [0, -1, -1, -1], [0, 1, 0.5, 1], [0, -1, 1, 0.5]],
    "W_K": [[1, 1, 1, 0], [1, 0, 0, 0.5], [-1, 0, 0, 0], [-1, 0.5, 0.5, 1]],
    "W_V": [[1, 0, 0, 0], [0, 0.5, 0, 0], [0, 0, 1, 0], [0, 0, 0, 2]],
}

WORKED_LATEX = {
    "q": "Q = X W_Q", "k": "K = X W_K", "v": "V = X W_V", "scores": r"S = Q K^\top",
    "scores_scaled": r"S' = S / \sqrt{d_k} = S / 2", "mask": r"M_{ij} \in \{0, 1\}",
    "scores_masked": MASKED,
    "pattern": r"A = \mathrm{softmax}(\tilde S)", "z": "Z = A V",
}


def worked_labels(words) -> tuple[str, ...]:
    """'0·I' labels from the typed words (an emptied cell gives just the position)."""
    clean = ["" if not isinstance(w, str) else " ".join(w.split())[:20] for w in words]
    return tuple(f"{i}·{w}" for i, w in enumerate(clean))


def read_grid(table: pd.DataFrame, columns) -> tuple[np.ndarray, int, int]:
    """A grid's numbers as float64 → (values, cells that were not numbers (set to 0), cells clamped to ±LIMIT)."""
    values = table[list(columns)].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)
    missing = np.isnan(values)
    outside = ~missing & (np.abs(values) > LIMIT)
    values = np.clip(np.where(missing, 0.0, values), -LIMIT, LIMIT)
    return values, int(missing.sum()), int(outside.sum())


DIMS = ("0", "1", "2", "3")  # the grids' number columns
ROWS = (("q", "k", "v"), ("scores", "scores_scaled", "mask"), ("scores_masked", "pattern", "z"))


def x_table(words) -> pd.DataFrame:
    """The editable input: a token column, then X's numbers (the defaults)."""
    table = pd.DataFrame(WORKED["X"], columns=list(DIMS), dtype=float)
    table.insert(0, "token", list(words))
    return table


def weight_table(name: str) -> pd.DataFrame:
    return pd.DataFrame(WORKED[name], columns=list(DIMS), dtype=float)


@dataclass(frozen=True)
class Cell:
    """One result matrix as the page draws it."""
    name: str
    latex: str
    values: np.ndarray
    x_labels: tuple[str, ...] | None  # None: dimensions
    y_labels: tuple[str, ...]
    axes: tuple[str, str]  # i18n leaves of (x, y)
    zrange: tuple[float, float] | None
    digits: int


def cells(stages: dict, labels) -> tuple[tuple[Cell, ...], ...]:
    """The stages laid out in ROWS: per-token matrices (q, k, v, z) have dimension columns, the rest key columns."""
    def cell(name):
        per_token = name in ("q", "k", "v", "z")
        return Cell(name, WORKED_LATEX[name], stages[name], None if per_token else tuple(labels), tuple(labels),
                    ("dim", "token") if per_token else ("key", "query"),
                    (0, 1) if name in ("mask", "pattern") else None, 0 if name == "mask" else 2)

    return tuple(tuple(cell(name) for name in row) for row in ROWS)
