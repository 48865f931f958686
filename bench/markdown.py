"""The Markdown pieces BENCHMARKS.md is written with, shared by bench.run and the benchmarks that write their own
section (bench.real_size)."""
from __future__ import annotations


def yes(ok: bool) -> str:
    return "✓" if ok else "✗ FAILED"


def table(header: list[str], rows: list[list]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out + [""]


def verdict(met: bool | None) -> str:
    return "not measured" if met is None else "met" if met else "not met"
