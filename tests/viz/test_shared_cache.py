"""The runs' shared cache: the same object back, its bounds hold, one computation per key at a time."""
import threading
import time

import numpy as np
import pytest

from viz_app.shared_cache import shared_cache


def made(calls):
    @shared_cache(max_entries=3, max_bytes=1000, size=lambda a: a.nbytes)
    def array(n: int, fill: float = 0.0):
        calls.append(n)
        return np.full(n, fill, np.uint8)
    return array


def test_a_hit_returns_the_same_object_without_calling_again():
    calls = []
    array = made(calls)
    first = array(10)
    assert array(10) is first and array(10, 0.0) is first and array(n=10) is first  # one key, however called
    assert calls == [10]


def test_the_bytes_bound_holds_and_the_oldest_go_first():
    calls = []
    array = made(calls)
    array(400), array(400, 1.0)
    array(10)  # touches nothing old
    array(400)  # a hit: now the most recent
    array(300)  # 400 + 400 + 10 + 300 > 1000: the least recently used (400, fill 1) goes
    assert array.nbytes <= 1000 and len(array) == 3
    calls.clear()
    array(400), array(10), array(300)
    assert calls == []
    array(400, 1.0)
    assert calls == [400]


def test_a_result_over_the_bound_is_returned_but_never_kept():
    calls = []
    array = made(calls)
    array(10)
    big = array(5000)
    assert big.nbytes == 5000 and array.nbytes == 10 and len(array) == 1
    array(5000)
    assert calls == [10, 5000, 5000]


def test_the_entries_bound_holds():
    calls = []
    array = made(calls)
    for n in range(1, 6):
        array(n)
    assert len(array) == 3 and array.nbytes == 3 + 4 + 5


def test_callers_of_one_key_wait_for_one_computation():
    calls = []

    @shared_cache(max_entries=2, max_bytes=100, size=lambda v: 1)
    def slow(key):
        calls.append(key)
        time.sleep(0.3)
        return object()

    got = []
    threads = [threading.Thread(target=lambda: got.append(slow("a"))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == ["a"] and len({id(g) for g in got}) == 1


def test_an_error_is_raised_to_the_caller_and_not_kept():
    calls = []

    @shared_cache(max_entries=2, max_bytes=100, size=lambda v: 1)
    def fails(key):
        calls.append(key)
        raise ValueError(key)

    for _ in range(2):
        with pytest.raises(ValueError):
            fails("x")
    assert calls == ["x", "x"] and len(fails) == 0
