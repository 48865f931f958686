"""What training and evaluation share: the tasks, their corpora, and teacher-forced batches and loss.

train.py trains on these and evaluate.py measures on them (and ships a finished run), so both
import this module and neither imports the other back.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType

import torch

from ..config import ModelConfig
from .data import en_fr, reverse
from ..nn.model import Transformer
from ..trace import on_device


LABEL_SMOOTHING = 0.1  # ε of every shipped model's training loss (Vaswani et al., 5.4)


@dataclass(frozen=True)
class Task:
    """What to train: a corpus, tokenizer sizes, a model shape and a training budget."""
    name: str
    config: dict
    vocab: dict  # side -> tokenizer vocabulary size
    steps: int
    batch_size: int = 64
    warmup: int = 400
    lr_factor: float = 1.0
    cooldown: float = 0.0  # the last fraction of the run's steps, over which the rate falls linearly towards 0
    n_train: int = 40000
    extra: dict = field(default_factory=dict)
    tokenizer: str = "unigram"  # every side's sentencepiece model type (bpe: a word's first piece keeps its ▁)
    data: str = ""  # the task whose corpus, known limits and word list this one shares ("": its own)

    @property
    def source(self) -> str:
        return self.data or self.name


TASKS = {
    "translate-en-fr": Task(
        "translate-en-fr",
        dict(architecture="encoder-decoder", d_model=128, n_heads=4, n_encoder_layers=3,
             n_decoder_layers=3, d_ff=256, dropout=0.0, max_len=64),
        vocab={"src": 1200, "tgt": 1700}, tokenizer="bpe", steps=3000, batch_size=128, warmup=400, n_train=150000,
        cooldown=0.3),
    "lm-en": Task(
        "lm-en",
        dict(architecture="decoder", d_model=128, n_heads=4, n_encoder_layers=0, n_decoder_layers=3,
             d_ff=256, dropout=0.1, max_len=512, max_positions=2048, norm_placement="pre", positional="alibi",
             tie_embeddings=True),  # ALiBi has no position table: it reads 4× its training length (card.md)
        vocab={"tgt": 1200}, tokenizer="bpe", steps=3000, warmup=400, cooldown=0.3),
    # lm-en's data and shape with the other choices a model can make: RMSNorm and rotary positions (RoPE)
    "lm-en-rope": Task(
        "lm-en-rope",
        dict(architecture="decoder", d_model=128, n_heads=4, n_encoder_layers=0, n_decoder_layers=3,
             d_ff=256, dropout=0.1, max_len=512, norm_placement="pre", norm="rmsnorm",
             positional="rope", tie_embeddings=True),
        vocab={"tgt": 1200}, tokenizer="bpe", steps=3000, warmup=400, cooldown=0.3, data="lm-en"),
    "reverse": Task(
        "reverse",
        dict(architecture="encoder-decoder", d_model=64, n_heads=2, n_encoder_layers=2,
             n_decoder_layers=2, d_ff=128, dropout=0.0, max_len=48),
        vocab={"src": 400, "tgt": 400}, steps=6000, warmup=200, n_train=20000, cooldown=0.3),
}


def corpus(task: Task, seed: int, n_train: int | None = None) -> dict:
    """The task's splits as lists of (src text or None, tgt text, pair or None)."""
    n_train = n_train or task.n_train
    if task.source == "lm-en":
        sentences = en_fr.english_sentences(seed, n_train + 1000)
        split = {"train": sentences[:n_train], "valid": sentences[n_train:n_train + 500],
                 "test": sentences[n_train + 500:]}
        return {k: [(None, s, None) for s in v] for k, v in split.items()}
    make = en_fr.make_corpus if task.source == "translate-en-fr" else reverse.make_reverse_corpus
    splits = make(seed=seed, n_train=n_train)
    return {k: [(p.src, p.tgt, p) for p in v] for k, v in splits.items()}


@lru_cache(maxsize=4)
def source_words(task_name: str) -> frozenset[str]:
    """Every word the task's inputs are written in: what a model trained on it has seen (en_fr.english_words for
    the English grammar's tasks, the reversal's word list)."""
    return frozenset(reverse.WORDS) if TASKS[task_name].source == "reverse" else en_fr.english_words()


@lru_cache(maxsize=8)
def held_out(task_name: str, seed: int = 0) -> MappingProxyType:
    """The task's valid and test splits as `corpus` gives them, drawn once per process. They come after the
    training pairs in the generator's stream, so drawing them costs the whole corpus (translate-en-fr: 150,000
    pairs, ~10 s, ~270 MiB while it lasts); only these 1,000 rows are kept, read-only, as {"valid": …, "test": …}."""
    splits = corpus(TASKS[task_name], seed)
    return MappingProxyType({k: tuple(splits[k]) for k in ("valid", "test")})


def pad(rows: list[list[int]], pad_id: int) -> torch.Tensor:
    width = max(len(r) for r in rows)
    return torch.tensor([r + [pad_id] * (width - len(r)) for r in rows], dtype=torch.long)


def make_batch(examples, cfg: ModelConfig) -> dict:
    """Teacher forcing: the decoder reads <s> y and must predict y </s>."""
    batch = {"tgt_in": pad([[cfg.bos_id] + t for _, t in examples], cfg.pad_id),
             "tgt_out": pad([t + [cfg.eos_id] for _, t in examples], cfg.pad_id)}
    batch["src"] = pad([s for s, _ in examples], cfg.pad_id) if cfg.has_encoder else None
    return batch


def loss_fn(model: Transformer, batch: dict, smoothing: float) -> tuple[torch.Tensor, int]:
    """Mean cross-entropy per target token (padding left out), and how many target tokens there were."""
    logits = model(batch["src"], batch["tgt_in"])  # [b, t, vocab]
    target = batch["tgt_out"]
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), target.flatten(),
                                             ignore_index=model.cfg.pad_id, label_smoothing=smoothing)
    return loss, int((target != model.cfg.pad_id).sum())


@torch.no_grad()
def token_losses(model: Transformer, batch: dict, smoothing: float) -> torch.Tensor:
    """Each target token's cross-entropy [b, t] under label smoothing `smoothing` (0 at padding), as loss_fn
    takes their mean; on the host."""
    logits = model(on_device(model, batch["src"]), on_device(model, batch["tgt_in"]))  # [b, t, vocab]
    target = on_device(model, batch["tgt_out"])
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), target.flatten(), reduction="none",
                                             ignore_index=model.cfg.pad_id, label_smoothing=smoothing)
    return loss.view(target.shape).cpu()
