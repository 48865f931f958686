"""A visitor's tokenizers, run in a child process that is stopped when a text takes too long.

A tokenizer.json's pre-tokenizer is a regular expression, and one with nested repeats (`(?:a|a){1,22}b`) backtracks
for a time exponential in what the text repeats: 300 "a"s took 19 s, 1,000 took minutes. The probe's one sentence is
fast, so such a model is accepted; its owner's text then held the server's interpreter lock (the tokenizers library
keeps it during `encode`) and every other visitor's page waited (21.4 s and 47.7 s for a page that took 0.05 s).
Nothing can stop a regular expression inside the library, but a process can be killed: `bounded` gives each
tokenizer of a visitor's model a child process (forked from the probe's fork server, FORKS) that encodes its texts,
one at a time. A text not encoded within ENCODE_SECONDS is refused (CodedError "tokenizer_slow"), the child is
killed, and the next text starts a fresh one. Everything else a tokenizer does (decode, the vocabulary, the special
ids) reads no text through a regular expression and stays in the server.
"""
from __future__ import annotations

import dataclasses
import json
import os
import threading
import weakref

from ..messages import CodedError
from .probe import CHILDREN, FORKS, MEMORY, NICE, within_hard_limit

ENCODE_SECONDS = 5.0  # the text box's 2,000 characters take milliseconds with any ordinary tokenizer
NAME = CHILDREN + "tokenizer"
REPLY_BYTES = 2**22  # ids of 2,000 characters as JSON: a few tens of KB


class BoundedTokenizer:
    """A tokenizer whose `encode` (and `pieces`, which encodes) runs in a child process held to ENCODE_SECONDS per
    text; every other attribute is the tokenizer's own."""

    def __init__(self, tokenizer):
        self._inner = tokenizer
        self._lock = threading.Lock()  # one text at a time: the child answers in order
        self._child = self._conn = None
        weakref.finalize(self, _stop, self.__dict__)

    def __getattr__(self, name):  # only for what this class does not define
        if name == "_inner":  # not set yet (a copy being made): never look it up in itself
            raise AttributeError(name)
        return getattr(self._inner, name)

    def __repr__(self) -> str:
        return f"BoundedTokenizer({self._inner!r})"

    def encode(self, text: str, add_bos: bool = False, add_eos: bool = False) -> list[int]:
        with self._lock:
            conn = self._started()
            conn.send_bytes(json.dumps([text, add_bos, add_eos]).encode())
            if not conn.poll(ENCODE_SECONDS):  # True as well when the child ended without a word
                _stop(self.__dict__)
                raise CodedError(f"The tokenizer took over {ENCODE_SECONDS:g} s on this text and was stopped: its "
                                 "rules can take a time that grows very fast with what a text repeats.",
                                 "tokenizer_slow", {"seconds": f"{ENCODE_SECONDS:g}"})
            try:
                kind, value = json.loads(conn.recv_bytes(REPLY_BYTES))
            except (EOFError, OSError, ValueError):  # it ended (out of memory, crashed) or said too much
                _stop(self.__dict__)
                raise CodedError("The tokenizer failed on this text.", "tokenizer_failed") from None
        if kind == "error":
            raise CodedError(value, "tokenizer_failed")
        return value

    def pieces(self, text: str) -> list[str]:
        return [self._inner.id_to_piece(i) for i in self.encode(text)]

    def _started(self):
        if self._child is None or not self._child.is_alive():
            _stop(self.__dict__)
            ours, theirs = FORKS.Pipe()
            self._child = FORKS.Process(target=_serve, args=(self._inner, theirs, MEMORY), name=NAME, daemon=True)
            self._child.start()
            theirs.close()
            self._conn = ours
        return self._conn


def _stop(state: dict) -> None:
    """Kill the child of a BoundedTokenizer (its __dict__), if it has one; also when the tokenizer is dropped."""
    child, conn = state.get("_child"), state.get("_conn")
    state["_child"] = state["_conn"] = None
    if conn is not None:
        conn.close()
    if child is not None:
        child.kill()
        child.join()


def _serve(tokenizer, conn, memory: int) -> None:
    """The child: its limits first (as the probe's), its output nowhere; then each text's ids, or its error."""
    import resource  # POSIX's

    resource.setrlimit(resource.RLIMIT_AS, within_hard_limit(memory))
    os.nice(NICE)
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    while True:
        try:
            text, add_bos, add_eos = json.loads(conn.recv_bytes())
        except (EOFError, OSError):  # the server closed its end
            return
        try:
            reply = ["ids", tokenizer.encode(text, add_bos, add_eos)]
        except Exception as error:  # noqa: BLE001 - the tokenizer's own refusal (CodedError), said as it is
            reply = ["error", str(error)[:300]]
        conn.send_bytes(json.dumps(reply).encode())


def bounded(loaded):
    """The Loaded model with each tokenizer a BoundedTokenizer (the same object for sides that share one)."""
    wrapped = {}
    tokenizers = {side: wrapped.setdefault(id(tok), BoundedTokenizer(tok)) for side, tok in loaded.tokenizers.items()}
    return dataclasses.replace(loaded, tokenizers=tokenizers)
