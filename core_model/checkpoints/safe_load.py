"""What every checkpoint loader shares: ours (folder.py) and the Hugging Face importers (core_model/importers).

The error that names what is wrong, the loaded result, the size limits, and tensors read from
model.safetensors (or the shards model.safetensors.index.json names, any floating type read as float32) and
checked name by name and shape by shape, a load's progress told as they are read (reporting). Every loader builds
on this module, and folder.load hands a Hugging Face folder to the importer its model_type names (registry.py), so
the arrows go one way: folder → registry ← importers → safe_load.
Nothing is unpickled: safetensors and JSON hold data only.
"""
from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_safetensors, load_file as map_safetensors

from ..config import ModelConfig
from ..messages import CodedError, listed, listed_fields, shortened
from ..nn.model import Transformer

CONFIG, WEIGHTS, CARD = "config.json", "model.safetensors", "card.md"
# A Hugging Face folder may keep its weights in shards instead: the index maps each tensor to the shard holding it.
INDEX = "model.safetensors.index.json"
SHARD = re.compile(r"model-\d{5}-of-\d{5}\.safetensors")  # the shards' names, as save_pretrained writes them
STORED = {"F32": "float32", "F16": "float16", "BF16": "bfloat16", "F64": "float64"}  # safetensors' dtype names
# What training keeps beside a checkpoint (training/train_log.py, training/snapshots.py), read whole by the app, and
# a Hugging Face folder's generation settings (generation.py): named here, where a load checks each file's size.
LOG_FILE, MAX_LOG_BYTES = "train_log.csv", 2**20
SNAPSHOT_FILE, MAX_SNAPSHOT_BYTES = "attention_steps.safetensors", 16 * 2**20
GENERATION_FILE = "generation_config.json"
MAX_WEIGHT_BYTES = 512 * 2**20  # far above any model that runs on a laptop CPU in class
MAX_FILE_BYTES = 32 * 2**20  # any other file; the shipped ones are under 1 MB, a BERT tokenizer.json a few
MAX_LAYERS = 96  # per stack: each layer is built (and takes memory) before any weight is read
MAX_POSITIONS = 8192  # max_len of any positional kind: it bounds decoding and every per-position table
MAX_JSON_DEPTH = 64  # a config.json is two levels deep, a tokenizer.json or safetensors header a few more
MAX_HEADER_BYTES = 16 * 2**20  # a safetensors header lists names, shapes and offsets: a few KB per hundred tensors


@dataclass(frozen=True)
class Route:
    """Whose model a load reads, and so its limits. A visitor's (an upload, the server folder) keeps every hostile-
    input limit: the weights within weight_bytes, read whole and checked before safetensors parses them. The operator's
    own (named with `attention-viz --model`, or opened from this machine's cache on a local run) is bounded only by
    the memory the machine has, checked before the model is built, and its weights are memory-mapped."""
    name: str
    weight_bytes: int | None  # the weights' files together; None: no bound but the machine's memory


VISITOR, OPERATOR = Route("visitor", MAX_WEIGHT_BYTES), Route("operator", None)
_ROUTE: ContextVar[Route] = ContextVar("route", default=VISITOR)  # a load is a visitor's unless said otherwise


@contextlib.contextmanager
def route(which: Route):
    """Every load inside the block reads with `which`'s limits (folder.load(path, trusted=True): OPERATOR)."""
    token = _ROUTE.set(which)
    try:
        yield
    finally:
        _ROUTE.reset(token)


# A load's progress(file_name, done_bytes, total_bytes): called as each tensor of the weight files is read, the files in
# order; the bytes are the tensors' as stored (the files' sizes less their headers), done reaching total at the end.
Progress = Callable[[str, int, int], None]
_PROGRESS: ContextVar[Progress | None] = ContextVar("progress", default=None)


@contextlib.contextmanager
def reporting(progress: Progress | None):
    """Every load inside the block tells `progress` how far its weights are read (None: nobody is told)."""
    token = _PROGRESS.set(progress)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def weight_limit() -> int | None:
    """The bytes the weights may take on this load's route; None for the operator's own."""
    return _ROUTE.get().weight_bytes


def available_memory() -> int | None:
    """Bytes of memory this process may still take: the kernel's MemAvailable, or less where a cgroup limits the
    process (a container); None where neither can be read (not Linux)."""
    found = []
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            found += [int(line.split()[1]) * 1024 for line in f if line.startswith("MemAvailable:")]
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if limit.isdigit():
            found.append(int(limit) - int(Path("/sys/fs/cgroup/memory.current").read_text()))
    except (OSError, ValueError):
        pass
    return min(found) if found else None


OPENING, CLOSING = np.frombuffer(b"[{", np.uint8), np.frombuffer(b"]}", np.uint8)


KINDS = ("invalid", "limit", "unsafe", "numbers", "time", "memory", "crash")  # what a UI may say in its own words


class CheckpointError(CodedError):
    """A checkpoint folder that cannot be loaded; the message says which file and why, in at most
    messages.MAX_MESSAGE characters, `kind` (one of KINDS) what sort of fault it is, and `code` with
    `fields` the same for a translation (messages.CodedError)."""

    def __init__(self, message: str, kind: str = "invalid", code: str = "", fields: dict | None = None):
        super().__init__(message, code, fields)
        self.kind = kind


_ESCAPES = re.compile(r"\\.", re.S)  # an escaped character, \" included: dropped first, so that
_STRINGS = re.compile(r'"[^"]*"')  # a string is then plain quotes around text (both passes linear in the length)


def json_depth(text: str) -> int:
    """How deeply `text`'s arrays and objects nest, measured without parsing.

    Python's json module recurses once per level and raises RecursionError near 1,000 levels; this
    count is flat (strings dropped, then a running sum of opening minus closing brackets).
    """
    bare = np.frombuffer(_STRINGS.sub("", _ESCAPES.sub("", text)).encode("utf-8"), np.uint8)
    steps = np.isin(bare, OPENING).astype(np.int32) - np.isin(bare, CLOSING)
    return int(np.cumsum(steps).max(initial=0))


def read_json(text: str, what: str):
    """Parse `text` (the file named `what`) as JSON, refusing deep nesting and numbers too long to read."""
    if json_depth(text) > MAX_JSON_DEPTH:
        raise CheckpointError(f"{what} nests more than {MAX_JSON_DEPTH} levels deep, which no checkpoint file does.",
                              code="json_deep", fields={"file": what, "depth": MAX_JSON_DEPTH})
    try:
        return json.loads(text)
    except ValueError as e:  # JSONDecodeError, or an integer too long for int() (Python's guard against slow parsing)
        if "digits" in str(e):
            raise CheckpointError(f"{what} holds a number of over 4,300 digits, which no checkpoint needs.",
                                  code="json_digits", fields={"file": what}) from None
        decoding = isinstance(e, json.JSONDecodeError)
        where = {"line": e.lineno, "column": e.colno} if decoding else {"line": 0, "column": 0}
        raise CheckpointError(f"{what} is not valid JSON ({shortened(str(e), 120)}).", code="json_invalid",
                              fields={"file": what, **where}) from None


def read_json_file(path: Path, what: str):
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise CheckpointError(f"{what} is not UTF-8 text, so it is not JSON.", code="json_not_utf8",
                              fields={"file": what}) from None
    return read_json(text, what)


def hf_model_type(path) -> str | None:
    """The model_type a Hugging Face folder's config.json names, or None (one of our checkpoints, or no config)."""
    try:
        return read_json_file(Path(path) / "config.json", "config.json").get("model_type")
    except (OSError, ValueError, AttributeError):  # CheckpointError is a ValueError; a list has no .get
        return None


def read_hf_config(path: Path) -> dict:
    """A Hugging Face folder's config.json, which must hold a JSON object (every importer reads it)."""
    hf = read_json_file(path / "config.json", "config.json")
    if not isinstance(hf, dict):
        raise CheckpointError("config.json must hold a JSON object of field names and values.",
                              code="config_not_object", fields={"file": "config.json"})
    return hf


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
        raise CheckpointError(f"the checkpoint folder {path} has no {name}.", code="file_missing",
                              fields={"folder": str(path), "file": name})
    return f


def size_text(n: int) -> str:
    if n >= 10 * 2**20:  # whole megabytes in integers: a config may name a size far beyond any float
        return f"{(n + 2**19) // 2**20:,} MB"
    if n >= 2**20:
        return f"{n / 2**20:.1f} MB"
    return f"{n / 2**10:,.0f} KB" if n >= 2**10 else f"{n:,} bytes"


def within_limit(f: Path) -> Path:
    """The file, if it is no larger than a file of its name may be (read whole, it must fit in memory); the weights
    of the operator's own model are bounded by memory instead (check_size)."""
    limit = weight_limit() if f.name == WEIGHTS or SHARD.fullmatch(f.name) else MAX_FILE_BYTES
    size = f.stat().st_size
    if limit is not None and size > limit:
        raise CheckpointError(f"{f.name} is {size_text(size)}, over the limit of {size_text(limit)}.", "limit",
                              "file_too_big", {"file": f.name, "size": size_text(size), "limit": size_text(limit)})
    return f


def safetensors_problem(data: bytes) -> tuple[str, str, dict] | None:
    """Why `data` is plainly not a whole safetensors file (a pickle, or cut short), else None: the reason after
    the file's name, its code and fields (CheckpointError's).

    A safetensors file is an 8-byte header length, a JSON header, then the tensors' bytes.
    """
    if data[8:9] != b"{":
        if data[:1] == b"\x80" or data[:4] == b"PK\x03\x04":
            return ("holds a pickle (what torch.save writes), not safetensors data; loading a pickle can run any "
                    "code, so it is not read.", "weights_pickle", {})
        return None  # safetensors itself names what is wrong
    header_end = 8 + int.from_bytes(data[:8], "little")
    if header_end > len(data):
        return (f"is truncated: its header alone should take {header_end:,} bytes, but the file has {len(data):,}.",
                "weights_truncated", {"want": header_end, "got": len(data)})
    if header_end - 8 > MAX_HEADER_BYTES:
        return (f"has a header of {size_text(header_end - 8)}, over the limit of {size_text(MAX_HEADER_BYTES)}.",
                "header_too_big", {"size": size_text(header_end - 8), "limit": size_text(MAX_HEADER_BYTES)})
    text = data[8:header_end].decode("utf-8", "replace")
    if json_depth(text) > MAX_JSON_DEPTH:
        return (f"has a header nested more than {MAX_JSON_DEPTH} levels deep, which no safetensors file has.",
                "header_deep", {"depth": MAX_JSON_DEPTH})
    try:
        header = json.loads(text)
        end = header_end + max((v["data_offsets"][1] for k, v in header.items() if k != "__metadata__"), default=0)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        return None  # safetensors itself names what is wrong
    if end > len(data):
        return (f"is truncated: it should be {end:,} bytes long, but has {len(data):,}.", "weights_truncated",
                {"want": end, "got": len(data)})
    return None


def weight_count(cfg: ModelConfig) -> int:
    """A lower bound of the weights `cfg` builds (biases and norms left out): every embedding table,
    positions and token types included (and each stack's relative bias table), the layers, and an untied output
    layer."""
    d, layers = cfg.d_model, cfg.n_encoder_layers * cfg.has_encoder + cfg.n_decoder_layers * cfg.has_decoder
    positions = cfg.max_len if cfg.positional in ("sinusoidal", "learned") else 0
    width = cfg.d_embed or d  # a factorised embedding's tables are d_embed wide, then projected to d
    n = sum(getattr(cfg, f"{side}_vocab_size") + positions + cfg.type_vocab_size for side in cfg.sides) * width
    n += len(cfg.sides) * width * d if cfg.d_embed else 0
    n += len(cfg.sides) * cfg.relative_buckets * cfg.n_heads if cfg.positional == "relative" else 0  # T5's tables
    attention = 2 * d * (cfg.n_heads + cfg.kv_heads) * cfg.d_head  # W_Q and W_O; W_K and W_V per key/value head
    n += layers * (attention + (3 if cfg.ffn == "gated" else 2) * d * cfg.d_ff)
    n += cfg.n_decoder_layers * 4 * d * d if cfg.architecture == "encoder-decoder" else 0  # cross-attention
    return n + (cfg.tgt_vocab_size * d if cfg.has_decoder and not cfg.tie_embeddings else 0)


def check_size(cfg: ModelConfig) -> None:
    """Refuse a config whose model is too big to build or to run, before any memory is taken for it."""
    for stack, n in (("encoder", cfg.n_encoder_layers), ("decoder", cfg.n_decoder_layers)):
        if n > MAX_LAYERS:
            raise CheckpointError(f"{CONFIG} asks for {n} {stack} layers, more than the {MAX_LAYERS} the loader builds.",
                                  "limit", "too_many_layers",
                                  {"file": CONFIG, "n": n, "stack": stack, "most": MAX_LAYERS})
    for name in ("max_len", "max_positions"):  # whatever the positional kind: they bound decoding and a forward pass
        if getattr(cfg, name) > MAX_POSITIONS:
            raise CheckpointError(f"{CONFIG} asks for {name} {getattr(cfg, name):,}, more than the {MAX_POSITIONS:,} "
                                  f"positions the loader allows.", "limit", "too_many_positions",
                                  {"file": CONFIG, "name": name, "n": getattr(cfg, name), "most": MAX_POSITIONS})
    n, limit = weight_count(cfg), weight_limit()
    if limit is None:
        return check_memory(n)
    if 4 * n > limit:  # a count past 10¹⁵ is not written out: it may have more digits than int() prints
        model = (f"over {(n + 500_000) // 10**6:,} million weights ({size_text(4 * n)})" if n < 10**15
                 else "more than 10¹⁵ weights")
        fields = {"file": CONFIG, "limit": size_text(limit)}
        fields.update({"millions": (n + 500_000) // 10**6, "size": size_text(4 * n)} if n < 10**15 else {})
        raise CheckpointError(f"{CONFIG} describes a model of {model}, over the limit of {size_text(limit)}.",
                              "limit", "model_too_big" if n < 10**15 else "model_far_too_big", fields)


def check_memory(n: int) -> None:
    """Refuse, with the figures, an operator's model of `n` weights that this machine's free memory cannot hold while
    it loads: the model in float32 and the weights read, at most as much again, before they are copied in."""
    need, free = 8 * n, available_memory()
    if free is not None and need > free:
        raise CheckpointError(f"{CONFIG} describes a model of {(n + 500_000) // 10**6:,} million weights: loading it "
                              f"takes about {size_text(need)} of memory, but this machine has {size_text(free)} free.",
                              "memory", "model_no_memory", {"file": CONFIG, "millions": (n + 500_000) // 10**6,
                                                            "need": size_text(need), "free": size_text(free)})


def shard_map(path: Path) -> dict[str, str]:
    """model.safetensors.index.json's weight_map (tensor name -> the shard holding it), checked: each shard is a file
    of the folder named as save_pretrained names them (never a path elsewhere), and there."""
    index = read_json_file(within_limit(path / INDEX), INDEX)
    weight_map = index.get("weight_map") if isinstance(index, dict) else None
    if not isinstance(weight_map, dict) or not all(isinstance(v, str) for v in weight_map.values()):
        raise CheckpointError(f"{INDEX} has no weight_map from tensor names to shard files.", code="index_invalid",
                              fields={"file": INDEX})
    for shard in sorted(set(weight_map.values())):
        shown = shortened(shard, 80)
        if not SHARD.fullmatch(shard):
            raise CheckpointError(f"{INDEX} names the shard {shown!r}, which is no model-0000N-of-0000M.safetensors "
                                  "file beside it.", "unsafe", "shard_name", {"file": INDEX, "shard": shown})
        if not (path / shard).is_file():
            raise CheckpointError(f"{INDEX} names the shard {shown}, which the folder lacks.", code="shard_missing",
                                  fields={"file": INDEX, "shard": shown})
    return weight_map


def sharded(path: Path) -> bool:
    """Whether the folder keeps its weights in shards (an index, and no model.safetensors)."""
    return not (path / WEIGHTS).is_file() and (path / INDEX).is_file()


def weight_files(path: Path) -> list[str]:
    """The files that hold the weights: model.safetensors, or the shards its index names."""
    return sorted(set(shard_map(path).values())) if sharded(path) else [WEIGHTS]


def _header(f: Path) -> dict:
    """A safetensors file's header (name -> dtype, shape, offsets), read without its tensors; {} if unreadable."""
    try:
        with open(f, "rb") as opened:
            size = int.from_bytes(opened.read(8), "little")
            if size > MAX_HEADER_BYTES:
                return {}
            header = read_json(opened.read(size).decode("utf-8"), f.name)
    except (OSError, UnicodeDecodeError, CheckpointError):
        return {}
    return {k: v for k, v in header.items() if k != "__metadata__"} if isinstance(header, dict) else {}


def tensor_names(path: Path) -> list[str]:
    """The names the weight files list in their headers, read without their tensors (an importer picks its
    naming from them); [] if a header cannot be read, which read_tensors then names."""
    try:
        return [name for f in weight_files(path) for name in _header(required(path, f))]
    except CheckpointError:
        return []


def stored_types(path: Path) -> set[str]:
    """The dtypes the weight files store their tensors in ("float32", "bfloat16", …), from their headers."""
    try:
        headers = [_header(path / f) for f in weight_files(path)]
    except CheckpointError:
        return set()
    return {STORED.get(str(v.get("dtype")), str(v.get("dtype"))) for h in headers for v in h.values()
            if isinstance(v, dict)}


def read_weight_file(path: Path, name: str) -> dict[str, torch.Tensor]:
    """The tensors of one safetensors file of the folder: a visitor's within its size limit and checked whole before
    safetensors parses it; the operator's own memory-mapped by safetensors (no copy of the whole file)."""
    if weight_limit() is None:
        try:
            return map_safetensors(required(path, name))
        except (SafetensorError, ValueError, RuntimeError, OSError) as e:
            raise CheckpointError(f"{name} is truncated or not a safetensors file ({e}).", code="not_safetensors",
                                  fields={"file": name}) from None
    data = within_limit(required(path, name)).read_bytes()
    problem = safetensors_problem(data)
    if problem:
        raise CheckpointError(f"{name} {problem[0]}", code=problem[1], fields={"file": name, **problem[2]})
    try:
        return load_safetensors(data)
    except (SafetensorError, ValueError, RuntimeError) as e:
        raise CheckpointError(f"{name} is truncated or not a safetensors file ({e}).", code="not_safetensors",
                              fields={"file": name}) from None


def read_shards(path: Path) -> dict[str, dict[str, torch.Tensor]]:
    """Every shard's tensors by shard, in the shards' order, as the index places them: together within the weights'
    limit, each tensor in one shard only, and in the shard the index names."""
    weight_map = shard_map(path)
    shards = sorted(set(weight_map.values()))
    total, limit = sum((path / s).stat().st_size for s in shards), weight_limit()
    if limit is not None and total > limit:
        raise CheckpointError(f"the shards are {size_text(total)} together, over the limit of "
                              f"{size_text(MAX_WEIGHT_BYTES)}.", "limit", "file_too_big",
                              {"file": INDEX, "size": size_text(total), "limit": size_text(MAX_WEIGHT_BYTES)})
    by_shard, found = {}, {}
    for shard in shards:
        by_shard[shard] = read_weight_file(path, shard)
        for name in by_shard[shard]:
            if name in found or weight_map.get(name) != shard:
                where = f"both {found[name]} and {shard}" if name in found else f"{shard}, not where {INDEX} says"
                raise CheckpointError(f"the tensor {shortened(name, 80)} is in {where}.", code="shard_mismatch",
                                      fields={"file": INDEX, "tensor": shortened(name, 80), "shard": shard})
            found[name] = shard
    absent = sorted(set(weight_map) - set(found))
    if absent:
        name, shard = shortened(absent[0], 80), weight_map[absent[0]]
        raise CheckpointError(f"the tensor {name} is not in {shard}, where {INDEX} says.", code="shard_mismatch",
                              fields={"file": INDEX, "tensor": name, "shard": shard})
    return by_shard


def read_tensors(path: Path, expected: dict[str, torch.Tensor], rename: dict[str, str] | None = None,
                 ignore: tuple[str, ...] = ()) -> dict[str, torch.Tensor]:
    """The weights' tensors (model.safetensors', or every shard's), renamed by `rename` (file name -> ours), each
    checked against `expected`; the model computes in float32, so tensors of another floating type are converted.

    Names in `ignore` may be in the file and are left out; any other name must match exactly.
    """
    files = read_shards(path) if sharded(path) else {WEIGHTS: read_weight_file(path, WEIGHTS)}
    what = INDEX if sharded(path) else WEIGHTS
    rename = rename or {}
    names = {rename.get(name, name) for tensors in files.values() for name in tensors if name not in ignore}
    in_file = {v: k for k, v in rename.items()}  # to name a tensor as the file does
    missing = sorted(in_file.get(n, n) for n in set(expected) - names)
    if missing:
        raise CheckpointError(f"{what} lacks tensor(s) the config needs: {listed(missing)}.", code="tensors_missing",
                              fields={"file": what, **listed_fields(missing)})
    unexpected = sorted(in_file.get(n, n) for n in names - set(expected))
    if unexpected:
        raise CheckpointError(f"{what} has tensor(s) this config has no place for: {listed(unexpected)}.",
                              code="tensors_unexpected", fields={"file": what, **listed_fields(unexpected)})
    return converted(files, expected, rename, ignore, what)


def converted(files: dict[str, dict[str, torch.Tensor]], expected: dict[str, torch.Tensor], rename: dict[str, str],
              ignore: tuple[str, ...], what: str) -> dict[str, torch.Tensor]:
    """Each file's tensors, file after file and in the model's order within a file (so that the first fault named is
    the model's first), in float32 and checked (check_tensor), by our names.

    A memory-mapped file (the operator's own) is only read from disk when its bytes are first touched, here, by the
    conversion or the check for finite values: so this is where the load's progress is told, tensor by tensor.
    """
    progress, tensors, done = _PROGRESS.get(), {}, 0
    total = sum(t.nbytes for stored in files.values() for t in stored.values())
    place = {name: i for i, name in enumerate(expected)}
    for file, stored in files.items():
        for name in sorted(stored, key=lambda n: place.get(rename.get(n, n), -1)):  # -1: an ignored name, not read
            t = stored[name]
            if name not in ignore:
                ours = rename.get(name, name)
                # float32, what the model computes in (float16, bfloat16, float8 and float64 too: a float64 1e300 is
                # finite there and infinite here, so it is checked after)
                tensors[ours] = t.float() if t.is_floating_point() and t.dtype != torch.float32 else t
                check_tensor(tensors[ours], expected[ours], name, what)
            done += t.nbytes
            if progress is not None:
                progress(file, done, total)
    return tensors


def finite(t: torch.Tensor) -> bool:
    """Whether every value of a floating-point tensor is finite. A NaN or an infinity anywhere makes the sum NaN or
    infinite, so a finite sum answers at once, in one pass with no bool copy (a tenth of isfinite's time on a 135M
    model's weights); a sum that overflows from finite values is settled element by element."""
    return bool(torch.isfinite(t.sum())) or bool(torch.isfinite(t).all())


def check_tensor(got: torch.Tensor, want: torch.Tensor, shown: str, what: str = WEIGHTS) -> None:
    """Refuse the tensor named `shown` in the file `what` unless it has `want`'s shape and finite floating-point
    values."""
    fields = {"file": what, "tensor": shortened(shown, 80)}
    if tuple(got.shape) != tuple(want.shape):
        raise CheckpointError(f"{what}: {shown} has shape {list(got.shape)}, but the config needs {list(want.shape)}.",
                              code="tensor_shape",
                              fields={**fields, "got": str(list(got.shape)), "want": str(list(want.shape))})
    if not got.is_floating_point():
        raise CheckpointError(f"{what}: {shown} holds {got.dtype} values, not floating-point weights.",
                              code="tensor_dtype", fields={**fields, "dtype": str(got.dtype)})
    if not finite(got):
        raise CheckpointError(f"{what}: {shown} holds NaN or infinite values.", "numbers", "tensor_not_finite",
                              fields)
