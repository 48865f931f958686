"""Real bad checkpoints to bring into the app, each with the reason the user must be told.

Built from the shipped reverse model; tests/core/test_checkpoint_zip.py tries each kind against
the core directly, tests/app and tests/e2e through the sidebar.
"""
from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import torch

from core_model import ModelConfig, Transformer
from core_model.checkpoint import load, save_safetensors, weights_to_save

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
