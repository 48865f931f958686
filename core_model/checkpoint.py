"""Checkpoints: a folder with config.json, model.safetensors, the tokenizer model(s) and card.md,
and optionally what training kept: train_log.csv (train_log.py) and attention_steps.safetensors (snapshots.py).

Loading checks every field, file and tensor shape and says what is wrong in one sentence.
Nothing is unpickled: safetensors and JSON hold data only, so no code from a file ever runs.
`load` also takes a Hugging Face BERT, GPT-2, Marian or BART folder, which it hands to bert.load, gpt2.load
or seq2seq_hub.load.
A checkpoint a user brings comes in through extract_zip (an uploaded zip) or copy_folder, which
write only the files a load reads, within size limits, and never where the zip says.
"""
from __future__ import annotations

import io
import json
import os
import shutil
import stat
import tempfile
import zipfile
import zlib
from pathlib import Path

import torch
from safetensors.torch import save as save_safetensors

from . import bert, generation, gpt2, seq2seq_hub
from .config import ModelConfig
from .messages import coded, shortened
from .model import Transformer
# What this loader shares with bert.load and gpt2.load lives in safe_load, below all three; its names stay
# importable from here.
from .safe_load import (CARD, CONFIG, MAX_FILE_BYTES, MAX_LAYERS, MAX_WEIGHT_BYTES, WEIGHTS,  # noqa: F401
                        CheckpointError, Loaded, check_size, read_json_file, read_tensors, required,
                        safetensors_problem, size_text, within_limit)
from .tokenizer import Tokenizer
from .snapshots import MAX_SNAPSHOT_BYTES, SNAPSHOT_FILE
from .train_log import LOG_FILE, MAX_LOG_BYTES

# Every file a load reads or keeps: ours, what training kept, a BERT, GPT-2 or BART folder's tokenizer.json, a
# Marian folder's sentencepiece models and vocabulary, and a Hugging Face folder's generation_config.json (read by
# the decoding page, core_model/generation.py). Nothing else is opened, unpacked or copied.
FILES = (CONFIG, WEIGHTS, CARD, "src.model", "tgt.model", LOG_FILE, SNAPSHOT_FILE, "tokenizer.json",
         *seq2seq_hub.MARIAN_FILES, generation.FILE)
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
    """Without model.safetensors, say why a pickle-based checkpoint beside it is not read."""
    if WEIGHTS in names:
        return
    for name in sorted(names):
        if name.lower().endswith(PICKLE_SUFFIXES):
            raise CheckpointError(f"{name} is a pickle-based checkpoint, which is not accepted because loading a pickle "
                                  f"can run any code: only {WEIGHTS} is read (save the weights with safetensors).",
                                  "unsafe", "pickle_checkpoint", {"file": shortened(name, 80), "weights": WEIGHTS})


def check_files(path: Path) -> None:
    """Before anything is read: every file within its size limit, and no pickle in place of the weights."""
    for name in FILES:
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


def load(path) -> Loaded:
    """Load and check a checkpoint folder; raise CheckpointError naming what is wrong."""
    found = find(path)
    if found is None:
        raise CheckpointError(f"{path} is not a checkpoint folder.", code="not_folder", fields={"path": str(path)})
    path = found
    check_files(path)
    if bert.is_bert_folder(path):  # a Hugging Face BERT folder, imported tensor by tensor
        return bert.load(path)
    if gpt2.is_gpt2_folder(path):  # a Hugging Face GPT-2 folder, likewise
        return gpt2.load(path)
    if seq2seq_hub.family(path):  # a Hugging Face Marian or BART folder, likewise
        return seq2seq_hub.load(path)
    cfg = read_config(path)
    check_size(cfg)
    try:
        tokenizers = read_tokenizers(path, cfg)
    except CheckpointError:
        raise
    except ValueError as e:
        code, fields = coded(e)
        raise CheckpointError(str(e), code=code, fields=fields) from None
    model = Transformer(cfg)
    tensors = read_weights(path, model)
    model.load_state_dict(tensors, strict=not (cfg.has_decoder and cfg.tie_embeddings))
    card = (path / CARD).read_text(encoding="utf-8", errors="replace") if (path / CARD).is_file() else ""
    return Loaded(model.eval(), cfg, tokenizers, card, path)


# ----- a checkpoint a user brings: a zip upload, or a folder to copy ------------------------

MAX_ZIP_BYTES = 128 * 2**20  # an uploaded zip
MAX_UNPACKED_BYTES = 256 * 2**20  # what a zip may unpack to, and what a copied folder may hold
MAX_ZIP_ENTRIES = 64  # a checkpoint folder has eight files at most (FILES)
MAX_ZIP_DIRECTORY = 256 * 2**10  # zipfile parses a zip's whole list of entries at once: 7 s for 200,000
MACOS_EXTRAS = ("__MACOSX", ".DS_Store")  # what macOS's Finder adds to every zip it makes


def load_zip(data: bytes, dest) -> Loaded:
    """Unpack a zipped checkpoint folder into the new folder `dest` and load it, checking everything."""
    return load(extract_zip(data, dest))


def extract_zip(data: bytes, dest) -> Path:
    """Unpack a zipped checkpoint folder into the new folder `dest` and return it; refuse anything unsafe.

    Only the files a load reads (FILES) are written, each under its bare name, never under the
    zip's path for it; the rest is skipped unread. Sizes are checked as the zip declares them and
    again as the bytes come out, so a zip bomb stops at the limit.
    """
    if len(data) > MAX_ZIP_BYTES:
        raise CheckpointError(f"the zip is {size_text(len(data))}, over the limit of {size_text(MAX_ZIP_BYTES)}.",
                              "limit", "zip_too_big", {"size": size_text(len(data)), "limit": size_text(MAX_ZIP_BYTES)})
    listing = directory_size(data)
    if listing > MAX_ZIP_DIRECTORY:
        raise CheckpointError(f"the zip's list of entries takes {size_text(listing)}, far more than a checkpoint "
                              f"folder's few files need (at most {size_text(MAX_ZIP_DIRECTORY)}).", "limit",
                              "zip_listing", {"size": size_text(listing), "limit": size_text(MAX_ZIP_DIRECTORY)})
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, EOFError, NotImplementedError):  # NotImplementedError: an entry
        raise CheckpointError(NOT_A_ZIP, code="not_zip") from None  # needs a zip version beyond Python's (6.3)
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    with archive:
        budget = MAX_UNPACKED_BYTES
        for name, info in zip_members(archive.infolist()).items():
            too_big = CheckpointError(f"{info.filename} in the zip unpacks to more than the {info.file_size:,} "
                                      "bytes it declares.", "limit", "zip_entry_grew",
                                      {"entry": shortened(info.filename, 80), "n": info.file_size})
            try:
                with archive.open(info) as source:
                    budget -= copy_bounded(source, dest / name, min(info.file_size, budget), too_big)
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError, zlib.error) as e:
                raise CheckpointError(f"{info.filename} in the zip cannot be unpacked ({e}).", code="zip_entry_broken",
                                      fields={"entry": shortened(info.filename, 80)}) from None
    return dest


NOT_A_ZIP = "the file is not a zip archive (or the zip is damaged)."


def directory_size(data: bytes) -> int:
    """The size of the zip's list of entries, from its end record (22 bytes and a comment, at the end)."""
    end = data.rfind(b"PK\x05\x06", max(0, len(data) - 22 - 65535))
    if end < 0 or end + 22 > len(data):
        raise CheckpointError(NOT_A_ZIP, code="not_zip")
    return int.from_bytes(data[end + 12:end + 16], "little")  # 0xFFFFFFFF for a zip64, which is far over


def zip_members(infos: list[zipfile.ZipInfo]) -> dict[str, zipfile.ZipInfo]:
    """The entries a load reads, by bare name, once every entry's path, kind and size is checked."""
    if len(infos) > MAX_ZIP_ENTRIES:
        raise CheckpointError(f"the zip holds {len(infos)} entries, more than the {MAX_ZIP_ENTRIES} allowed; "
                              f"a checkpoint folder has at most {len(FILES)} files.", "limit", "zip_entries",
                              {"n": len(infos), "most": MAX_ZIP_ENTRIES, "files": len(FILES)})
    declared = sum(i.file_size for i in infos)
    if declared > MAX_UNPACKED_BYTES:
        raise CheckpointError(f"the zip unpacks to {size_text(declared)}, over the limit of {size_text(MAX_UNPACKED_BYTES)}.",
                              "limit", "zip_unpacked_too_big",
                              {"size": size_text(declared), "limit": size_text(MAX_UNPACKED_BYTES)})
    files = {}
    for info in infos:
        parts = entry_parts(info)
        if not info.is_dir() and parts and parts[0] not in MACOS_EXTRAS and parts[-1] not in MACOS_EXTRAS:
            files[info.filename] = parts
    deep = [name for name, parts in files.items() if len(parts) > 2]
    places = {tuple(parts[:-1]): name for name, parts in files.items()}  # folder -> one entry in it
    if deep or len(places) > 1:
        where = f"{deep[0]!r} is nested deeper" if deep else "it mixes {!r} and {!r}".format(*list(places.values())[:2])
        raise CheckpointError(f"the zip must hold the checkpoint's files at its top level or in one folder, but {where}.",
                              code="zip_layout", fields={"entry": shortened((deep or list(places.values()))[0], 80)})
    names = [parts[-1] for parts in files.values()]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise CheckpointError(f"the zip holds {twice[0]} twice.", code="zip_twice",
                              fields={"file": shortened(twice[0], 80)})
    refuse_pickles(names)
    if CONFIG not in names:
        raise CheckpointError(f"the zip has no {CONFIG}, so it holds no checkpoint folder.", code="zip_no_config",
                              fields={"file": CONFIG})
    by_name = {parts[-1]: info for info in infos if (parts := files.get(info.filename))}
    return {name: by_name[name] for name in FILES if name in by_name}


def entry_parts(info: zipfile.ZipInfo) -> list[str]:
    """The parts of an entry's path, once an entry that could write outside its folder is refused."""
    name = info.filename
    path = name.replace("\\", "/")  # zips made on Windows may use either separator
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        raise CheckpointError(f"the zip entry {name!r} has an absolute path, which could write anywhere on the disk.",
                              "unsafe", "zip_absolute", {"entry": shortened(name, 80)})
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise CheckpointError(f"the zip entry {name!r} climbs out of its folder with '..'.", "unsafe", "zip_climbs",
                              {"entry": shortened(name, 80)})
    if stat.S_ISLNK(info.external_attr >> 16):
        raise CheckpointError(f"the zip entry {name!r} is a symbolic link, which could point anywhere on the disk.",
                              "unsafe", "zip_link", {"entry": shortened(name, 80)})
    if info.flag_bits & 0x1:
        raise CheckpointError(f"the zip entry {name!r} is encrypted.", code="zip_encrypted",
                              fields={"entry": shortened(name, 80)})
    return parts


def copy_bounded(source, target: Path, limit: int, too_big: CheckpointError | str) -> int:
    """Copy the binary stream `source` into the new file `target`; past `limit` bytes, stop and refuse."""
    written = 0
    with open(target, "xb") as out:
        while chunk := source.read(2**20):
            written += len(chunk)
            if written > limit:
                raise too_big if isinstance(too_big, CheckpointError) else CheckpointError(too_big, "limit")
            out.write(chunk)
    return written


def copy_folder(src, dest) -> Path:
    """Copy the files a load reads from the checkpoint folder `src` into the new folder `dest`.

    Together they may hold MAX_UNPACKED_BYTES, as an unpacked zip; nothing else is copied.
    """
    src, dest = Path(src), Path(dest)
    if not src.is_dir():
        raise CheckpointError(f"{src} is not a checkpoint folder.", code="not_folder", fields={"path": str(src)})
    check_files(src)
    names = [n for n in FILES if (src / n).is_file()]
    total = sum((src / n).stat().st_size for n in names)
    if total > MAX_UNPACKED_BYTES:
        raise CheckpointError(f"the checkpoint's files add up to {size_text(total)}, "
                              f"over the limit of {size_text(MAX_UNPACKED_BYTES)}.", "limit", "folder_too_big",
                              {"size": size_text(total), "limit": size_text(MAX_UNPACKED_BYTES)})
    dest.mkdir(parents=True, exist_ok=True)
    budget = MAX_UNPACKED_BYTES
    for name in names:
        try:
            with open(src / name, "rb") as source:  # a file that grows meanwhile is stopped at the limit
                grew = CheckpointError(f"{name} grew past the limit while it was copied.", "limit", "file_grew",
                                       {"file": name})
                budget -= copy_bounded(source, dest / name, budget, grew)
        except OSError as e:
            raise CheckpointError(f"{src / name} cannot be read ({e.strerror}).", code="file_unreadable",
                                  fields={"path": str(src / name)}) from None
    return dest
