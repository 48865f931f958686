"""The models: which there are, where each one's folder is, and each loaded once per server (st.cache_resource).

A shipped model is a folder of MODELS_DIR, MiniLM the installed package's, a visitor's own one is where own_model
keeps it. The other loaders call `models.load_model(...)` through this module, never a copy of the name, so that
replacing it here (as tests do, like MODELS_DIR) reaches every caller.
"""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from core_model import checkpoints
from core_model.importers import bert
from core_model.training.tasks import TASKS, Task

from .. import own_model

__all__ = ["MODELS_DIR", "DEFAULT_MODEL", "LM_NEW_TOKENS", "available_models", "model_folder", "load_model",
           "readable", "shipped_task"]

MODELS_DIR = Path(__file__).resolve().parents[2] / "assets" / "models"  # the checkout's shipped models
DEFAULT_MODEL = "translate-en-fr"
LM_NEW_TOKENS = 20  # as many tokens as `run` lets a decoder-only model continue


def available_models() -> list[str]:
    """Shipped checkpoint folders, the default first, then all-MiniLM-L6-v2 if its package is installed."""
    names = sorted(p.name for p in MODELS_DIR.iterdir() if (p / checkpoints.CONFIG).is_file()) if MODELS_DIR.is_dir() else []
    imported = [bert.MINILM] if bert.minilm_path() is not None else []
    return sorted(names, key=lambda n: n != DEFAULT_MODEL) + imported


def model_folder(name: str) -> Path:
    """Where the model `name` is: a shipped folder, the installed MiniLM, or a user's own (own_model keeps those)."""
    if name == bert.MINILM:
        return bert.minilm_path() or MODELS_DIR / name
    return own_model.folder_of(name) if own_model.is_own(name) else MODELS_DIR / name


@st.cache_resource(max_entries=8, show_spinner=False)
def load_model(name: str) -> checkpoints.Loaded:
    """Load once per server; shared read-only by every session."""
    return checkpoints.load(model_folder(name))


def readable(cfg) -> int:
    """How many tokens of text a model reads: its positions (lm-en: 2,048, past the 512 it was trained on, as
    ALiBi has no table), less the <s> a decoder reads first (an mBART-50's target language too), and room for a
    decoder-only model to continue by LM_NEW_TOKENS (a small one: by at most half its positions)."""
    if cfg.architecture == "decoder":
        return max(cfg.positions - 1 - LM_NEW_TOKENS, (cfg.positions - 1) // 2)
    return cfg.positions - len(cfg.decoder_start) if cfg.has_decoder else cfg.positions


def shipped_task(name: str) -> Task | None:
    """The task a shipped model was trained on (its folder name), or None (MiniLM, a user's own model)."""
    return TASKS.get(name) if name in TASKS and (MODELS_DIR / name / checkpoints.CONFIG).is_file() else None
