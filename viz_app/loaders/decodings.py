"""Decodings: a model's output token by token (greedy, beam or sampled), cached with st.cache_data.

The decoding page steps through them, and `runs.run` reads the greedy one as a decoder's output. The maths is
core_model.decoding's; here the text is prepared as `run` prepares it and each decoding is bounded in steps and time.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import streamlit as st
import torch

from core_model import decoding, interventions, logit_attribution
from core_model.trace import run_with_trace
from core_model.checkpoints import CheckpointError
from core_model.generation import Generation, read_generation
from core_model.messages import CodedError

from ..text import prepare
from . import cost, models
from .scope import per_visitor

__all__ = ["DECODE_METHODS", "DECODE_TOP", "MAX_DECODE_STEPS", "DECODE_SECONDS", "generation", "decoding_applies",
           "decode", "continuation", "sampling_probs", "knocked_out", "output_score", "logit_parts", "writes_directly", "patched", "PATCH_SECONDS"]

DECODE_METHODS = ("greedy", "beam", "sample")
DECODE_TOP = 10  # candidates kept per step for the page's top-k chart
# Whatever a model's config says (an uploaded one may say max_len 8192 and never pick </s>), a decoding
# takes at most this many steps and starts no step after this many seconds: a cached function cannot be
# interrupted, and a visitor who closes the tab does not stop it.
MAX_DECODE_STEPS = 256
DECODE_SECONDS = 20.0


@st.cache_data(max_entries=16, max_size="1MB", show_spinner=False)
def generation(name: str) -> Generation | None:
    """The model folder's own generation settings (a Hugging Face folder's generation_config.json), or None. Its
    forced_bos_token_id is followed where the import made it the decoder's second start token
    (ModelConfig.forced_bos_id, an mBART-50's target language)."""
    own = read_generation(models.model_folder(name))
    if own is None or models.load_model(name).config.forced_bos_id is None:
        return own
    return dataclasses.replace(own, not_applied=tuple(n for n in own.not_applied if n != "forced_bos_token_id"))


def writes_directly(name: str) -> bool:
    """Whether the model's heads write to its output directly (a pre-norm decoder): what logit_parts needs."""
    return logit_attribution.applies(models.load_model(name).model)


def decoding_applies(architecture: str) -> bool:
    """Only a model with a decoder generates tokens; an encoder-only one has nothing to step through."""
    return architecture in ("encoder-decoder", "decoder")


@per_visitor("src_text")
@st.cache_data(max_entries=32, max_size="64MB", show_spinner=False)
def decode(name: str, src_text: str, method: str = "greedy", width: int = 4, alpha: float = 0.6,
           temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0, scope: str = ""
           ) -> decoding.Decoded:
    """Decode the text with `method` (greedy, beam or sample); the same arguments give the same record.

    The source is prepared exactly as `run` prepares it, so its positions match `run(...).src_labels`.
    Only the arguments of the chosen method matter; the page passes the others at their defaults.
    """
    loaded, ids, common = _source(name, src_text)
    if method == "greedy":
        return decoding.greedy(loaded.model, ids, **common)
    if method == "beam":
        return decoding.beam_search(loaded.model, ids, width=width, length_penalty=alpha, **common)
    if method == "sample":
        return decoding.sample(loaded.model, ids, temperature=temperature, top_k=top_k, top_p=top_p,
                               seed=seed, **common)
    raise CodedError(f"method is {method!r}, but must be one of: {', '.join(DECODE_METHODS)}.", "bad_argument",
                     {"name": "method"})


def _source(name: str, src_text: str) -> tuple:
    """(the loaded model, the source ids as `run` prepares them, the bounds every decoding of them takes)."""
    loaded = models.load_model(name)
    cfg = loaded.config
    if not decoding_applies(cfg.architecture):
        raise CodedError("an encoder-only model has no decoder, so it cannot generate tokens.", "no_decoder")
    side = "src" if cfg.has_encoder else "tgt"
    limit = models.readable(cfg)
    limit = min(limit, cost.visitor_tokens(name, cfg, MAX_DECODE_STEPS) or limit)  # as `run` reads it
    ids = list(prepare(loaded.tokenizers[side], src_text, limit, models.known_words(name)).ids)
    max_len = min(limit - 1, MAX_DECODE_STEPS) if cfg.has_encoder else models.LM_NEW_TOKENS
    try:
        own = generation(name)
    except CheckpointError:  # the page says why it is not used (place/decoding.own_generation) and goes on without it
        own = None
    if own is not None and own.max_new_tokens:  # a forced language code is one of generate()'s new tokens
        max_len = min(max_len, max(1, own.max_new_tokens - len(cfg.decoder_start) + 1))
    return loaded, ids, dict(max_len=max_len, n_top=DECODE_TOP, seconds=DECODE_SECONDS)


@per_visitor("src_text")
@st.cache_data(max_entries=64, max_size="1MB", show_spinner=False)
def knocked_out(name: str, src_text: str, heads: tuple[tuple[str, int, int], ...], scope: str = "") -> tuple[int, ...]:
    """The ids of the greedy decoding with `heads` ((block, layer, head), ...) removed: their outputs zeroed in every
    pass (only the ids are kept: a decoding's every step's logits would be a large model's vocabulary each)."""
    loaded, ids, common = _source(name, src_text)
    return decoding.greedy(loaded.model, ids, **common, edits=[interventions.knockout(*h) for h in heads]).ids


@per_visitor("src_text")
@st.cache_data(max_entries=4096, max_size="1MB", show_spinner=False)
def output_score(name: str, src_text: str, heads: tuple[tuple[str, int, int], ...] = (), scope: str = "") -> float:
    """log P(the greedy output) with `heads` removed, teacher-forced (one pass): what the page's sweep calls for one
    head at a time, each answer kept, so a sweep cut short by its time goes on where it stopped."""
    loaded, ids, _ = _source(name, src_text)
    out = decode(name, src_text)
    return interventions.output_log_prob(loaded.model, ids, out.ids, out.finished_by == "eos",
                                         [interventions.knockout(*h) for h in heads])


@per_visitor("src_text")
@st.cache_data(max_entries=256, max_size="1MB", show_spinner=False)
def logit_parts(name: str, src_text: str, prefix: tuple[int, ...], token: int,
                scope: str = "") -> logit_attribution.Attribution:
    """What each head and the rest write toward `token` after the decoder input `prefix` (a decoding step's), through
    the final norm's frozen scale (core_model.logit_attribution; a pre-norm decoder only, else ValueError)."""
    loaded, ids, _ = _source(name, src_text)
    _, trace = run_with_trace(loaded.model, ids if loaded.config.has_encoder else None, list(prefix))
    return logit_attribution.attribute(loaded.model, trace, len(prefix) - 1, token)


PATCH_SECONDS = 20.0  # a patching grid stops trying heads after this (a cached call cannot be interrupted)


@dataclass(frozen=True)
class Patched:
    """Each head of sentence A's run copied into sentence B's alone (core_model.interventions.patching), at the first
    output step where their outputs part: A's token there against B's."""
    moved: dict  # block → [layers, heads], 0 = as B, 1 = as A, NaN = not tried in time
    whole: dict  # block or "<stack>.ffn" → [layers]: each block's whole output copied
    done: bool
    step: int  # the output step (0 = the first token) where A's and B's outputs first differ
    token_a: int
    token_b: int


@per_visitor("text_a", "text_b")
@st.cache_data(max_entries=32, max_size="1MB", show_spinner=False)
def patched(name: str, text_a: str, text_b: str, scope: str = "") -> Patched:
    """Activation patching from text A's run into text B's, which must read the same number of tokens; the decoder
    input is what both outputs share up to where they part (CodedError "patch_lengths", "patch_same" otherwise)."""
    loaded, ids_a, _ = _source(name, text_a)
    _, ids_b, _ = _source(name, text_b)
    if len(ids_a) != len(ids_b):
        raise CodedError(f"the two sentences must read as many tokens each to copy a head from one run into the "
                         f"other; they read {len(ids_a)} and {len(ids_b)}.", "patch_lengths",
                         {"a": len(ids_a), "b": len(ids_b)})
    cfg, eos = loaded.config, loaded.config.eos_id
    out_a, out_b = ([*decode(name, text).ids, eos] for text in (text_a, text_b))
    step = next((i for i, (x, y) in enumerate(zip(out_a, out_b)) if x != y), None)
    if step is None:
        raise CodedError("the two sentences give the same output: there is no difference to move.", "patch_same")
    runs = [(ids, [*cfg.decoder_start, *out_a[:step]]) if cfg.has_encoder else (None, [cfg.bos_id, *ids, *out_a[:step]])
            for ids in (ids_a, ids_b)]
    moved, whole, done = interventions.patching(loaded.model, *runs, len(runs[0][1]) - 1, out_a[step], out_b[step],
                                                seconds=PATCH_SECONDS)
    return Patched(moved, whole, done, step, out_a[step], out_b[step])


def continuation(name: str, src_text: str) -> str | None:
    """A model's greedy output as a reader sees it (a stray byte as <C3>); None when the prompt leaves a decoder-only
    model no room to continue. Only the overview shows a decoder-only model's: `run` does not decode it (at real size
    the prompt's first step costs as much as the traced forward pass)."""
    try:
        ids = decode(name, src_text).ids
    except ValueError:  # an empty source, or a prompt that leaves no room to continue
        return None
    return models.load_model(name).tokenizers["tgt"].decode_visible(list(ids))


def sampling_probs(logits, temperature: float, top_k: int, top_p: float):
    """A step's distribution as sampling draws from it (core_model.decoding.sampling_distribution), over the whole
    vocabulary as numpy: what the decoding page redraws while its sliders move. Not cached: one softmax."""
    return decoding.sampling_distribution(torch.from_numpy(logits), temperature, top_k, top_p).numpy()
