"""The server's process after the app's first run: its modules frozen out of the collection Streamlit runs
after every script run, while what the runs make is still collected; numpy's BLAS held to one thread, torch's
threads to one core fewer than the machine has, Nagle's algorithm off on the server's connections, and each run
in its visitor's fair turn with a full collection after it now and then, not after every one."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# A fresh interpreter, as a server process starts: pytest's own objects would blur the counts.
SCRIPT = """
import gc, json, socket, sys
from streamlit.testing.v1 import AppTest
from streamlit.web.server.starlette.starlette_server import _bind_socket
listener = _bind_socket("127.0.0.1", 0, 8)  # Streamlit's own listening socket, as `streamlit run` binds it
listener.setblocking(True)
NODELAY = (socket.IPPROTO_TCP, socket.TCP_NODELAY)
def accepted():
    client = socket.create_connection(listener.getsockname())
    return client, listener.accept()[0]
early_client, early = accepted()  # a browser's connection, open before the app's first run
nodelay_before = early.getsockopt(*NODELAY)
import numpy  # its OpenBLAS as a fresh process loads it
import torch
torch_before = torch.get_num_threads()
from threadpoolctl import threadpool_info
blas_before = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
at = AppTest.from_file("app.py", default_timeout=300).run()
frozen, tracked = gc.get_freeze_count(), len(gc.get_objects())
class Node: pass
a, b = Node(), Node()
a.other, b.other = b, a  # a cycle made after the freeze, as a run's objects are
del a, b
collected = gc.collect()
blas = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
from viz_app.serving import settle
settle()  # as app.py does on each run, here in this thread
late_client, late = accepted()
from streamlit import config
from streamlit.runtime.scriptrunner.script_runner import ScriptRunner
print(json.dumps(dict(post_script_gc=config.get_option("runner.postScriptGC"),
                      fair=getattr(ScriptRunner._run_script, "fair", False),torch_before=torch_before, torch_threads=torch.get_num_threads(),
                      errors=[e.value for e in at.exception], frozen=frozen, tracked=tracked, collected=collected,
                      place="viz_app.place.explorer" in sys.modules, torch="torch" in sys.modules,
                      blas_before=blas_before, blas=blas, nodelay_before=nodelay_before,
                      nodelay_early=early.getsockopt(*NODELAY), nodelay_late=late.getsockopt(*NODELAY))))
"""


@pytest.fixture(scope="module")
def seen() -> dict:
    # as a server starts: without the thread counts tests/conftest.py sets for the test process
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=600,
                         env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_first_run_freezes_the_modules_and_later_garbage_is_still_collected(seen):
    assert seen["errors"] == []
    # every page's modules (and torch under them) were imported before the freeze, whichever page opened
    assert seen["place"] and seen["torch"]
    # a full collection now walks what the run made, not the ~250,000 objects of the imported libraries
    assert seen["frozen"] > 100_000 and seen["tracked"] < seen["frozen"] / 5, seen
    assert seen["collected"] >= 2  # the cycle made after the freeze was found and freed


def test_the_first_run_takes_turns_fairly_and_collects_now_and_then_not_after_every_run(seen):
    assert seen["fair"] is True and seen["post_script_gc"] is False


def test_a_full_collection_follows_a_run_at_most_every_so_often(monkeypatch):
    from viz_app import serving

    clock, collections = [1000.0], []
    monkeypatch.setattr(serving, "_last_collection", 0.0)
    run = serving.collected_now_and_then(lambda runner, data: data, every_s=5.0, clock=lambda: clock[0],
                                         collect=collections.append)
    for t in (1000.0, 1001.0, 1004.9, 1005.0, 1009.0, 1010.5):
        clock[0] = t
        assert run(None, t) == t
    assert collections == [2, 2, 2]  # at 1000, 1005 and 1010.5: every generation each time


def test_the_first_run_holds_numpys_blas_to_one_thread(seen):
    # OpenBLAS starts with a thread per core; after the app's first run it has one
    assert len(seen["blas_before"]) == 1 and (seen["blas_before"][0] > 1 or os.cpu_count() == 1), seen
    assert seen["blas"] == [1], seen


def test_the_first_run_leaves_one_core_out_of_torchs_threads(seen):
    # torch starts with a thread per core; the server's event loop and a browser on the same laptop keep one
    assert seen["torch_threads"] == max(1, seen["torch_before"] - 1), seen
    assert seen["torch_before"] > 1 or os.cpu_count() == 1, seen


def test_the_first_run_turns_nagles_algorithm_off_on_the_servers_connections(seen):
    # Streamlit binds its listener with protocol 0, and asyncio leaves Nagle on for such sockets: every kept-alive
    # response's body then waits 40 ms for the browser's delayed acknowledgement. If this starts failing, Streamlit
    # has fixed it and viz_app.serving.send_at_once can go.
    assert seen["nodelay_before"] == 0, seen
    # the connection open before the first run, and one the listener accepted after it
    assert seen["nodelay_early"] != 0 and seen["nodelay_late"] != 0, seen


GIVE_BACK = r"""
import json, sys, threading
import numpy as np
from viz_app import serving

def rss():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS"))

kept = []

def work():  # a run's working arrays: 16 MiB each, as one head's weights at 2,048 tokens, in a thread of its own,
    np.ones(2**22, np.float32)  # (one made and freed: malloc's threshold for arrays of their own rises past their size)
    arrays = []
    for _ in range(24):  # each followed by a small result that is kept, as a run keeps its pooled weights
        arrays.append(np.ones(2**22, np.float32))
        kept.append(np.ones(1024, np.float32))
    del arrays

before = rss()
threads = [threading.Thread(target=work) for _ in range(2)]
for t in threads:
    t.start()
for t in threads:
    t.join()
freed = rss()
with serving.large_run():
    pass
print(json.dumps({"kept": freed - before, "after": rss() - before}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_a_large_run_gives_back_the_memory_its_threads_freed():
    """768 MiB of arrays made and freed in two threads stay in malloc's arenas until a large run ends."""
    out = subprocess.run([sys.executable, "-c", GIVE_BACK], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, timeout=120)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["kept"] > 600 * 2**20, got  # what the arenas held: the freed arrays, still in the process
    assert got["after"] < 50 * 2**20, got


def test_a_session_keeps_only_its_newest_uploaded_file():
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
    from streamlit.runtime.uploaded_file_manager import UploadedFileRec

    from viz_app import serving

    serving.close_to_visitors()
    serving.close_to_visitors()  # once is enough: a second call wraps nothing again
    files = MemoryUploadedFileManager("/_stcore/upload_file")
    mb = bytes(2**20)
    for i in range(6):  # six files under ids a client made up, as the six of 100 MB
        files.add_file("s1", UploadedFileRec(f"made-up-{i}", f"x{i}.zip", "application/zip", mb))
    files.add_file("s2", UploadedFileRec("other", "y.zip", "application/zip", mb))  # another session's stays
    assert [r.file_id for r in files.get_files("s1", [f"made-up-{i}" for i in range(6)])] == ["made-up-5"]
    assert [r.file_id for r in files.get_files("s2", ["other"])] == ["other"]
    assert files._total_bytes == 2 * 2**20 and files._file_count == 2
