"""What every checkpoint loader shares: ours (checkpoint.py) and the Hugging Face BERT import (bert.py).

The error that names what is wrong, the loaded result, the size limits, and tensors read from
model.safetensors and checked name by name and shape by shape. Both loaders build on this
module, and checkpoint.load hands a BERT folder to bert.load, so the arrows go one way:
checkpoint → bert → safe_load. Nothing is unpickled: safetensors and JSON hold data only.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_safetensors

from .config import ModelConfig
from .messages import listed, shortened
from .model import Transformer

CONFIG, WEIGHTS, CARD = "config.json", "model.safetensors", "card.md"
MAX_WEIGHT_BYTES = 512 * 2**20  # far above any model that runs on a laptop CPU in class
MAX_FILE_BYTES = 32 * 2**20  # any other file; the shipped ones are under 1 MB, a BERT tokenizer.json a few
MAX_LAYERS = 96  # per stack: each layer is built (and takes memory) before any weight is read
MAX_POSITIONS = 8192  # max_len of any positional kind: it bounds decoding and every per-position table
MAX_JSON_DEPTH = 64  # a config.json is two levels deep, a tokenizer.json or safetensors header a few more
MAX_HEADER_BYTES = 16 * 2**20  # a safetensors header lists names, shapes and offsets: a few KB per hundred tensors


OPENING, CLOSING = np.frombuffer(b"[{", np.uint8), np.frombuffer(b"]}", np.uint8)


KINDS = ("invalid", "limit", "unsafe", "numbers", "time", "memory", "crash")  # what a UI may say in its own words


class CheckpointError(ValueError):
    """A checkpoint folder that cannot be loaded; the message says which file and why, in at most
    messages.MAX_MESSAGE characters, and `kind` (one of KINDS) what sort of fault it is."""

    def __init__(self, message: str, kind: str = "invalid"):
        super().__init__(shortened(str(message)))
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
        raise CheckpointError(f"{what} nests more than {MAX_JSON_DEPTH} levels deep, which no checkpoint file does.")
    try:
        return json.loads(text)
    except ValueError as e:  # JSONDecodeError, or an integer too long for int() (Python's guard against slow parsing)
        if "digits" in str(e):
            raise CheckpointError(f"{what} holds a number of over 4,300 digits, which no checkpoint needs.") from None
        raise CheckpointError(f"{what} is not valid JSON ({shortened(str(e), 120)}).") from None


def read_json_file(path: Path, what: str):
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise CheckpointError(f"{what} is not UTF-8 text, so it is not JSON.") from None
    return read_json(text, what)


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
    if n >= 10 * 2**20:  # whole megabytes in integers: a config may name a size far beyond any float
        return f"{(n + 2**19) // 2**20:,} MB"
    if n >= 2**20:
        return f"{n / 2**20:.1f} MB"
    return f"{n / 2**10:,.0f} KB" if n >= 2**10 else f"{n:,} bytes"


def within_limit(f: Path) -> Path:
    """The file, if it is no larger than a file of its name may be (read whole, it must fit in memory)."""
    limit = MAX_WEIGHT_BYTES if f.name == WEIGHTS else MAX_FILE_BYTES
    size = f.stat().st_size
    if size > limit:
        raise CheckpointError(f"{f.name} is {size_text(size)}, over the limit of {size_text(limit)}.", "limit")
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
    if header_end - 8 > MAX_HEADER_BYTES:
        return f"has a header of {size_text(header_end - 8)}, over the limit of {size_text(MAX_HEADER_BYTES)}."
    text = data[8:header_end].decode("utf-8", "replace")
    if json_depth(text) > MAX_JSON_DEPTH:
        return f"has a header nested more than {MAX_JSON_DEPTH} levels deep, which no safetensors file has."
    try:
        header = json.loads(text)
        end = header_end + max((v["data_offsets"][1] for k, v in header.items() if k != "__metadata__"), default=0)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        return None  # safetensors itself names what is wrong
    if end > len(data):
        return f"is truncated: it should be {end:,} bytes long, but has {len(data):,}."
    return None


def weight_count(cfg: ModelConfig) -> int:
    """A lower bound of the weights `cfg` builds (biases and norms left out): every embedding table,
    positions and token types included, the layers, and an untied output layer."""
    d, layers = cfg.d_model, cfg.n_encoder_layers * cfg.has_encoder + cfg.n_decoder_layers * cfg.has_decoder
    positions = cfg.max_len if cfg.positional in ("sinusoidal", "learned") else 0
    n = sum(getattr(cfg, f"{side}_vocab_size") + positions + cfg.type_vocab_size for side in cfg.sides) * d
    n += layers * (4 * d * d + 2 * d * cfg.d_ff)
    n += cfg.n_decoder_layers * 4 * d * d if cfg.architecture == "encoder-decoder" else 0  # cross-attention
    return n + (cfg.tgt_vocab_size * d if cfg.has_decoder and not cfg.tie_embeddings else 0)


def check_size(cfg: ModelConfig) -> None:
    """Refuse a config whose model is too big to build or to run, before any memory is taken for it."""
    for stack, n in (("encoder", cfg.n_encoder_layers), ("decoder", cfg.n_decoder_layers)):
        if n > MAX_LAYERS:
            raise CheckpointError(f"{CONFIG} asks for {n} {stack} layers, more than the {MAX_LAYERS} the loader builds.",
                                  "limit")
    for name in ("max_len", "max_positions"):  # whatever the positional kind: they bound decoding and a forward pass
        if getattr(cfg, name) > MAX_POSITIONS:
            raise CheckpointError(f"{CONFIG} asks for {name} {getattr(cfg, name):,}, more than the {MAX_POSITIONS:,} "
                                  f"positions the loader allows.", "limit")
    n = weight_count(cfg)
    if 4 * n > MAX_WEIGHT_BYTES:  # a count past 10¹⁵ is not written out: it may have more digits than int() prints
        model = (f"over {(n + 500_000) // 10**6:,} million weights ({size_text(4 * n)})" if n < 10**15
                 else "more than 10¹⁵ weights")
        raise CheckpointError(f"{CONFIG} describes a model of {model}, over the limit of {size_text(MAX_WEIGHT_BYTES)}.",
                              "limit")


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
        raise CheckpointError(f"{WEIGHTS} lacks tensor(s) the config needs: {listed(missing)}.")
    unexpected = sorted(in_file.get(n, n) for n in set(tensors) - set(expected))
    if unexpected:
        raise CheckpointError(f"{WEIGHTS} has tensor(s) this config has no place for: {listed(unexpected)}.")
    for name, want in expected.items():
        got, shown = tensors[name], in_file.get(name, name)
        if tuple(got.shape) != tuple(want.shape):
            raise CheckpointError(f"{WEIGHTS}: {shown} has shape {list(got.shape)}, but the config needs {list(want.shape)}.")
        if not got.is_floating_point():
            raise CheckpointError(f"{WEIGHTS}: {shown} holds {got.dtype} values, not floating-point weights.")
        if not torch.isfinite(got).all():
            raise CheckpointError(f"{WEIGHTS}: {shown} holds NaN or infinite values.", "numbers")
    return tensors
