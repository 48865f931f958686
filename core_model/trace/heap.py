"""Freed memory handed back to the system while a large trace is recorded.

glibc's malloc keeps what a program frees (a layer's temporaries: the norms' outputs, the gate before its product)
for its next requests, as whole pages inside its heap; the values a trace keeps stay allocated between them, so the
heap only grows, and the process holds more than it uses. malloc_trim(0) gives every whole free page back. The
recorder calls it each time the values it keeps have grown by TRIM_EVERY: SmolLM2-135M at 2,048 tokens keeping every
value (bench/real_size.py) peaked at 7.04–7.27 GiB without it, 6.67 GiB with it, in the same time (about 2.5 ms a
call). Elsewhere than glibc (macOS, musl) there is no malloc_trim and nothing is done.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools

TRIM_EVERY = 256 * 2**20  # bytes kept between two trims: about one layer of a 135M model at 2,048 tokens


@functools.lru_cache(maxsize=1)
def _malloc_trim():
    """glibc's malloc_trim, or None where the C library has none."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def give_back() -> bool:
    """Hand the heap's free pages back to the system; False where that cannot be done."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


class Tally:
    """Bytes kept since the last trim: `add` trims once they reach TRIM_EVERY."""

    def __init__(self, every: int | None = None):
        self.every, self.since = every or TRIM_EVERY, 0

    def add(self, nbytes: int) -> None:
        self.since += nbytes
        if self.since >= self.every:
            self.since = 0
            give_back()
