"""Load a checkpoint someone brought, in a child process held to a time and a memory limit.

A checkpoint from a stranger is read in a child process (its address space limited first), never first in the
server: the child loads it with every check of checkpoints.load, runs its tokenizers and one forward pass on a plain
sentence, and sends back one line of JSON with the reason it was refused (or none): JSON, not a pickle, so that a
child the files got the better of can send the server nothing but text. Whatever the files do (a size the checks
missed, a tokenizer that panics, a parser that recurses), the child is what runs out of memory or time, and the
server only reads its verdict.

The children are forked from multiprocessing's fork server, a process of their own that imported torch and this
package once (FORKS): a probe then starts in milliseconds and shares those pages, where a fresh Python took 2.6 s
and 250 MB to import torch for each upload. `python -m core_model.checkpoints.probe FOLDER` prints a verdict too.
"""
from __future__ import annotations

import contextlib
import json
import multiprocessing
import multiprocessing.spawn
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import torch

from .folder import load
from ..messages import shortened
from .safe_load import KINDS, CheckpointError, size_text

SECONDS = 60  # a model that runs on a laptop CPU in class loads in a few seconds
MEMORY = 4 * 2**30  # address space: torch alone reserves about 1 GB, the largest model allowed ~1.5 GB more
SENTENCE = "the cat sees a dog ."


FORK_SERVER = "forkserver" in multiprocessing.get_all_start_methods()  # not on Windows
FORKS = multiprocessing.get_context("forkserver" if FORK_SERVER else "spawn")
FORKS.set_forkserver_preload(["core_model.checkpoints.probe", "core_model.importers"])
VERDICT_BYTES = 2**16  # a verdict is a line of JSON of a few hundred bytes
CHILDREN = "attention-viz "  # the start of the name of every child process here: the probe, a bounded tokenizer
# A visitor's own work in a child process (a probe, a bounded tokenizer, a live training run) runs this much nicer than
# the server: with the cores busy, every session's rerun goes first (a visitor typing 1,000 "a"s for a slow tokenizer
# over and over once took a core from a class of 30).
NICE = 10
NAME = CHILDREN + "probe"


def _without_main(prepared):
    """multiprocessing starts a child by importing the parent's __main__ in it again; Streamlit makes the page script
    running at that moment __main__ (app.py, a page), which a probe would then run whole. A probe (or a bounded
    tokenizer, bounded.py) needs only its own module (its target), so its preparation names no main."""
    def preparation(name):
        data = prepared(name)
        if name.startswith(CHILDREN):
            data.pop("init_main_from_path", None)
            data.pop("init_main_from_name", None)
        return data
    return preparation


multiprocessing.spawn.get_preparation_data = _without_main(multiprocessing.spawn.get_preparation_data)


class Line:
    """Probes in turn: `at_once` run, the others wait in the order they came (at most `most` in all), each told its
    place. Fourteen uploads at once, each probe with its own 60 s, once timed out together (3.5 GB meanwhile)."""

    def __init__(self, at_once: int, most: int):
        self.at_once, self.most = at_once, most
        self._tickets: list[object] = []  # the first at_once are running
        self._changed = threading.Condition()

    @contextlib.contextmanager
    def turn(self, waiting: Callable[[int], None] | None = None):
        """Wait for a turn; `waiting(place)` hears the place in line (1: next) whenever it changes."""
        ticket, told = object(), 0
        with self._changed:
            if len(self._tickets) >= self.most:
                raise CheckpointError(f"{self.most} models are being checked or waiting already; try again in a "
                                      "minute.", "time", "probe_line_full", {"n": self.most})
            self._tickets.append(ticket)
        try:  # whatever ends the wait or the turn (a session's rerun raised in `waiting`, say) gives the place up
            with self._changed:
                while (place := self._tickets.index(ticket) - self.at_once + 1) > 0:
                    if waiting is not None and place != told:
                        waiting(told := place)
                    self._changed.wait()
            yield
        finally:
            with self._changed:
                self._tickets.remove(ticket)
                self._changed.notify_all()


LINE = Line(at_once=min(4, os.cpu_count() or 1), most=64)  # a probe takes a core; 64 uploads of a class waiting


def check(folder, waiting: Callable[[int], None] | None = None) -> None:
    """Load `folder` in a bounded child process, in turn (LINE: `waiting(place)` hears its place while it waits);
    raise CheckpointError with its reason if it cannot be used."""
    with LINE.turn(waiting):
        _check(folder)


def _check(folder) -> None:
    receive, send = FORKS.Pipe(duplex=False)
    child = FORKS.Process(target=_child, args=(str(folder), send, MEMORY), name=NAME, daemon=True)
    child.start()
    send.close()
    try:
        if not receive.poll(SECONDS):  # True as well when the child ended without a word
            raise CheckpointError(f"loading the model took over {SECONDS} s, the loader's limit.", "time",
                                  "load_time", {"seconds": SECONDS})
        try:
            verdict = _verdict(receive.recv_bytes(VERDICT_BYTES).decode("utf-8", "replace"))
        except (EOFError, OSError):  # ended (out of memory, crashed) before it said anything, or said too much
            verdict = None
    finally:
        child.kill()  # a child that sent its verdict is ending anyway
        child.join()
        receive.close()
    if verdict is None:
        raise CheckpointError(f"loading the model needed more than the loader's {size_text(MEMORY)} of memory, "
                              "or crashed.", "memory", "load_memory_or_crash", {"limit": size_text(MEMORY)})
    if verdict["refused"]:
        raise CheckpointError(verdict["refused"], verdict["kind"], verdict["code"], verdict["fields"])


def _child(folder: str, send, memory: int) -> None:
    """The probe itself, in the forked child: its limits (memory, NICE) first, its output nowhere (a tokenizer's panic
    writes to file descriptor 2), one torch thread; then its verdict on `send`."""
    import resource  # POSIX's: on Windows the child ends here, and the probe refuses every model

    resource.setrlimit(resource.RLIMIT_AS, within_hard_limit(memory))
    os.nice(NICE)
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    torch.set_num_threads(1)
    send.send_bytes(verdict_of(folder, memory).encode())


def within_hard_limit(memory: int) -> tuple[int, int]:
    """RLIMIT_AS's (soft, hard) for a child held to `memory` bytes, or to the hard limit the server itself runs under
    if that is lower (a service's own bound): a process cannot raise its hard limit, and asking to failed every probe
    under a 3.5 GB hard limit."""
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    held = memory if hard == resource.RLIM_INFINITY else min(memory, hard)
    return held, held


def _verdict(line: str) -> dict | None:
    """The child's verdict: {"refused": its reason ("" when it found none), "kind": the reason's kind, "code" and
    "fields": CheckpointError's}; None if it sent none."""
    try:
        verdict = json.loads(line)
        fields = {str(k): v for k, v in dict(verdict["fields"]).items() if isinstance(v, (str, int))}
        return {"refused": str(verdict["refused"]), "kind": verdict["kind"] if verdict["kind"] in KINDS else "invalid",
                "code": str(verdict["code"]), "fields": fields}
    except (ValueError, IndexError, KeyError, TypeError, AttributeError):
        return None


def try_out(folder) -> None:
    """What the child does: load, tokenize a plain sentence, run the model once; raise if anything is wrong."""
    loaded = load(folder)
    ids = {side: tok.encode(SENTENCE) or [tok.unk_id] for side, tok in loaded.tokenizers.items()}
    cfg = loaded.config
    src = torch.tensor([ids["src"][:cfg.max_len]]) if cfg.has_encoder else None
    tgt = torch.tensor([[cfg.bos_id, *ids.get("tgt", [])][:cfg.max_len]]) if cfg.has_decoder else None
    with torch.no_grad():
        out = loaded.model(src, tgt)  # logits, or an encoder's last hidden states
    if not torch.isfinite(out).all():
        raise CheckpointError("the model's outputs on a plain sentence are not finite numbers (NaN or infinity): "
                              "its weights are too large to compute with.", "numbers", "outputs_not_finite")


def verdict_of(folder: str, memory: int = MEMORY) -> str:
    """try_out(folder)'s verdict, under a limit of `memory` bytes, as a line of JSON: {"refused": the reason ("" when
    none), "kind", "code", "fields"}."""
    try:
        try_out(folder)
        refused, kind, code, fields = "", "invalid", "", {}
    except CheckpointError as e:
        refused, kind, code, fields = str(e), e.kind, e.code, e.fields
    except RecursionError:
        refused, kind, code, fields = "a file of the model nests too deeply to be read.", "invalid", "too_deep", {}
    except BaseException as e:  # a Rust panic from a tokenizer is a BaseException too
        if isinstance(e, KeyboardInterrupt):
            raise
        if isinstance(e, MemoryError) or (isinstance(e, RuntimeError) and "can't allocate memory" in str(e)):
            refused, kind = f"loading the model needed more than the loader's {size_text(memory)} of memory.", "memory"
            code, fields = "load_memory", {"limit": size_text(memory)}  # ^ torch's CPU allocator says it so
        else:
            refused, kind = f"the model could not be loaded ({type(e).__name__}: {e}).", "crash"
            code, fields = "load_crash", {"detail": shortened(f"{type(e).__name__}: {e}", 200)}
    # the caller words its folders its way
    return json.dumps({"refused": shortened(refused), "kind": kind, "code": code, "fields": fields})


def main(folder: str) -> int:
    print(verdict_of(folder))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
