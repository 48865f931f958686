"""Train a tiny reversal model step by step, so a class can watch it learn (the Training page's live run).

    run = LiveRun()
    for record in run:          # one Record every `every` steps, and a last one saying how it ended
        print(record.step, record.loss, record.output)

Plain torch, no streamlit. It reuses train.py's own pieces: the task's corpus, `starting_point` (the
tokenizers trained by Tokenizer.train in a temporary folder, removed as soon as they are loaded),
`batches_from` and `optimizer_step` (the warm-up schedule, make_batch, loss_fn with label smoothing).
It stops at the step budget, at the time budget (checked between steps) or when `stop()` is called.
The model and optimizer live in the generator's frame only: when the run ends they are gone.
`main` runs one in a process of its own (`train_elsewhere`; the app's server starts it so: viz_app/live_training.py).
"""
from __future__ import annotations

import dataclasses
import itertools
import os
import pickle
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from ..checkpoints.probe import NICE
from ..decoding import greedy
from .tasks import LABEL_SMOOTHING, TASKS, loss_fn, make_batch
from ..trace import run_with_trace
from .train import batches_from, corpus, encode_pairs, optimizer_step, starting_point

# The reversal task made tiny: it draws the anti-diagonal in well under a minute on 2 CPU cores
# (measured on 2 idle cores: ~2 s of set-up, then ~85 steps/s; the anti-diagonal by step ~400 and the probe
# decoded right by step ~500, about 8 s in; all 900 steps in ~13 s).
TINY = dataclasses.replace(
    TASKS["reverse"],
    config=dict(TASKS["reverse"].config, d_model=32, n_heads=2, n_encoder_layers=1, n_decoder_layers=1, d_ff=64),
    steps=900, batch_size=32, warmup=100, lr_factor=1.0, n_train=4000)
PROBE = "red cat two sun left big one"  # the fixed probe: 7 one-token words, all distinct
EVERY = 20  # steps between records
SECONDS = 60.0  # the hard wall-clock budget of a run, its set-up included
ENDINGS = ("steps", "time", "stopped")


@dataclass(frozen=True)
class Record:
    """Where the run is: after `step` updates, `seconds` since it began."""
    step: int
    loss: float  # mean training loss of the steps since the last record (step 0: the first batch, no update yet)
    seconds: float
    cross: np.ndarray  # [layers, heads, tgt, src] the probe's cross-attention, teacher-forced, eval mode
    output: str  # the probe's greedy decoding
    ended: str | None = None  # on the last record: "steps", "time" or "stopped"


@dataclass(frozen=True)
class Probe:
    """The fixed pair the records show: ids and display pieces of its source and of the decoder's input."""
    src: tuple[int, ...]
    tgt_in: tuple[int, ...]  # <s> + the reversed source
    src_pieces: tuple[str, ...]
    tgt_pieces: tuple[str, ...]
    source: str  # the probe's text
    target: str  # the right output


def mirrored_share(cross: np.ndarray) -> float:
    """Share of the target positions whose largest cross-attention (heads averaged, last layer) is on the mirrored
    source position: decoder input position i predicts source token n-1-i (the last position predicts </s>)."""
    weights = cross[-1].mean(0)  # [tgt, src]
    n = weights.shape[1]
    rows = range(min(n, weights.shape[0]))
    return sum(int(weights[i].argmax()) == n - 1 - i for i in rows) / len(rows)


class LiveRun:
    """One live training run; iterate it once for its records. `stop()` ends it (thread-safe)."""

    def __init__(self, task=TINY, every: int = EVERY, seconds: float = SECONDS, probe: str = PROBE, seed: int = 0,
                 stop=None):
        self.task, self.every, self.seconds, self.probe_text, self.seed = task, every, seconds, probe, seed
        self.probe: Probe | None = None  # set once the tokenizers are trained
        self.folder: Path | None = None  # the temporary folder the tokenizers were trained in (removed)
        self.model = None  # the model while the run goes on, None after
        self._stop = stop or threading.Event()

    def stop(self) -> None:
        """End the run before its next step; the next record is its last."""
        self._stop.set()

    @property
    def steps(self) -> int:
        return self.task.steps

    def __iter__(self):
        started = time.monotonic()
        try:
            yield from self._records(started)
        finally:
            self.model = None

    def _setup(self):
        """The model, tokenizers and optimizer of train.py's fresh start, and the encoded training pairs."""
        splits = corpus(self.task, self.seed)
        # The tokenizers are loaded in memory, so their folder goes at once; the seed sets the model's initial weights
        # without touching the process's random state, which the server's other sessions share (no dropout after).
        with tempfile.TemporaryDirectory(prefix="live-train-") as folder, torch.random.fork_rng(devices=[]):
            torch.manual_seed(self.seed)
            self.folder = Path(folder)
            model, tokenizers, optimizer, _ = starting_point(self.task, splits, self.folder, False, self.seed)
        return model, tokenizers, optimizer, encode_pairs(splits["train"], tokenizers, model.cfg.max_len)

    def _make_probe(self, tokenizers: dict) -> Probe:
        target = " ".join(reversed(self.probe_text.split()))
        src, tgt = tokenizers["src"].encode(self.probe_text), tokenizers["tgt"].encode(target)
        tgt_in = [tokenizers["tgt"].bos_id] + tgt
        return Probe(tuple(src), tuple(tgt_in), tuple(tokenizers["src"].display_pieces(src)),
                     tuple(tokenizers["tgt"].display_pieces(tgt_in)), self.probe_text, target)

    def _record(self, model, tokenizer, step: int, loss: float, started: float, ended=None) -> Record:
        """The probe's cross-attention and greedy output now (eval mode; training mode again after)."""
        model.eval()
        _, trace = run_with_trace(model, self.probe.src, self.probe.tgt_in, names="decoder.*.cross_attn.pattern",
                                  stop_after=f"decoder.layers.{model.cfg.n_decoder_layers - 1}.cross_attn.pattern")
        cross = np.stack([trace.attn("decoder", i, "cross_attn").pattern[0]
                          for i in range(model.cfg.n_decoder_layers)])  # [layers, heads, tgt, src]
        output = greedy(model, self.probe.src, max_len=len(self.probe.tgt_in) + 4, n_top=0)
        model.train()
        return Record(step, float(loss), time.monotonic() - started, cross, tokenizer.decode_visible(output.ids), ended)

    def _records(self, started: float):
        model, tokenizers, optimizer, examples = self._setup()
        self.model, self.probe = model, self._make_probe(tokenizers)
        batches = batches_from(0, examples, self.task.batch_size, self.seed, self.task.steps)
        first = next(batches)
        with torch.no_grad():
            loss = loss_fn(model, make_batch(first, model.cfg), LABEL_SMOOTHING)[0].item()
        yield self._record(model, tokenizers["tgt"], 0, loss, started)
        step, losses, ended = 0, [], "steps"
        for batch in itertools.chain([first], batches):
            if self._stop.is_set() or time.monotonic() - started > self.seconds:
                ended = "stopped" if self._stop.is_set() else "time"
                break
            step += 1
            losses.append(optimizer_step(model, optimizer, batch, self.task, step, self.task.steps)[0].item())
            if step % self.every == 0 and step < self.task.steps:
                loss, losses = float(np.mean(losses)), []
                yield self._record(model, tokenizers["tgt"], step, loss, started)
        loss = float(np.mean(losses)) if losses else loss
        yield self._record(model, tokenizers["tgt"], step, loss, started, ended)


def train_elsewhere(data, commands) -> None:
    """A LiveRun in this process, for the process that started it (through `main`): it reads
    (task, every, seconds) pickled from `commands`, then writes, pickled and flushed to `data`, ("record", probe,
    record) for each record, ("error", text) if the run fails, and None last. A line on `commands`, or its end
    (the parent gone), stops the run at its next step. The parent's memory and interpreter lock are not touched:
    the run's model, optimizer and the modules an optimizer imports (torch._dynamo, sympy: ~120,000 objects) live
    and end here."""
    task, every, seconds = pickle.load(commands)
    stop = threading.Event()
    threading.Thread(target=lambda: (commands.readline(), stop.set()), daemon=True).start()
    torch.set_num_threads(1)  # one core for the run; the server keeps the other for its visitors
    run = LiveRun(task, every, seconds, stop=stop)

    def send(item) -> None:
        pickle.dump(item, data)
        data.flush()

    try:
        try:
            for record in run:
                send(("record", run.probe, record))
        except Exception as error:  # said to the session; the parent never sees a traceback
            send(("error", f"{type(error).__name__}: {error}"))
        finally:
            send(None)
    except BrokenPipeError:  # the parent is gone (the server stopped mid-run): there is nobody left to tell
        pass


def main() -> None:
    """The run's process (`python -c "from core_model.training.live_train import main; main()"`): commands on stdin, the
    pickles on stdout. Whatever else writes to file descriptor 1 (a library's print) goes to stderr instead."""
    data = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    if hasattr(os, "nice"):  # a visitor's run: the server's sessions first (checkpoints.probe.NICE)
        os.nice(NICE)
    train_elsewhere(data, sys.stdin.buffer)
    # Everything is sent and flushed. Exit at once: a normal shutdown would close stdin while the thread waiting for
    # a stop still holds its lock (the parent closes its end only once it has read the last word), and Python then
    # aborts ("could not acquire lock for <stdin> at interpreter shutdown"), exit code -6 instead of 0.
    sys.stderr.flush()
    os._exit(0)
