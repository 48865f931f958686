"""A cache of read-only results shared by every session, bounded in entries and in bytes.

st.cache_data pickles what it stores and unpickles it on every hit, and stores an entry larger
than its `max_size` anyway: a 512-token MiniLM trace pickled to 372 MB, was stored past a 128 MB
bound, and each rerun paid for unpickling it. A traced run is read-only (frozen dataclasses and
read-only arrays), so it can be shared as it is: this cache hands out the same object, keeps the
most recently used entries within `max_bytes` (an entry larger than that is returned, never kept),
and computes each key once at a time (sessions asking for it meanwhile wait for that result).
"""
from __future__ import annotations

import functools
import inspect
import threading
from collections import OrderedDict


class SharedCache:
    def __init__(self, func, max_entries: int, max_bytes: int, size):
        self.func, self.max_entries, self.max_bytes, self.size = func, max_entries, max_bytes, size
        self._items: OrderedDict = OrderedDict()  # key → (value, bytes), oldest first
        self._making: dict = {}  # key → the lock of the one call computing it
        self._lock = threading.Lock()
        self._signature = inspect.signature(func)
        functools.update_wrapper(self, func)

    @property
    def nbytes(self) -> int:
        with self._lock:
            return sum(n for _, n in self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def _hit(self, key):
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return True, self._items[key][0]
            return False, self._making.setdefault(key, threading.Lock())

    def __call__(self, *args, **kwargs):
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()  # run(m, s) and run(m, s, "", True, True) are one entry
        key = tuple(bound.arguments.values())
        found, value = self._hit(key)
        if found:
            return value
        with value:  # one computation per key; a second caller waits, then finds it stored
            found, again = self._hit(key)
            if found:
                return again
            try:
                result = self.func(*args, **kwargs)
                n = self.size(result)
            except BaseException:
                with self._lock:
                    self._making.pop(key, None)
                raise
            with self._lock:  # stored and no longer being made in one step: no caller sees neither
                self._making.pop(key, None)
                self._store(key, result, n)
            return result

    def _store(self, key, result, n: int) -> None:
        """(under the lock) Keep the result unless it alone is over the bound; drop the oldest beyond it."""
        if n <= self.max_bytes:
            self._items[key] = (result, n)
        total = sum(b for _, b in self._items.values())
        while len(self._items) > self.max_entries or total > self.max_bytes:
            _, (_, dropped) = self._items.popitem(last=False)
            total -= dropped


def shared_cache(max_entries: int, max_bytes: int, size):
    """Decorator: a SharedCache around the function (`size(result)` says its bytes)."""
    return lambda func: SharedCache(func, max_entries, max_bytes, size)
