"""Checkpoints: a folder with config.json, model.safetensors, the tokenizer model(s) and card.md.

Loading checks every field, file and tensor shape and says what is wrong in one sentence.
Nothing is unpickled: safetensors and JSON hold data only, so no code from a file ever runs.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_safetensors
from safetensors.torch import save as save_safetensors

from .config import ModelConfig
from .model import Transformer
from .tokenizer import Tokenizer

CONFIG, WEIGHTS, CARD = "config.json", "model.safetensors", "card.md"
MAX_WEIGHT_BYTES = 512 * 2**20  # far above any model that runs on a laptop CPU in class


class CheckpointError(ValueError):
    """A checkpoint folder that cannot be loaded; the message says which file and why."""


def tokenizer_file(side: str) -> str:
    return f"{side}.model"  # 'src.model' for the encoder's input, 'tgt.model' for the decoder's


@dataclass(frozen=True)
class Loaded:
    """A model ready to run, in eval mode, with its tokenizers by side ('src', 'tgt') and its card."""
    model: Transformer
    config: ModelConfig
    tokenizers: dict
    card: str
    path: Path


def weights_to_save(model: Transformer) -> dict[str, torch.Tensor]:
    """The state dict without the tied output matrix, which safetensors cannot hold twice."""
    state = model.state_dict()
    if model.cfg.has_decoder and model.cfg.tie_embeddings:
        state.pop("generator.weight")
    return {name: t.detach().contiguous() for name, t in state.items()}


def save(path, model: Transformer, tokenizers: dict, card: str = "", extra: dict | None = None) -> Path:
    """Write a checkpoint folder atomically: a crash midway leaves the previous one whole.

    `extra` maps further file names to bytes (a training run keeps its optimizer state there).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
    try:
        (tmp / CONFIG).write_text(json.dumps(model.cfg.to_dict(), indent=2) + "\n", encoding="utf-8")
        (tmp / WEIGHTS).write_bytes(save_safetensors(weights_to_save(model)))
        for side in model.cfg.sides:
            (tmp / tokenizer_file(side)).write_bytes(tokenizers[side].to_bytes())
        (tmp / CARD).write_text(card, encoding="utf-8")
        for name, data in (extra or {}).items():
            (tmp / name).write_bytes(data)
        for f in tmp.iterdir():  # the data is on disk before the folder takes the real name
            with open(f, "rb") as fh:
                os.fsync(fh.fileno())
        old = path.with_name(f".{path.name}.old")
        if path.exists():
            shutil.rmtree(old, ignore_errors=True)
            os.replace(path, old)
        os.replace(tmp, path)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return path


def read_config(path: Path) -> ModelConfig:
    try:
        data = json.loads(required(path, CONFIG).read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"{CONFIG} is not valid JSON ({e}).") from None
    try:
        return ModelConfig.from_dict(data)
    except (ValueError, TypeError) as e:
        raise CheckpointError(f"{CONFIG}: {e}") from None


def required(path: Path, name: str) -> Path:
    f = path / name
    if not f.is_file():
        raise CheckpointError(f"the checkpoint folder {path} has no {name}.")
    return f


def read_weights(path: Path, model: Transformer) -> dict[str, torch.Tensor]:
    """The tensors of model.safetensors, each checked against the model's own name and shape."""
    f = required(path, WEIGHTS)
    if f.stat().st_size > MAX_WEIGHT_BYTES:
        raise CheckpointError(f"{WEIGHTS} is {f.stat().st_size / 2**20:.0f} MB, over the limit of {MAX_WEIGHT_BYTES // 2**20} MB.")
    try:
        tensors = load_safetensors(f.read_bytes())
    except (SafetensorError, ValueError, RuntimeError) as e:
        raise CheckpointError(f"{WEIGHTS} is truncated or not a safetensors file ({e}).") from None
    expected = weights_to_save(model)
    missing = sorted(set(expected) - set(tensors))
    if missing:
        raise CheckpointError(f"{WEIGHTS} lacks tensor(s) the config needs: {', '.join(missing[:5])}.")
    unexpected = sorted(set(tensors) - set(expected))
    if unexpected:
        raise CheckpointError(f"{WEIGHTS} has tensor(s) this config has no place for: {', '.join(unexpected[:5])}.")
    for name, want in expected.items():
        got = tensors[name]
        if tuple(got.shape) != tuple(want.shape):
            raise CheckpointError(f"{WEIGHTS}: {name} has shape {list(got.shape)}, but the config needs {list(want.shape)}.")
        if not got.is_floating_point():
            raise CheckpointError(f"{WEIGHTS}: {name} holds {got.dtype} values, not floating-point weights.")
        if not torch.isfinite(got).all():
            raise CheckpointError(f"{WEIGHTS}: {name} holds NaN or infinite values.")
    return tensors


def read_tokenizers(path: Path, cfg: ModelConfig) -> dict:
    tokenizers = {}
    for side in cfg.sides:
        name = tokenizer_file(side)
        tok = Tokenizer.load(required(path, name))
        size = getattr(cfg, f"{side}_vocab_size")
        if tok.vocab_size != size:
            raise CheckpointError(f"{name} has {tok.vocab_size} pieces, but {CONFIG} says {side}_vocab_size is {size}.")
        for special in ("pad_id", "unk_id", "bos_id", "eos_id"):
            if getattr(tok, special) != getattr(cfg, special):
                raise CheckpointError(f"{name} has {special} {getattr(tok, special)}, but {CONFIG} says {getattr(cfg, special)}.")
        tokenizers[side] = tok
    return tokenizers


def load(path) -> Loaded:
    """Load and check a checkpoint folder; raise CheckpointError naming what is wrong."""
    path = Path(path)
    if not path.is_dir():
        raise CheckpointError(f"{path} is not a checkpoint folder.")
    cfg = read_config(path)
    try:
        tokenizers = read_tokenizers(path, cfg)
    except CheckpointError:
        raise
    except ValueError as e:
        raise CheckpointError(str(e)) from None
    model = Transformer(cfg)
    tensors = read_weights(path, model)
    model.load_state_dict(tensors, strict=not (cfg.has_decoder and cfg.tie_embeddings))
    card = (path / CARD).read_text(encoding="utf-8", errors="replace") if (path / CARD).is_file() else ""
    return Loaded(model.eval(), cfg, tokenizers, card, path)
