"""Our checkpoint folder: config.json, model.safetensors, the tokenizer model(s) and card.md, and optionally what
training kept: train_log.csv (training/train_log.py) and attention_steps.safetensors (training/snapshots.py).

Loading checks every field, file and tensor shape and says what is wrong in one sentence.
Nothing is unpickled: safetensors and JSON hold data only, so no code from a file ever runs.
`load` also takes a Hugging Face folder: its config.json's model_type picks the importer that reads it
(registry.py); a model_type no importer reads is refused with a sentence that names it and lists those read.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import torch
from safetensors.torch import save as save_safetensors

from . import registry
from ..config import ModelConfig
from ..messages import coded, shortened
from ..nn.model import Transformer
# What this loader shares with the importers lives in safe_load, below them all.
from .safe_load import (CARD, CONFIG, GENERATION_FILE, INDEX, LOG_FILE, MAX_LOG_BYTES, MAX_SNAPSHOT_BYTES, OPERATOR,
                        SHARD, SNAPSHOT_FILE, VISITOR, WEIGHTS, CheckpointError, Loaded, Progress, check_size,
                        hf_model_type, read_json_file, read_tensors, reporting, required, route, size_text,
                        within_limit)
from ..tokenizers import Tokenizer

# Every file a load of ours reads or keeps, and a Hugging Face folder's generation_config.json (read by the decoding
# page, core_model/generation.py) and index of weight shards; files() adds what the importers read, and `read` the
# shards (model-00001-of-00002.safetensors, …). Nothing else is opened, unpacked or copied.
OURS = (CONFIG, WEIGHTS, CARD, "src.model", "tgt.model", LOG_FILE, SNAPSHOT_FILE, GENERATION_FILE, INDEX)


def files() -> tuple[str, ...]:
    """Every file a load reads: ours, then each importer's (a BERT's tokenizer.json, a Marian's vocabulary...)."""
    return tuple(dict.fromkeys((*OURS, *registry.files())))


def read(names) -> list[str]:
    """Of the file names `names`, those a load reads: files() in its order, then the weight shards."""
    names = set(names)
    return [n for n in files() if n in names] + sorted(n for n in names if SHARD.fullmatch(n))


KEPT_LIMITS = {LOG_FILE: MAX_LOG_BYTES, SNAPSHOT_FILE: MAX_SNAPSHOT_BYTES}  # read whole by the app: kept far smaller
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".pkl", ".pickle", ".ckpt")  # what torch.save and pickle write


def tokenizer_file(side: str) -> str:
    return f"{side}.model"  # 'src.model' for the encoder's input, 'tgt.model' for the decoder's


def weights_to_save(model: Transformer) -> dict[str, torch.Tensor]:
    """The state dict without the tied output matrix, which safetensors cannot hold twice."""
    state = model.state_dict()
    if model.cfg.has_decoder and model.cfg.tie_embeddings:
        state.pop("generator.weight")
    return {name: t.detach().contiguous() for name, t in state.items()}


def save(path, model: Transformer, tokenizers: dict, card: str = "", extra: dict | None = None) -> Path:
    """Write a checkpoint folder atomically: a crash midway leaves the previous one whole (see find).

    `extra` maps further file names to bytes: a training run keeps its optimizer state there, and
    the training log under LOG_FILE (a shipped model keeps only the log).
    """
    path = Path(path)
    for name in extra or {}:
        if Path(name).name != name or name in ("", ".", ".."):
            raise ValueError(f"save() writes files into the checkpoint folder only, not {name!r}.")
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_leftovers(path)
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
        old = parked(path)
        if path.exists():
            shutil.rmtree(old, ignore_errors=True)
            os.replace(path, old)
        os.replace(tmp, path)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return path


def parked(path: Path) -> Path:
    """Where save() keeps the previous checkpoint while it renames the new one into place."""
    return path.with_name(f".{path.name}.old")


def find(path) -> Path | None:
    """The folder holding the last complete checkpoint saved at `path`, or None.

    A save killed between its two renames leaves no `path`, only the previous checkpoint, parked.
    """
    path = Path(path)
    return next((p for p in (path, parked(path)) if p.is_dir()), None)


def remove_leftovers(path: Path) -> None:
    """Delete the temp folders of earlier saves to `path` that were killed before their cleanup."""
    if not path.parent.is_dir():
        return
    for p in path.parent.iterdir():
        if p.name.startswith(f".{path.name}.") and p != parked(path) and p.is_dir():
            shutil.rmtree(p, ignore_errors=True)


def read_config(path: Path) -> ModelConfig:
    data = read_json_file(required(path, CONFIG), CONFIG)
    try:
        return ModelConfig.from_dict(data)
    except (ValueError, TypeError) as e:
        code, fields = coded(e, "config_invalid")
        raise CheckpointError(str(e) if str(e).startswith(CONFIG) else f"{CONFIG}: {e}", code=code,
                              fields={"file": CONFIG, "detail": str(e), **fields}) from None


def refuse_pickles(names) -> None:
    """Without model.safetensors (or its shards' index), say why a pickle-based checkpoint beside it is not read."""
    if WEIGHTS in names or INDEX in names:
        return
    for name in sorted(names):
        if name.lower().endswith(PICKLE_SUFFIXES):
            raise CheckpointError(f"{name} is a pickle-based checkpoint, which is not accepted because loading a pickle "
                                  f"can run any code: only {WEIGHTS} is read (save the weights with safetensors).",
                                  "unsafe", "pickle_checkpoint", {"file": shortened(name, 80), "weights": WEIGHTS})


def check_files(path: Path) -> None:
    """Before anything is read: every file within its size limit, and no pickle in place of the weights."""
    for name in read(os.listdir(path)):
        if (path / name).is_file():
            within_limit(path / name)
    for name, limit in KEPT_LIMITS.items():
        kept = path / name
        if kept.is_file() and kept.stat().st_size > limit:
            raise CheckpointError(f"{name} is {size_text(kept.stat().st_size)}, over the limit of {size_text(limit)}.",
                                  "limit", "file_too_big",
                                  {"file": name, "size": size_text(kept.stat().st_size), "limit": size_text(limit)})
    if not (path / WEIGHTS).is_file():
        refuse_pickles(os.listdir(path))


def read_weights(path: Path, model: Transformer) -> dict[str, torch.Tensor]:
    """The tensors of model.safetensors, each checked against the model's own name and shape."""
    return read_tensors(path, weights_to_save(model))


def read_tokenizers(path: Path, cfg: ModelConfig) -> dict:
    tokenizers = {}
    for side in cfg.sides:
        name = tokenizer_file(side)
        tok = Tokenizer.load(required(path, name))
        size = getattr(cfg, f"{side}_vocab_size")
        if tok.vocab_size != size:
            raise CheckpointError(f"{name} has {tok.vocab_size} pieces, but {CONFIG} says {side}_vocab_size is {size}.",
                                  code="vocab_mismatch", fields={"file": name, "n": tok.vocab_size, "config": CONFIG,
                                                                 "field": f"{side}_vocab_size", "want": size})
        for special in ("pad_id", "unk_id", "bos_id", "eos_id"):
            if getattr(tok, special) != getattr(cfg, special):
                raise CheckpointError(f"{name} has {special} {getattr(tok, special)}, but {CONFIG} says {getattr(cfg, special)}.",
                                      code="special_mismatch", fields={"file": name, "field": special, "config": CONFIG,
                                                                       "got": getattr(tok, special),
                                                                       "want": getattr(cfg, special)})
        tokenizers[side] = tok
    return tokenizers


def load(path, trusted: bool = False, progress: Progress | None = None) -> Loaded:
    """Load and check a checkpoint folder; raise CheckpointError naming what is wrong. `trusted`: the operator's own
    model (safe_load.Route), bounded by the machine's memory, not by the limits a visitor's upload keeps.
    `progress(file_name, done_bytes, total_bytes)` is told, tensor by tensor, how far the weights are read, whichever
    importer reads them (safe_load.Progress)."""
    with route(OPERATOR if trusted else VISITOR), reporting(progress):
        return _load(path)


def _load(path) -> Loaded:
    found = find(path)
    if found is None:
        raise CheckpointError(f"{path} is not a checkpoint folder.", code="not_folder", fields={"path": str(path)})
    path = found
    check_files(path)
    model_type = hf_model_type(path)
    if model_type is not None:  # a Hugging Face folder, imported tensor by tensor by its family's importer
        return importer(model_type).load(path)
    cfg = read_config(path)
    check_size(cfg)
    try:
        tokenizers = read_tokenizers(path, cfg)
    except CheckpointError:
        raise
    except ValueError as e:
        code, fields = coded(e)
        raise CheckpointError(str(e), code=code, fields=fields) from None
    model = Transformer.empty(cfg)
    tensors = read_weights(path, model)
    model.fill(tensors, strict=not (cfg.has_decoder and cfg.tie_embeddings))
    card = (path / CARD).read_text(encoding="utf-8", errors="replace") if (path / CARD).is_file() else ""
    return Loaded(model.eval(), cfg, tokenizers, card, path)


def importer(model_type):
    """The importer of a Hugging Face folder's model_type; CheckpointError naming it and the model types read if
    none."""
    found = registry.importer_for(model_type)
    if found is None:
        shown = shortened(repr(model_type), 60)
        known = ", ".join(registry.model_types())
        raise CheckpointError(f"{CONFIG} has model_type {shown}, which no importer reads; the model types read are: "
                              f"{known}.", code="unknown_model_type",
                              fields={"file": CONFIG, "name": "model_type", "got": shown, "known": known})
    return found
