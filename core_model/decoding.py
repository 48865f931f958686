"""Greedy decoding, beam search and sampling, each with a record of every step.

All three share one step function, `_advance`, which runs the decoder on the prefix (only the
new tokens when a KV cache is used, the whole prefix otherwise) inside a trace and returns the
next-token logits with that step's attention rows. Recording one cached step gives exactly that
step's query rows, so the records cost no extra forward pass.

Every step's `top` lists the most likely next tokens with their probabilities under the
distribution the token was chosen from: the model's softmax for greedy and beam search, the
tempered, top-k / top-p filtered and renormalized distribution for sampling.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch

from .messages import CodedError
from .nn.model import KVCache, Transformer
from .trace import Trace, name_filter, on_device, recording

DEFAULT_MAX_LEN = 64  # generated tokens; also capped by the model's positions (cfg.positions)
# A step keeps only what its record shows, each layer's attention weights: the rest of the step's
# values are freed as the step goes, and the output probabilities are not computed for a trace.
STEP_NAMES = name_filter("decoder.layers.*.pattern")


@dataclass(frozen=True)
class Step:
    """One decoding step: what the decoder saw, what it predicted, what was chosen.

    `top` holds (token id, probability) pairs, most likely first, under the distribution the
    token was chosen from (see the module docstring). `self_attn` is this step's query row of
    every decoder layer's self-attention [layers, heads, len(prefix)]; `cross_attn` the same for
    cross-attention over the source [layers, heads, src_len], None for a decoder-only model.
    """
    index: int
    prefix: tuple[int, ...]  # decoder input so far: bos (+ the prompt of a decoder-only model) + output
    logits: np.ndarray  # [vocab] float32, raw (before temperature or filters)
    top: tuple[tuple[int, float], ...]
    chosen: int
    self_attn: np.ndarray  # [layers, heads, len(prefix)]
    cross_attn: np.ndarray | None  # [layers, heads, src_len]


@dataclass(frozen=True)
class Beam:
    """One beam-search hypothesis after a step; enough to draw the beam tree.

    `score` is the sum of the log-probabilities of `tokens`; `normalized` divides it by the GNMT
    length penalty ((5 + len(tokens)) / 6) ** alpha. `parent` indexes the previous step's beams
    (-1 at the first step); `finished` means the last token is eos.
    """
    tokens: tuple[int, ...]  # generated tokens, without bos, with eos if finished
    score: float
    normalized: float
    parent: int
    finished: bool


@dataclass(frozen=True)
class BeamStep:
    """The beams after one step: the live ones first (in decoder batch order), then those that ended here."""
    index: int
    beams: tuple[Beam, ...]


@dataclass(frozen=True)
class Decoded:
    """A decoding result.

    `ids` are the generated tokens without bos, eos or (decoder-only) the prompt. `log_prob` is
    their log-probability under the model (eos included when it ended the output). For beam
    search, `steps` follow the best hypothesis, `beams` hold the whole tree and `hypotheses` the
    final candidates, best normalized score first.
    """
    ids: tuple[int, ...]
    steps: tuple[Step, ...]
    finished_by: str  # "eos", "max_len", or "time" (the call's `seconds` ran out first)
    log_prob: float
    beams: tuple[BeamStep, ...] | None = None
    hypotheses: tuple[Beam, ...] | None = None


@dataclass
class _Run:
    """What one decoding call carries between steps."""
    model: Transformer
    memory: torch.Tensor | None  # [1, s, d_model]
    memory_mask: torch.Tensor | None  # [1, 1, 1, s]
    cache: KVCache | None
    start: tuple[int, ...]  # bos, plus the prompt of a decoder-only model
    budget: int  # how many tokens may be generated
    deadline: float = float("inf")  # time.monotonic() after which no new step starts
    edits: tuple = ()  # trace.edits made in every forward pass (heads knocked out), the encoder's included

    def out_of_time(self) -> bool:
        return time.monotonic() > self.deadline


def _start(model: Transformer, src_ids, max_len: int, use_cache: bool, seconds: float | None = None,
           edits=()) -> _Run:
    """Check the arguments, run the encoder once, and work out the step budget and the deadline."""
    cfg = model.cfg
    if not cfg.has_decoder:
        raise CodedError("an encoder-only model has no decoder, so it cannot generate tokens.", "no_decoder")
    if model.training:
        raise ValueError("the model is in training mode; call model.eval() so dropout does not change the output.")
    if isinstance(max_len, bool) or not isinstance(max_len, int) or max_len < 1:
        raise CodedError(f"max_len is {max_len!r}, but must be a whole number of at least 1.",
                         "bad_argument", {"name": "max_len"})
    src = [int(i) for i in src_ids]
    side = "src" if cfg.has_encoder else "tgt"
    vocab = getattr(cfg, f"{side}_vocab_size")
    if any(not 0 <= i < vocab for i in src):
        raise CodedError(f"every source id must be from 0 to {vocab - 1}, the model's {side} vocabulary.", "source_ids",
                         {"most": vocab - 1})
    memory = memory_mask = None
    if cfg.has_encoder:
        if not src:
            raise CodedError("the source is empty; an encoder-decoder model needs at least one source token.",
                             "empty_source")
        with torch.no_grad(), recording(names=(), edits=edits):  # nothing kept; the encoder's edits made
            memory, memory_mask = model.encode(on_device(model, torch.tensor([src])))
        start = cfg.decoder_start  # bos, and an mBART-50's target language (ModelConfig.forced_bos_id)
    else:
        start = (cfg.bos_id, *src)  # a decoder-only model continues its prompt
    # Keep the whole output (prefix + last token) within the positions the model knows.
    budget = min(max_len, cfg.positions - len(start))
    if budget < 1:
        raise CodedError(f"the prompt of {len(src)} tokens leaves no room below the model's {cfg.positions} positions.",
                         "no_room", {"n": len(src), "positions": cfg.positions})
    deadline = float("inf") if seconds is None else time.monotonic() + seconds
    if any(edit.position is not None for edit in edits):  # a cached step's positions start at 0 again
        raise ValueError("decoding makes an edit at every position: give it no position.")
    return _Run(model, memory, memory_mask, model.new_cache() if use_cache else None, start, budget, deadline,
                tuple(edits))


def _last_query(name: str, pattern: torch.Tensor) -> torch.Tensor:
    """What a step keeps of a block's weights [b, h, q, k]: the last query's row, copied, so the rest is freed (a
    2,048-token prompt's first step would otherwise hold every layer's [h, 2048, 2048])."""
    return pattern[:, :, -1:].clone()


def _advance(run: _Run, prefixes: torch.Tensor):
    """Run the decoder on prefixes [b, L] (on the host) and return (logits [b, vocab] on the host, self rows,
    cross rows).

    With a cache only the tokens it has not seen are fed; without, the whole prefix is
    recomputed. Either way the rows are the last query position's attention:
    self [b, layers, heads, L], cross [b, layers, heads, s] or None.
    """
    model, b = run.model, prefixes.shape[0]
    new = on_device(model, prefixes if run.cache is None else prefixes[:, run.cache.length:])
    memory = None if run.memory is None else run.memory.expand(b, -1, -1)  # [b, s, d_model]
    mask = None if run.memory_mask is None else run.memory_mask.expand(b, -1, -1, -1)  # [b, 1, 1, s]
    with torch.no_grad(), recording(names=STEP_NAMES, keep_as=_last_query, edits=run.edits) as values:
        # pad_mask=False: a generated prefix is never padding, even if the model emits pad_id.
        hidden = model.decode(new, memory, mask, pad_mask=False, cache=run.cache)
        logits = model.project(hidden[:, -1:])[:, 0].cpu()  # [b, vocab]: chosen from on the host, a row per beam
    trace, layers = Trace(values), range(model.cfg.n_decoder_layers)

    def rows(kind):
        # each pattern is [b, h, q, k]; keep the last query, stack layers → [b, layers, h, k]
        return np.stack([trace.attn("decoder", i, kind).pattern[:, :, -1] for i in layers], axis=1)

    return logits, rows("self_attn"), rows("cross_attn") if model.cfg.has_encoder else None


def _top(probs: torch.Tensor, n_top: int) -> tuple[tuple[int, float], ...]:
    """The n_top most likely (id, probability) pairs of probs [vocab], most likely first."""
    values, ids = torch.topk(probs, min(n_top, probs.shape[-1]))
    return tuple((int(i), float(p)) for i, p in zip(ids, values))


def _check_n_top(n_top) -> None:
    if isinstance(n_top, bool) or not isinstance(n_top, int) or n_top < 0:
        raise CodedError(f"n_top is {n_top!r}, but must be a whole number of at least 0.",
                         "bad_argument", {"name": "n_top"})


def _sequential(model, src_ids, choose: Callable, max_len: int, use_cache: bool, n_top: int,
                seconds: float | None, edits=()) -> Decoded:
    """One hypothesis, one token per step; `choose(logits [vocab])` → (token, probs [vocab])."""
    _check_n_top(n_top)
    run = _start(model, src_ids, max_len, use_cache, seconds, edits)
    prefix, steps, log_prob = list(run.start), [], 0.0
    for index in range(run.budget):
        if index and run.out_of_time():
            break
        logits, self_rows, cross_rows = _advance(run, torch.tensor([prefix]))
        token, probs = choose(logits[0])
        log_prob += float(torch.log_softmax(logits[0].double(), -1)[token])
        steps.append(Step(index, tuple(prefix), logits[0].numpy().copy(), _top(probs, n_top), token,
                          self_rows[0], None if cross_rows is None else cross_rows[0]))
        if token == model.cfg.eos_id:
            break
        prefix.append(token)
    finished_by = "eos" if steps[-1].chosen == model.cfg.eos_id else "max_len" if len(steps) == run.budget else "time"
    ids = prefix[len(run.start):]
    return Decoded(tuple(ids), tuple(steps), finished_by, log_prob)


def greedy(model: Transformer, src_ids, max_len: int = DEFAULT_MAX_LEN, use_cache: bool = True,
           n_top: int = 5, seconds: float | None = None, edits=()) -> Decoded:
    """Always take the most likely next token. `src_ids` is the prompt of a decoder-only model.

    With `seconds`, no step starts once that much time has passed (finished_by "time"). `edits` (trace.edits
    without a position: zeroed or mean-ablated heads) are made in every forward pass, the encoder's included."""
    def choose(logits):
        probs = torch.softmax(logits, -1)
        return int(torch.argmax(logits)), probs

    return _sequential(model, src_ids, choose, max_len, use_cache, n_top, seconds, edits)


def sampling_distribution(logits: torch.Tensor, temperature: float = 1.0, top_k: int = 0,
                          top_p: float = 1.0) -> torch.Tensor:
    """logits [vocab] → the probabilities sampling draws from: softmax(logits / T), top-k, then top-p.

    top_k=0 keeps every token. top_p keeps the smallest set of most likely tokens whose mass
    reaches top_p (the nucleus; the most likely token always stays), then renormalizes.
    """
    scaled = logits.double() / temperature
    if 0 < top_k < scaled.shape[-1]:
        kth = torch.topk(scaled, top_k).values[-1]
        scaled = scaled.masked_fill(scaled < kth, float("-inf"))
    probs = torch.softmax(scaled, -1)
    if top_p < 1.0:
        # Ranked by the logits, not the probabilities: two logits a hair apart (0.0 and -2e-42) can
        # round to the same probability, and the larger one (argmax's pick) must come first.
        order = torch.sort(scaled, descending=True, stable=True).indices  # ties: lowest id first, as argmax
        sorted_probs = probs[order]
        before = torch.cumsum(sorted_probs, -1) - sorted_probs  # mass of the more likely tokens
        drop = order[before >= top_p]  # the nucleus already reached top_p without them
        probs = probs.index_fill(-1, drop, 0.0)
        probs = probs / probs.sum()
    return probs


def _check_sampling(temperature, top_k, top_p, seed) -> None:
    if not isinstance(temperature, (int, float)) or isinstance(temperature, bool) or not temperature > 0:
        raise CodedError(f"temperature is {temperature!r}, but must be a number above 0.",
                         "bad_argument", {"name": "temperature"})
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 0:
        raise CodedError(f"top_k is {top_k!r}, but must be a whole number of at least 0 (0 = no limit).",
                         "bad_argument", {"name": "top_k"})
    if not isinstance(top_p, (int, float)) or isinstance(top_p, bool) or not 0 < top_p <= 1:
        raise CodedError(f"top_p is {top_p!r}, but must be above 0 and at most 1.", "bad_argument", {"name": "top_p"})
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise CodedError(f"seed is {seed!r}, but must be a whole number.", "bad_argument", {"name": "seed"})


def sample(model: Transformer, src_ids, temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0,
           seed: int = 0, max_len: int = DEFAULT_MAX_LEN, use_cache: bool = True, n_top: int = 5,
           seconds: float | None = None) -> Decoded:
    """Draw each next token from `sampling_distribution`; the same seed gives the same output.

    The draws use a generator of their own, so the global torch RNG is neither read nor moved.
    """
    _check_sampling(temperature, top_k, top_p, seed)
    generator = torch.Generator().manual_seed(seed)

    def choose(logits):
        probs = sampling_distribution(logits, temperature, top_k, top_p)
        return int(torch.multinomial(probs, 1, generator=generator)), probs

    return _sequential(model, src_ids, choose, max_len, use_cache, n_top, seconds)


def length_penalty_gnmt(length: int, alpha: float) -> float:
    """GNMT's length penalty ((5 + length) / 6) ** alpha (Wu et al., 2016); alpha=0 turns it off."""
    return ((5 + length) / 6) ** alpha


@dataclass(frozen=True)
class _Hyp:
    """A beam, the step records along its path, and its parent's batch row (for the cache)."""
    beam: Beam
    steps: tuple[Step, ...]
    row: int = 0


def _expand(run: _Run, live: list[_Hyp], index: int, width: int, alpha: float, n_top: int):
    """One beam-search step: score every extension of every live beam, keep the best.

    Returns (new live hypotheses, hypotheses that ended with eos here). Following the usual
    rule, eos counts only among the `width` best extensions, so a finished hypothesis was
    competitive when it ended.
    """
    prefixes = torch.tensor([run.start + h.beam.tokens for h in live])  # [k, L]
    logits, self_rows, cross_rows = _advance(run, prefixes)
    log_probs = torch.log_softmax(logits.double(), -1)  # [k, vocab]
    totals = torch.tensor([h.beam.score for h in live], dtype=torch.float64)[:, None] + log_probs
    vocab, eos = log_probs.shape[1], run.model.cfg.eos_id
    scores, flat = torch.topk(totals.flatten(), min(2 * width, totals.numel()))
    live_next, ended = [], []
    for rank, (score, position) in enumerate(zip(scores.tolist(), flat.tolist())):
        row, token = divmod(position, vocab)
        if token == eos and rank >= width:
            continue
        parent = live[row]
        tokens = parent.beam.tokens + (token,)
        normalized = score / length_penalty_gnmt(len(tokens), alpha)
        beam = Beam(tokens, score, normalized, row if index else -1, token == eos)
        step = Step(index, tuple(prefixes[row].tolist()), logits[row].numpy().copy(),
                    _top(torch.softmax(logits[row], -1), n_top), token, self_rows[row],
                    None if cross_rows is None else cross_rows[row])
        (ended if token == eos else live_next).append(_Hyp(beam, parent.steps + (step,), row))
        if len(live_next) == width:
            break
    return live_next, ended


def beam_search(model: Transformer, src_ids, width: int = 4, length_penalty: float = 0.6,
                max_len: int = DEFAULT_MAX_LEN, use_cache: bool = True, n_top: int = 5,
                seconds: float | None = None) -> Decoded:
    """Keep the `width` best partial outputs by summed log-probability; rank finished ones by
    that sum over the GNMT length penalty ((5 + len) / 6) ** length_penalty (len counts eos).

    Stops once `width` hypotheses have ended with eos (or at max_len, where the live beams join
    the candidates unfinished). `steps` follow the best hypothesis, like greedy's.
    """
    if isinstance(width, bool) or not isinstance(width, int) or width < 1:
        raise CodedError(f"width is {width!r}, but must be a whole number of at least 1.",
                         "bad_argument", {"name": "width"})
    if isinstance(length_penalty, bool) or not isinstance(length_penalty, (int, float)) or length_penalty < 0:
        raise CodedError(f"length_penalty is {length_penalty!r}, but must be a number of at least 0.",
                         "bad_argument", {"name": "length_penalty"})
    _check_n_top(n_top)
    run = _start(model, src_ids, max_len, use_cache, seconds)
    live = [_Hyp(Beam((), 0.0, 0.0, -1, False), ())]  # the root: just bos (and the prompt)
    finished, tree, stopped = [], [], None  # stopped: "max_len" or "time" when beams were still live
    for index in range(run.budget):
        if index and run.out_of_time():
            stopped = "time"
            break
        live, ended = _expand(run, live, index, width, length_penalty, n_top)
        tree.append(BeamStep(index, tuple(h.beam for h in live + ended)))
        finished += ended
        if len(finished) >= width or not live:
            break
        if run.cache is not None:  # the cache's batch rows must follow the surviving beams
            run.cache.reorder(torch.tensor([h.row for h in live]))
    else:
        stopped = "max_len"
    finished += live if stopped else []  # out of budget or time: unfinished beams compete too
    ranked = sorted(finished, key=lambda h: h.beam.normalized, reverse=True)[:width]
    best = ranked[0]
    ids = best.beam.tokens[:-1] if best.beam.finished else best.beam.tokens
    return Decoded(ids, best.steps, "eos" if best.beam.finished else stopped, best.beam.score,
                   tuple(tree), tuple(h.beam for h in ranked))
