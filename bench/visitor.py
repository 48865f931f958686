"""The load test's visitors, whoever drives them (bench.load's browsers or bench.protocol's clients).

Each visitor has sentences no other has, and checks it saw only its own: the labels below are the source
tokens the decoding page's cross-attention chart must show for each sentence.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlparse

from viz_app.text import prepare, token_labels

from .core import load

MODEL = "translate-en-fr"
CROSS = "every head's row over the source"  # the decoding page's cross-attention chart, x = source labels
MAX_SESSIONS = 50  # the test's own bound: one chromium holds every session's context
# The actions of a round after the first page (bench.load.one_round, bench.protocol.one_round).
ROUND = ("page switch", "new sentence", "layer", "head", "page switch", "decoding step", "page switch")
FRONTEND = "frontend files"  # a protocol client's fetch of what a browser fetches first: an arrival, not a rerun
ARRIVAL = (FRONTEND, "first page")  # timed, but not reruns


@dataclass
class Session:
    """One simulated visitor: its sentences, its rerun times and every error it saw."""
    index: int
    sentences: list[str]
    times: list[tuple[str, float]] = field(default_factory=list)  # (action, seconds)
    errors: list[str] = field(default_factory=list)
    own_view: list[bool] = field(default_factory=list)  # each check that it saw its own sentence
    layer: int = 0
    head: int = 0


def expected_labels(sentences: list[str]) -> dict[str, list[str]]:
    """The source-token labels ("3·car") each sentence must show, made as the app makes them."""
    loaded = load(MODEL)
    tok = loaded.tokenizers["src"]
    return {s: list(token_labels(tok, prepare(tok, s, loaded.config.max_len - 1).ids)) for s in sentences}


def visitors(base: str, n: int, rounds: int, seed: int) -> tuple[list[Session], dict[str, list[str]]]:
    """n sessions, each with rounds + 1 sentences of its own, and every sentence's labels; refuses more than
    MAX_SESSIONS sessions or a server not on 127.0.0.1."""
    from core_model.training.data import english_sentences

    if not 0 < n <= MAX_SESSIONS:
        raise ValueError(f"sessions must be 1 to {MAX_SESSIONS}, not {n}")
    if urlparse(base).hostname != "127.0.0.1":
        raise ValueError(f"the load test drives a server on 127.0.0.1 only, not {base}")
    pool = english_sentences(seed, n * (rounds + 1))
    return [Session(i, pool[i * (rounds + 1):(i + 1) * (rounds + 1)]) for i in range(n)], expected_labels(pool)


def unfinished(sessions: list[Session], rounds: int, deadline_s: float) -> None:
    """Past the test's deadline: every session that did not time all its actions counts an error."""
    for s in sessions:
        if sum(name != FRONTEND for name, _ in s.times) < 1 + len(ROUND) * rounds:
            s.errors.append(f"deadline: the test's {deadline_s:.0f} s ran out")
