"""malloc under a trace: freed memory handed back to the system while a large trace is recorded, and arrays placed
the same way whatever the process did before.

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
(SmolLM2-135M at 1,024 tokens kept 1.8 GiB; 1.31 GiB since what its blocks compute is derived, hook_points.py).
Elsewhere than glibc (macOS, musl) there is no malloc_trim and nothing is done.

How malloc places an array is set once, before the first trace (`steady`). glibc maps an array over its threshold
with mmap, and unmaps it when freed; the threshold starts at 128 KiB and rises to the size of the largest mapped
array freed so far, up to 32 MiB, taking the trim threshold to twice that. So a process's history decided whether a
forward's arrays came back from the heap or were mapped afresh and their pages faulted in again, every forward.
Keeping every value of SmolLM2-135M at 128 tokens, in bench/real_size.py's children in lockstep: a process whose
load had freed no large array faulted in 31,500-32,000 pages a forward and took 1.12-1.14× as long as one whose load
had (which faulted in none); at 512 tokens 1.10-1.16×. `steady` sets both thresholds where glibc's own rule ends,
32 MiB and 64 MiB, whatever the process did before: no page faulted in again, 0.99× the second process's time.
Where the environment sets malloc's thresholds already (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_, or glibc's
tunables), that setting stands. SETTLED_ENV is that environment for a process that never traces (bench/real_size.py
gives it to transformers' process too, so that both are timed under the same malloc).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os

TRIM_EVERY = 256 * 2**20  # bytes kept between two trims: about one layer of a 135M model at 2,048 tokens
TRIM_FROM = 3 * 2**29  # 1.5 GiB: a trace keeping less never trims (its forward would pay to touch the pages again)
MMAP_THRESHOLD = 32 * 2**20  # glibc's ceiling for its own moving threshold (DEFAULT_MMAP_THRESHOLD_MAX, 64-bit)
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD  # what glibc sets beside it when it moves the threshold
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # mallopt's parameters (malloc.h)
SETTLED_ENV = {"MALLOC_MMAP_THRESHOLD_": str(MMAP_THRESHOLD), "MALLOC_TRIM_THRESHOLD_": str(TRIM_THRESHOLD)}


@functools.lru_cache(maxsize=1)
def _libc():
    """glibc, or None where the C library is another (no malloc_trim, no mallopt)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc if hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt") else None
    except OSError:
        return None


@functools.lru_cache(maxsize=1)
def steady() -> bool:
    """malloc's thresholds set where glibc's own rule ends (the module's doc), once a process; False where the C
    library is not glibc, or the environment has set them (the module's doc), and nothing is set."""
    libc = _libc()
    if libc is None or any(os.environ.get(name) for name in SETTLED_ENV) or "malloc" in os.environ.get(
            "GLIBC_TUNABLES", ""):
        return False
    return bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))


def give_back() -> bool:
    """Hand the heap's free pages back to the system; False where that cannot be done."""
    libc = _libc()
    if libc is None:
        return False
    libc.malloc_trim(0)
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
