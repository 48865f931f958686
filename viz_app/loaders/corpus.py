"""The held-out corpus: the sentences a head's queries and keys are drawn from, and those queries and keys, traced
a batch at a time, each batch cached with st.cache_data (the explorer's Q/K space, views/qk_space.py).

qk_corpus joins the cached batches and caches nothing itself; it reads held_out and qk_batch through this
module's names, so replacing them here (as tests do) reaches it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st
import torch

from core_model import checkpoints
from core_model.trace import run_with_trace
from core_model.training import tasks
from core_model.training.tasks import TASKS

from ..batch import pad_rows
from ..text import prepare, token_labels
from ..views.blocks import SIDES  # which side feeds a block's queries and its keys
from . import models

__all__ = ["QK_SENTENCES", "QK_TOKENS", "QK_BATCH", "QK_BORROWED", "HeldOut", "held_out", "QKCorpus", "qk_ids",
           "qk_batch", "qk_corpus"]

QK_SENTENCES = 64  # held-out sentences a head's queries and keys are drawn from: a few thousand points at most
QK_TOKENS = 32  # tokens of a sentence at most, on each side (<s>, or [CLS] and [SEP], included)
QK_BATCH = 16  # sentences traced in one forward pass: the progress bar moves after each batch
QK_BORROWED = models.DEFAULT_MODEL  # the task whose sentences a model with none of its own (MiniLM, a user's) reads


@dataclass(frozen=True)
class HeldOut:
    """The sentences a model's queries and keys are drawn from, as each of its sides reads them."""
    task: str  # the corpus's task: its held-out test split, as core_model.training.evaluate takes it (corpus(task, 0)["test"])
    own: bool  # the model's own task's; else the model has none and borrows QK_BORROWED's
    src: tuple[str, ...]  # per sentence, what the encoder reads ("" for a model without one)
    tgt: tuple[str, ...]  # per sentence, what the decoder reads after <s> ("" for a model without one)


@st.cache_data(max_entries=8, max_size="1MB", show_spinner=False)
def held_out(name: str) -> HeldOut:
    """The first QK_SENTENCES held-out test sentences of the model's task (seed 0, as evaluate.py draws them:
    translate-en-fr's come after its 150,000 training pairs, ~11 s). A translator reads both sides of each pair; a
    one-sided model reads the English: a language model's sentence, or a borrowed pair's source."""
    cfg = models.load_model(name).config
    task = models.shipped_task(name)
    pairs = tasks.held_out((task or TASKS[QK_BORROWED]).name)["test"][:QK_SENTENCES]  # drawn once per server
    if cfg.architecture == "encoder-decoder":
        src, tgt = tuple(s for s, _, _ in pairs), tuple(t for _, t, _ in pairs)
    else:
        english = tuple(s if s is not None else t for s, t, _ in pairs)
        none = ("",) * len(english)
        src, tgt = (english, none) if cfg.has_encoder else (none, english)
    return HeldOut((task or TASKS[QK_BORROWED]).source, task is not None, src, tgt)


@dataclass(frozen=True)
class QKCorpus:
    """One attention block's layer over held-out sentences: every head's queries and keys at the sentences' real
    tokens (no padding), sentence after sentence, as the trace records them (RoPE's rotated)."""
    q: np.ndarray  # [heads, n_q, d_head]
    k: np.ndarray  # [heads, n_k, d_head]
    q_tokens: tuple[str, ...]  # [n_q] "3·the": each query's token, with its position in its sentence
    k_tokens: tuple[str, ...]  # [n_k]
    q_sentence: np.ndarray  # [n_q] int: the index in q_texts of the sentence each query is in
    k_sentence: np.ndarray  # [n_k] int: the same in k_texts
    q_texts: tuple[str, ...]  # the sentences the queries are read from (the target's, in cross-attention)
    k_texts: tuple[str, ...]  # the sentences the keys are read from
    q_frame: np.ndarray  # [n_q] bool: the token is a [CLS] or [SEP] framing its sentence (False if nothing frames it)
    k_frame: np.ndarray  # [n_k] bool


def qk_ids(loaded: checkpoints.Loaded, side: str, text: str) -> tuple[int, ...]:
    """A held-out sentence's ids on `side` as `run` lays them out, within QK_TOKENS and the model's positions: the
    encoder reads the text (BERT's in [CLS] … [SEP]), the decoder <s> and then the text."""
    limit = min(QK_TOKENS, loaded.config.positions)
    if side == "src":
        return prepare(loaded.tokenizers["src"], text, limit).ids
    return (loaded.config.bos_id, *prepare(loaded.tokenizers["tgt"], text, limit - 1).ids)


@st.cache_data(max_entries=64, max_size="12MB", show_spinner=False)
def qk_batch(name: str, block: str, layer: int, first: int) -> QKCorpus:
    """Held-out sentences first … first + QK_BATCH - 1 padded into one batch and traced, keeping only `block`'s q and
    k at `layer`; each row cut to its sentence's own tokens (sentence indices and texts are the batch's)."""
    loaded = models.load_model(name)
    cfg = loaded.config
    sentences = held_out(name)
    texts = {"src": sentences.src[first:first + QK_BATCH], "tgt": sentences.tgt[first:first + QK_BATCH]}
    ids = {side: [qk_ids(loaded, side, text) for text in texts[side]] for side in cfg.sides}
    batch = {side: torch.as_tensor(pad_rows(rows, cfg.pad_id)) for side, rows in ids.items()}  # [b, longest]
    stack, kind = block.split(".")
    prefix = f"{stack}.layers.{layer}.{kind}."
    _, trace = run_with_trace(loaded.model, batch.get("src"), batch.get("tgt"), names=[prefix + "q", prefix + "k"],
                              stop_after=prefix + "k")  # k comes after q: the rest of the model is not needed
    fields = {}
    for leaf, side in zip("qk", SIDES[block]):
        full = trace[prefix + leaf]  # [b, h, longest, d_head]
        rows = ids[side]
        fields[leaf] = np.concatenate([full[i, :, :len(r)] for i, r in enumerate(rows)], axis=1)  # [h, Σ n, d_head]
        fields[f"{leaf}_tokens"] = tuple(x for r in rows for x in token_labels(loaded.tokenizers[side], r))
        fields[f"{leaf}_sentence"] = np.repeat(np.arange(len(rows)), [len(r) for r in rows])  # [Σ n]
        fields[f"{leaf}_texts"] = texts[side]
        tok = loaded.tokenizers[side]
        ends = (tok.bos_id, tok.eos_id) if tok.frames_input else ()
        fields[f"{leaf}_frame"] = np.array([x in ends for r in rows for x in r], bool)  # [Σ n]
    return QKCorpus(**fields)


def qk_corpus(name: str, block: str, layer: int, progress=None) -> QKCorpus:
    """Every held-out sentence through `block` at `layer`, QK_BATCH at a time: each batch cached, so the model runs
    once per model, block and layer, and another head re-reads them; `progress(done, total)` after each batch."""
    firsts = range(0, len(held_out(name).src), QK_BATCH)
    parts = []
    for done, first in enumerate(firsts, 1):
        parts.append(qk_batch(name, block, layer, first))
        if progress is not None:
            progress(done, len(firsts))
    fields = {}
    for leaf in "qk":
        fields[leaf] = np.concatenate([getattr(p, leaf) for p in parts], axis=1)  # [h, n, d_head]
        fields[f"{leaf}_frame"] = np.concatenate([getattr(p, f"{leaf}_frame") for p in parts])
        fields[f"{leaf}_sentence"] = np.concatenate([getattr(p, f"{leaf}_sentence") + first
                                                     for p, first in zip(parts, firsts)])  # the batch's → the corpus's
        for field in ("tokens", "texts"):
            fields[f"{leaf}_{field}"] = tuple(x for p in parts for x in getattr(p, f"{leaf}_{field}"))
    return QKCorpus(**fields)
