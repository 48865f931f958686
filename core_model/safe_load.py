"""What every checkpoint loader shares: ours (checkpoint.py) and the Hugging Face BERT import (bert.py).

The error that names what is wrong, the loaded result, the size limits, and tensors read from
model.safetensors and checked name by name and shape by shape. Both loaders build on this
module, and checkpoint.load hands a BERT folder to bert.load, so the arrows go one way:
checkpoint → bert → safe_load. Nothing is unpickled: safetensors and JSON hold data only.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_safetensors

from .config import ModelConfig
from .model import Transformer

CONFIG, WEIGHTS, CARD = "config.json", "model.safetensors", "card.md"
MAX_WEIGHT_BYTES = 512 * 2**20  # far above any model that runs on a laptop CPU in class
MAX_FILE_BYTES = 32 * 2**20  # any other file; the shipped ones are under 1 MB, a BERT tokenizer.json a few
MAX_LAYERS = 96  # per stack: each layer is built (and takes memory) before any weight is read


class CheckpointError(ValueError):
    """A checkpoint folder that cannot be loaded; the message says which file and why."""


@dataclass(frozen=True)
class Loaded:
    """A model ready to run, in eval mode, with its tokenizers by side ('src', 'tgt') and its card."""
    model: Transformer
    config: ModelConfig
    tokenizers: dict
    card: str
    path: Path


def required(path: Path, name: str) -> Path:
    f = path / name
    if not f.is_file():
        raise CheckpointError(f"the checkpoint folder {path} has no {name}.")
    return f


def size_text(n: int) -> str:
    if n >= 2**20:
        return f"{n / 2**20:,.0f} MB" if n >= 10 * 2**20 else f"{n / 2**20:.1f} MB"
    return f"{n / 2**10:,.0f} KB" if n >= 2**10 else f"{n:,} bytes"


def within_limit(f: Path) -> Path:
    """The file, if it is no larger than a file of its name may be (read whole, it must fit in memory)."""
    limit = MAX_WEIGHT_BYTES if f.name == WEIGHTS else MAX_FILE_BYTES
    size = f.stat().st_size
    if size > limit:
        raise CheckpointError(f"{f.name} is {size_text(size)}, over the limit of {size_text(limit)}.")
    return f


def safetensors_problem(data: bytes) -> str | None:
    """Why `data` is plainly not a whole safetensors file (a pickle, or cut short), else None.

    A safetensors file is an 8-byte header length, a JSON header, then the tensors' bytes.
    """
    if data[8:9] != b"{":
        if data[:1] == b"\x80" or data[:4] == b"PK\x03\x04":
            return ("holds a pickle (what torch.save writes), not safetensors data; loading a pickle can run any "
                    "code, so it is not read.")
        return None  # safetensors itself names what is wrong
    header_end = 8 + int.from_bytes(data[:8], "little")
    if header_end > len(data):
        return f"is truncated: its header alone should take {header_end:,} bytes, but the file has {len(data):,}."
    try:
        header = json.loads(data[8:header_end])
        end = header_end + max((v["data_offsets"][1] for k, v in header.items() if k != "__metadata__"), default=0)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        return None  # safetensors itself names what is wrong
    if end > len(data):
        return f"is truncated: it should be {end:,} bytes long, but has {len(data):,}."
    return None


def check_size(cfg: ModelConfig) -> None:
    """Refuse a config whose model is too big to build, before any memory is taken for it."""
    for stack, n in (("encoder", cfg.n_encoder_layers), ("decoder", cfg.n_decoder_layers)):
        if n > MAX_LAYERS:
            raise CheckpointError(f"{CONFIG} asks for {n} {stack} layers, more than the {MAX_LAYERS} the loader builds.")
    d = cfg.d_model
    tables = cfg.max_len if cfg.positional in ("sinusoidal", "learned") else 0
    n = sum(getattr(cfg, f"{side}_vocab_size") + tables for side in cfg.sides) * d  # embeddings
    n += (cfg.n_encoder_layers * cfg.has_encoder + cfg.n_decoder_layers * cfg.has_decoder) * (4 * d * d + 2 * d * cfg.d_ff)
    n += cfg.tgt_vocab_size * d if cfg.has_decoder and not cfg.tie_embeddings else 0  # the output layer
    if 4 * n > MAX_WEIGHT_BYTES:  # a lower bound: biases and norms left out
        raise CheckpointError(f"{CONFIG} describes a model of over {n / 1e6:,.0f} million weights ({size_text(4 * n)}), "
                              f"over the limit of {size_text(MAX_WEIGHT_BYTES)}.")


def read_tensors(path: Path, expected: dict[str, torch.Tensor], rename: dict[str, str] | None = None,
                 ignore: tuple[str, ...] = ()) -> dict[str, torch.Tensor]:
    """model.safetensors' tensors, renamed by `rename` (file name -> ours), each checked against `expected`.

    Names in `ignore` may be in the file and are left out; any other name must match exactly.
    """
    data = within_limit(required(path, WEIGHTS)).read_bytes()
    problem = safetensors_problem(data)
    if problem:
        raise CheckpointError(f"{WEIGHTS} {problem}")
    try:
        tensors = load_safetensors(data)
    except (SafetensorError, ValueError, RuntimeError) as e:
        raise CheckpointError(f"{WEIGHTS} is truncated or not a safetensors file ({e}).") from None
    rename = rename or {}
    tensors = {rename.get(name, name): t for name, t in tensors.items() if name not in ignore}
    in_file = {v: k for k, v in rename.items()}  # to name a tensor as the file does
    missing = sorted(in_file.get(n, n) for n in set(expected) - set(tensors))
    if missing:
        raise CheckpointError(f"{WEIGHTS} lacks tensor(s) the config needs: {', '.join(missing[:5])}.")
    unexpected = sorted(in_file.get(n, n) for n in set(tensors) - set(expected))
    if unexpected:
        raise CheckpointError(f"{WEIGHTS} has tensor(s) this config has no place for: {', '.join(unexpected[:5])}.")
    for name, want in expected.items():
        got, shown = tensors[name], in_file.get(name, name)
        if tuple(got.shape) != tuple(want.shape):
            raise CheckpointError(f"{WEIGHTS}: {shown} has shape {list(got.shape)}, but the config needs {list(want.shape)}.")
        if not got.is_floating_point():
            raise CheckpointError(f"{WEIGHTS}: {shown} holds {got.dtype} values, not floating-point weights.")
        if not torch.isfinite(got).all():
            raise CheckpointError(f"{WEIGHTS}: {shown} holds NaN or infinite values.")
    return tensors
