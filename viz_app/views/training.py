"""The Training page's numbers: the learning-rate schedule, label smoothing for one target token, and a
teacher-forced batch with its per-token loss. Plain numpy; the loaders run the model and core's own formulas."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .decoding import rare_in, softmax

D_MODELS = (32, 64, 128, 256, 512, 1024)
WARMUPS = (1, 50, 100, 200, 400, 800, 1600, 4000, 8000)
STEPS = 12000  # the schedule chart's shortest span of steps (longer for a long warm-up or a long training)
EPS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5)
CONFIDENT = 0.999  # the target's probability in the "confident prediction" compared with the smoothed target


@dataclass(frozen=True)
class Schedule:
    """A learning rate per optimizer step 1 … N, and where it peaks (the end of the warm-up)."""
    steps: np.ndarray  # [N] int
    lr: np.ndarray  # [N] float64
    peak_step: int
    peak_lr: float
    first_lr: float  # step 1's rate: the warm-up's start


def schedule(lr) -> Schedule:
    """`lr[i]` is the rate of step i + 1 (as core_model.training.train.learning_rate gives it)."""
    lr = np.asarray(lr, dtype=np.float64)
    peak = int(np.argmax(lr))
    return Schedule(np.arange(1, len(lr) + 1), lr, peak + 1, float(lr[peak]), float(lr[0]))


@dataclass(frozen=True)
class Smoothing:
    """One target token: the model's distribution p beside the smoothed target q = (1 − ε)·one-hot + ε / V."""
    eps: float
    target: int
    p: np.ndarray  # [V] float64: softmax of the model's logits at this position
    q: np.ndarray  # [V] float64
    shown: np.ndarray  # ids drawn: the target first, then the model's most likely others
    loss: float  # H(q, p): the training loss of this token under ε
    floor: float  # H(q): the least any prediction can cost (p = q)
    confident: float  # H(q, p') with p' = CONFIDENT on the target and the rest spread evenly
    rare_mass: float  # Σ p over tokens with p < views.decoding.RARE: how often plain sampling at T = 1 picks one here
    rare_count: int


def _cross_entropy(q: np.ndarray, p: np.ndarray) -> float:
    """−Σ q log p over the tokens q gives weight (0 · log 0 counts as 0)."""
    used = q > 0
    return float(-(q[used] * np.log(p[used])).sum())


def smoothing(logits, target: int, eps: float, n_shown: int = 12) -> Smoothing:
    p = softmax(logits)
    vocab = p.shape[0]
    q = np.full(vocab, eps / vocab)
    q[target] += 1.0 - eps
    others = [int(i) for i in np.argsort(-p, kind="stable") if i != target][:n_shown - 1]
    confident = np.full(vocab, (1.0 - CONFIDENT) / (vocab - 1))
    confident[target] = CONFIDENT
    rare = rare_in(p)
    return Smoothing(eps, target, p, q, np.array([target, *others]), _cross_entropy(q, p), _cross_entropy(q, q),
                     _cross_entropy(q, confident), rare.mass, rare.count)


@dataclass(frozen=True)
class TeacherForcing:
    """A batch as training feeds it: decoder input <s> y, targets y </s>, masks, and each target's loss."""
    src: np.ndarray | None  # [b, s] ids (None for a decoder-only model)
    tgt_in: np.ndarray  # [b, t] ids
    tgt_out: np.ndarray  # [b, t] ids
    kept: np.ndarray  # [b, t] bool: a real target (not padding), the positions the loss counts
    src_kept: np.ndarray | None  # [b, s] bool: the padding mask of the source
    causal: np.ndarray  # [t, t] bool: position i may read positions ≤ i
    loss: np.ndarray  # [b, t] float64, NaN at padding
    mean_loss: float  # the batch's loss: the mean over kept targets


def teacher_forcing(src, tgt_in, tgt_out, token_loss, pad_id: int) -> TeacherForcing:
    tgt_in, tgt_out = np.asarray(tgt_in), np.asarray(tgt_out)
    kept = tgt_out != pad_id
    loss = np.where(kept, np.asarray(token_loss, dtype=np.float64), np.nan)
    src = None if src is None else np.asarray(src)
    width = tgt_in.shape[1]
    return TeacherForcing(src, tgt_in, tgt_out, kept, None if src is None else src != pad_id,
                          np.tril(np.ones((width, width), dtype=bool)), loss, float(np.nanmean(loss)))


@dataclass(frozen=True)
class Forming:
    """One saved step of a training run: every head of one block on one probe, and the curves up to that step."""
    steps: np.ndarray  # every saved step
    step: int
    index: int  # of the step among the saved ones
    patterns: np.ndarray  # [layers, heads, q, k]
    aer: np.ndarray | None  # [saved steps, decoder layers]
    loss_steps: np.ndarray | None  # the training log's steps up to `step`
    loss: np.ndarray | None  # the training loss at those steps


def forming(steps, blocks: dict, block: str, index: int, aer=None, log=None) -> Forming:
    """`blocks` a probe's {block: [steps, layers, heads, q, k]}; `aer` [steps, layers] or None; `log` the run's
    TrainLog or None."""
    index = min(max(index, 0), len(steps) - 1)
    step = int(steps[index])
    loss_steps = loss = None
    if log is not None:
        upto = log.step <= step
        loss_steps, loss = log.step[upto], log.train_loss[upto]
    return Forming(np.asarray(steps), step, index, np.asarray(blocks[block][index], dtype=np.float32), aer, loss_steps,
                   loss)
