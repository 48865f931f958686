"""Freed memory handed back to the system while a large trace is recorded.

glibc's malloc keeps what a program frees (a layer's temporaries: the norms' outputs, the gate before its product)
for its next requests, as whole pages inside its heap; the values a trace keeps stay allocated between them, so the
heap only grows, and the process holds more than it uses. malloc_trim(0) gives every whole free page back. A
trace's recorder calls it once the values it keeps pass TRIM_FROM, then each time they grow by TRIM_EVERY.
Measured (bench/real_size.py's children, SmolLM2-135M keeping every value, forwards after the first): at 2,048
tokens the peak RSS was 6.87–7.08 GiB without it, 6.51–6.57 GiB with it; at 1,024 tokens 2.85 GiB and 2.64 GiB. It
has a price: the pages it gives back are touched again by the next allocations (a call itself takes about 2.5 ms).
At 1,024 tokens a forward took 1.62–1.74 s without, 1.75–1.78 s with; trimming from the first 256 MiB made one at
512 tokens 9 % slower (0.73 s, 0.67 s); one trim a forward of Qwen2-0.5B at 512 tokens (1.06 GiB kept) made it
3–5 % slower (2.08–2.15 s, 2.01–2.04 s) for no lower peak. So a trace that keeps less than TRIM_FROM never trims
(SmolLM2-135M at 1,024 tokens keeps 1.8 GiB). Elsewhere than glibc (macOS, musl) there is no malloc_trim and
nothing is done.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools

TRIM_EVERY = 256 * 2**20  # bytes kept between two trims: about one layer of a 135M model at 2,048 tokens
TRIM_FROM = 3 * 2**29  # 1.5 GiB: a trace keeping less never trims (its forward would pay to touch the pages again)


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
    """Bytes kept by a trace: `add` trims once they pass TRIM_FROM, then each time TRIM_EVERY more are kept."""

    def __init__(self):
        self.every, self.start, self.total, self.since = TRIM_EVERY, TRIM_FROM, 0, 0

    def add(self, nbytes: int) -> None:
        self.total, self.since = self.total + nbytes, self.since + nbytes
        if self.total >= self.start and self.since >= self.every:
            self.since = 0
            give_back()
