"""A family's small folder, made by transformers: its config class with the family's fields, random weights moved
far from their init, `save_pretrained` with safetensors, and the tokenizer files beside them."""
from __future__ import annotations

from pathlib import Path

import torch
import transformers

from .spec import Family


def build(family: Family, dest: Path, seed: int = 0) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    fields = {**family.fields, **family.tokenizer(dest)}
    config = getattr(transformers, family.config_class)(**fields)
    torch.manual_seed(seed)
    model = getattr(transformers, family.model_class)(config)
    perturb(model, family.scale)
    model.save_pretrained(dest, safe_serialization=True)
    return dest


def perturb(model: torch.nn.Module, scale: float) -> None:
    """Weights larger than the init's (attention far from uniform), norms away from 1 and biases away from 0: a
    swapped norm, a missing bias or a misplaced position shows above the tolerance."""
    with torch.no_grad():
        for name, p in model.named_parameters():  # a tied weight once
            if "norm" in name.lower() or name.endswith("bias"):
                p.add_(torch.randn_like(p) * 0.3)
            elif scale:
                p.add_(torch.randn_like(p) * scale)


def reference(family: Family, folder: Path) -> torch.nn.Module:
    """transformers' own model of the folder, with the eager attention that gives its weights."""
    model_class = getattr(transformers, family.model_class)
    return model_class.from_pretrained(folder, attn_implementation="eager").eval()


def copy_with_config(folder: Path, dest: Path, **fields) -> Path:
    """A copy of a family's folder (shared by the session's tests: never changed in place) with config.json's
    `fields` set."""
    import json
    import shutil

    copy = Path(shutil.copytree(folder, dest))
    config = json.loads((copy / "config.json").read_text())
    (copy / "config.json").write_text(json.dumps({**config, **fields}))
    return copy
