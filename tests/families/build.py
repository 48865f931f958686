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
    generation = {key: fields.pop(key) for key in family.generation}
    config = getattr(transformers, family.config_class)(**fields)
    torch.manual_seed(seed)
    model = getattr(transformers, family.model_class)(config)
    for key, value in generation.items():
        setattr(model.generation_config, key, value)
    perturb(model, family.scale)
    model.save_pretrained(dest, safe_serialization=True, **family.save)
    if family.edit is not None:
        family.edit(dest)
    return dest


def perturb(model: torch.nn.Module, scale: float) -> None:
    """Weights larger than the init's (attention far from uniform), norms away from 1 and biases away from 0: a
    swapped norm, a missing bias or a misplaced position shows above the tolerance."""
    with torch.no_grad():
        for name, p in model.named_parameters():  # a tied weight once
            if "norm" in name.lower() or name.endswith("bias") or ".ln_" in name:
                p.add_(torch.randn_like(p) * 0.3)
            elif scale:
                p.add_(torch.randn_like(p) * scale)
        for name, b in model.named_buffers():  # a bias kept as a buffer (BART's and Marian's final_logits_bias)
            if name.endswith("logits_bias"):
                b.copy_(torch.randn_like(b) * 0.1)


def reference(family: Family, folder: Path) -> torch.nn.Module:
    """transformers' own model of the folder, with the eager attention that gives its weights."""
    model_class = getattr(transformers, family.model_class)
    return model_class.from_pretrained(folder, attn_implementation="eager").eval()


def copy_with_config(folder: Path, dest: Path, drop: tuple[str, ...] = (), **fields) -> Path:
    """A copy of a family's folder (shared by the session's tests: never changed in place) with config.json's
    `fields` set and its keys `drop` taken out."""
    import json
    import shutil

    copy = Path(shutil.copytree(folder, dest))
    config = {**json.loads((copy / "config.json").read_text()), **fields}
    (copy / "config.json").write_text(json.dumps({k: v for k, v in config.items() if k not in drop}))
    return copy
