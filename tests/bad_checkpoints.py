"""Real bad checkpoints to bring into the app, each with the reason the user must be told.

Built from the shipped reverse model; tests/core/test_checkpoint_zip.py tries each kind against
the core directly, tests/app and tests/e2e through the sidebar.
"""
from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path

import torch
from safetensors.torch import save as save_safetensors

from core_model import ModelConfig, Transformer
from core_model.checkpoints import load, weights_to_save

REVERSE = Path(__file__).resolve().parents[1] / "assets" / "models" / "reverse"


class Payload:
    """Unpickling this runs a shell command that creates the marker file: a real malicious pickle."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


def torch_save_payload(marker: Path) -> bytes:
    buf = io.BytesIO()
    torch.save({"weight": Payload(marker)}, buf)  # the zip-based pickle file torch.save writes
    return buf.getvalue()


def assert_pickle_only_is_refused_unread(folder: Path, tmp_path: Path) -> None:
    """A copy of `folder` with its model.safetensors swapped for a malicious pytorch_model.bin is refused by
    checkpoints.load, and the pickle never runs (it would create a marker file)."""
    import shutil

    import pytest

    from core_model.checkpoints import CheckpointError

    copy = Path(shutil.copytree(folder, tmp_path / "pickled"))
    (copy / "model.safetensors").unlink()
    marker = tmp_path / "pwned"
    (copy / "pytorch_model.bin").write_bytes(torch_save_payload(marker))
    with pytest.raises(CheckpointError, match="pytorch_model.bin is a pickle-based checkpoint") as caught:
        load(copy)
    assert caught.value.code == "pickle_checkpoint" and not marker.exists()


def files_of(path: Path = REVERSE) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.iterdir())}


def zip_of(files: dict[str, bytes], top: str | None = "mine") -> bytes:
    """A zip holding `files` (name -> bytes), inside the folder `top` or at the root."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(f"{top}/{name}" if top else name, data)
    return buf.getvalue()


def other_config_weights() -> tuple[bytes, str]:
    """The weights of a model whose FFN is twice as wide as reverse's config says, and the reason."""
    cfg = load(REVERSE).config
    wider = Transformer(ModelConfig(**{**cfg.to_dict(), "d_ff": 2 * cfg.d_ff}))
    return save_safetensors(weights_to_save(wider)), (
        f"model.safetensors: encoder.layers.0.ffn.linear1.weight has shape [{2 * cfg.d_ff}, {cfg.d_model}], "
        f"but the config needs [{cfg.d_ff}, {cfg.d_model}].")


def compressible_bomb(megabytes: int = 300) -> bytes:
    """A zip of under 1 MB whose model.safetensors unpacks to `megabytes` MB of zeros."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        with z.open("mine/model.safetensors", "w") as member:
            for _ in range(megabytes):
                member.write(bytes(2**20))
    return buf.getvalue()


def bad_zips(marker: Path) -> dict[str, tuple[bytes, str]]:
    """Each kind of bad upload: (the zip's bytes, the reason the user is told). `marker` must never appear."""
    good = files_of()
    weights = good["model.safetensors"]
    pickle_only = {**good, "pytorch_model.bin": torch_save_payload(marker)}
    del pickle_only["model.safetensors"]
    wrong, wrong_reason = other_config_weights()
    return {
        "pickle checkpoint": (zip_of(pickle_only), (
            "pytorch_model.bin is a pickle-based checkpoint, which is not accepted because loading a pickle can run "
            "any code: only model.safetensors is read (save the weights with safetensors).")),
        "pickle named model.safetensors": (zip_of({**good, "model.safetensors": torch_save_payload(marker)}), (
            "model.safetensors holds a pickle (what torch.save writes), not safetensors data; loading a pickle can "
            "run any code, so it is not read.")),
        "truncated weights": (zip_of({**good, "model.safetensors": weights[:len(weights) // 2]}), (
            f"model.safetensors is truncated: it should be {len(weights):,} bytes long, but has {len(weights) // 2:,}.")),
        "weights of another config": (zip_of({**good, "model.safetensors": wrong}), wrong_reason),
        "zip slip": (zip_of({**good, "../evil": b"owned"}, top=None),
                     "the zip entry '../evil' climbs out of its folder with '..'."),
        "absolute path": (zip_of({**good, "/tmp/evil": b"owned"}, top=None),
                          "the zip entry '/tmp/evil' has an absolute path, which could write anywhere on the disk."),
        "zip bomb": (compressible_bomb(), "the zip unpacks to 300 MB, over the limit of 256 MB."),
        "not a zip": (b"PK\x03\x04 this only looks like a zip", "the file is not a zip archive (or the zip is damaged)."),
        "oversized zip": (bytes(130 * 2**20), "the zip is 130 MB, over the limit of 128 MB."),
    }


# ----- hostile checkpoint folders: files that try to take the server down (tests/core/test_hostile_checkpoints.py)

def reverse_copy(dest: Path, **config) -> Path:
    """A copy of the shipped reverse model in the new folder `dest`, its config.json fields changed by `config`."""
    dest = Path(dest)
    dest.mkdir(parents=True)
    for name, data in files_of().items():
        (dest / name).write_bytes(data)
    if config:
        write_config(dest, {**json.loads((REVERSE / "config.json").read_text(encoding="utf-8")), **config})
    return dest


def write_config(folder: Path, fields) -> None:
    (Path(folder) / "config.json").write_text(json.dumps(fields), encoding="utf-8")


def nested_json(depth: int, kind: str = "array") -> str:
    """`depth` levels of JSON arrays (an unclosed '[' run, as a hostile file sends it) or of
    objects (valid JSON: {"a": {"a": ... 1 ... }})."""
    if kind == "array":
        return "[" * depth
    return '{"a": ' * depth + "1" + "}" * depth


def safetensors_bytes(header: bytes, body: bytes = b"") -> bytes:
    """A safetensors file: the 8-byte little-endian header length, the header, then `body`."""
    return len(header).to_bytes(8, "little") + header + body


def tiny_bert(dest: Path, pre_tokenizer: dict | None = None) -> Path:
    """A one-layer, 8-wide Hugging Face BERT folder with the installed MiniLM's tokenizer.json
    (its pre_tokenizer replaced by `pre_tokenizer` when given)."""
    import transformers

    from core_model.importers.bert import minilm_path

    dest = Path(dest)
    cfg = transformers.BertConfig(vocab_size=30522, hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
                                  intermediate_size=16, max_position_embeddings=64)
    transformers.BertModel(cfg).save_pretrained(dest, safe_serialization=True)
    tokenizer = json.loads((minilm_path() / "tokenizer.json").read_text(encoding="utf-8"))
    if pre_tokenizer is not None:
        tokenizer["pre_tokenizer"] = pre_tokenizer
    (dest / "tokenizer.json").write_text(json.dumps(tokenizer), encoding="utf-8")
    return dest


def split_regex(pattern: str) -> dict:
    """A pre_tokenizer that splits on `pattern`: one with nested quantifiers backtracks until the
    regex engine's retry limit, which the tokenizers library turns into a Rust panic."""
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}


def with_bert_config(src: Path, dest: Path, **fields) -> Path:
    """A copy of the BERT folder `src` in `dest`, its config.json fields changed by `fields`."""
    dest = Path(dest)
    dest.mkdir(parents=True)
    for p in Path(src).iterdir():
        (dest / p.name).write_bytes(p.read_bytes())
    write_config(dest, {**json.loads((Path(src) / "config.json").read_text(encoding="utf-8")), **fields})
    return dest


def endless_model(dest: Path, max_len: int = 8192) -> Path:
    """A tiny reverse-vocabulary model with RoPE positions up to `max_len` that never emits eos
    (its output bias for eos is -100), so only a budget or a clock stops its decoding."""
    from core_model import checkpoints

    loaded = load(REVERSE)
    cfg = ModelConfig(**{**loaded.config.to_dict(), "d_model": 8, "n_heads": 2, "d_ff": 16, "n_encoder_layers": 1,
                         "n_decoder_layers": 1, "positional": "rope", "max_len": max_len})
    model = Transformer(cfg).eval()
    with torch.no_grad():
        model.generator.bias[cfg.eos_id] = -100.0
    return checkpoints.save(dest, model, loaded.tokenizers, card="never stops")


def deep_model(dest: Path, layers: int = 96, heads: int = 8, max_len: int = 8192) -> Path:
    """A decoder-only model as deep as the loader allows, 16 wide with heads 4 wide, RoPE positions up to `max_len` and
    the reverse model's vocabulary: small on disk, costly to trace at length (layers × heads × length²)."""
    from core_model import checkpoints

    loaded = load(REVERSE)
    cfg = ModelConfig(**{**loaded.config.to_dict(), "architecture": "decoder", "d_model": 16, "n_heads": heads, "head_dim": 4,
                         "d_ff": 16, "n_encoder_layers": 0, "n_decoder_layers": layers, "positional": "rope",
                         "max_len": max_len})
    return checkpoints.save(dest, Transformer(cfg).eval(), {"tgt": loaded.tokenizers["src"]}, card="deep")


def huge_weights(dest: Path, value: float = 3e38) -> Path:
    """The reverse model with every weight set to `value`: finite, but its outputs overflow float32."""
    from core_model import checkpoints

    loaded = load(REVERSE)
    with torch.no_grad():
        for p in loaded.model.parameters():
            p.fill_(value)
    return checkpoints.save(dest, loaded.model, loaded.tokenizers, card="too large to compute with")
