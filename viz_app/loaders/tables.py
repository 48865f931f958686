"""Tables: what a page needs from a model itself rather than from a text, cached with st.cache_data: its
vocabulary's nearest neighbours, its own positions, a head's weights, what its folder keeps of its training, and
a teacher-forced batch of its task.

The maths is core_model's (nn.position_signal, heads, training) or a view's (views.tokens.nearest); here the model
is fetched and the results labelled.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from core_model import detectors, heads
from core_model.nn import position_signal
from core_model.nn.positional import sinusoidal_table
from core_model.training import tasks
from core_model.training.snapshots import Snapshots, read_snapshots
from core_model.training.train import encode_pairs
from core_model.training.train_log import TrainLog, read_log

from ..text import show_piece
from ..views.tokens import nearest
from .scope import per_visitor
from . import models

__all__ = ["head_detectors", "Neighbours", "vocab_neighbours", "token_pieces", "model_positions", "sinusoid", "parameter_counts",
           "block_weights", "TEACHER_PAIRS", "training_log", "training_snapshots", "TeacherBatch", "teacher_batch"]

# ----- tokens page --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Neighbours:
    """Each token's nearest vocabulary entries by cosine similarity of embedding rows."""
    ids: np.ndarray  # [n, k]
    cosine: np.ndarray  # [n, k]
    vectors: np.ndarray  # [n, k, d_model]
    pieces: tuple[tuple[str, ...], ...]  # [n][k] the neighbours' display pieces


@per_visitor("texts")
@st.cache_data(max_entries=32, max_size="32MB", show_spinner=False)
def vocab_neighbours(name: str, side: str, ids: tuple[int, ...], k: int, texts: tuple[str, ...] = (),
                     scope: str = "") -> Neighbours:
    """The k entries of the `side` embedding matrix nearest each of `ids` (special tokens left out). `texts`, the run's
    source and target the ids were read from, says whose the entry is (scope.py): a visitor's tokens are their own."""
    loaded = models.load_model(name)
    cfg = loaded.config
    weight = getattr(loaded.model, f"{side}_embed").tok.weight.detach().cpu().numpy()  # [vocab, d_model]
    found, cosine = nearest(weight, ids, k, exclude=(cfg.pad_id, cfg.unk_id, cfg.bos_id, cfg.eos_id))
    display = loaded.tokenizers[side].display_pieces
    return Neighbours(found, cosine, weight[found], tuple(tuple(display(row.tolist())) for row in found))


def token_pieces(name: str, side: str, ids: tuple[int, ...]) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The `side` tokenizer's display pieces of `ids`, and the word each belongs to (-1: none; cheap, not cached)."""
    tokenizer = models.load_model(name).tokenizers[side]
    return tuple(tokenizer.display_pieces(list(ids))), tuple(tokenizer.word_ids(list(ids)))


# ----- positional page ----------------------------------------------------------------------------

@st.cache_data(max_entries=16, max_size="32MB", show_spinner=False)
def model_positions(name: str, n: int) -> dict:
    """core_model.nn.position_signal.own_positions of the model `name`: its own position numbers, by kind."""
    loaded = models.load_model(name)
    return position_signal.own_positions(loaded.model, loaded.config, n)


@st.cache_data(max_entries=16, max_size="32MB", show_spinner=False)
def sinusoid(length: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The paper's sinusoidal table for the lab's settings: [length, d_model] float32 (1 MiB at 512 × 512)."""
    return sinusoidal_table(length, d_model, base).numpy()


# ----- overview page ------------------------------------------------------------------------------

def parameter_counts(name: str) -> dict[str, int]:
    """Trainable parameters per top-level part of the model (src_embed, encoder, ...), a tied matrix once."""
    return models.load_model(name).model.parameter_counts()


# ----- self-attention step by step: a head's weights ----------------------------------------------

@st.cache_data(max_entries=32, max_size="16MB", show_spinner=False)
def block_weights(name: str, block: str, layer: int, head: int) -> dict[str, np.ndarray]:
    """core_model.heads.head_weights of one head of `block` ('stack.kind') at `layer` of the model `name`."""
    stack, kind = block.split(".")
    module = models.load_model(name).model.get_submodule(f"{stack}.layers.{layer}.{kind}")
    return heads.head_weights(module, head)


# ----- training page ------------------------------------------------------------------------------

TEACHER_PAIRS = 4  # pairs in the teacher-forcing batch the page draws


@st.cache_data(max_entries=16, max_size="1MB", show_spinner=False)
def head_detectors(name: str) -> dict[str, np.ndarray]:
    """Every head's previous-token, duplicate-token and induction score on random tokens repeated once
    (core_model.detectors): a decoder-only model's, {kind: [layers, heads]}; {} for any other."""
    model = models.load_model(name).model
    if not model.cfg.has_decoder or model.cfg.has_encoder:
        return {}
    return detectors.scores(model)


@st.cache_data(max_entries=16, max_size="16MB", show_spinner=False)
def training_log(name: str) -> TrainLog | None:
    """The training log kept in the model's folder (train_log.csv), or None; CheckpointError if it is bad."""
    return read_log(models.model_folder(name))


@st.cache_data(max_entries=4, max_size="64MB", show_spinner=False)
def training_snapshots(name: str) -> Snapshots | None:
    """The attention snapshots kept in the model's folder (attention_steps.safetensors), or None; CheckpointError
    if they are bad."""
    return read_snapshots(models.model_folder(name))


@dataclass(frozen=True)
class TeacherBatch:
    src: np.ndarray | None  # [b, s] ids
    tgt_in: np.ndarray  # [b, t]
    tgt_out: np.ndarray  # [b, t]
    loss: np.ndarray  # [b, t] each target's cross-entropy under LABEL_SMOOTHING (0 at padding)
    pieces: dict  # "src" / "tgt_in" / "tgt_out" -> rows of display pieces


@st.cache_data(max_entries=8, max_size="8MB", show_spinner=False)
def teacher_batch(name: str) -> TeacherBatch:
    """The first pairs of the task's training split (its own generator, seed 0) made into a batch by training's
    own make_batch, and the shipped weights' loss of each target token (eval mode: no dropout)."""
    loaded, task = models.load_model(name), models.shipped_task(name)
    cfg = loaded.config
    pairs = tasks.corpus(task, 0, 16 * TEACHER_PAIRS)["train"]
    batch = tasks.make_batch(encode_pairs(pairs, loaded.tokenizers, cfg.max_len)[:TEACHER_PAIRS], cfg)
    loss = tasks.token_losses(loaded.model, batch, tasks.LABEL_SMOOTHING)  # [b, t], eval mode: no dropout
    sides = {"src": ("src", batch["src"]), "tgt_in": ("tgt", batch["tgt_in"]), "tgt_out": ("tgt", batch["tgt_out"])}
    pieces = {key: [[show_piece(p) for p in loaded.tokenizers[side].display_pieces(row.tolist())] for row in ids]
              for key, (side, ids) in sides.items() if ids is not None}
    return TeacherBatch(None if batch["src"] is None else batch["src"].numpy(), batch["tgt_in"].numpy(),
                        batch["tgt_out"].numpy(), loss.numpy().astype(np.float64), pieces)
