"""The models: which there are, where each one's folder is, and each loaded once per server (st.cache_resource).

A shipped model is a folder of MODELS_DIR, MiniLM the installed package's, a visitor's own one is where own_model
keeps it, the operator's own are those named with `attention-viz --model` (viz_app/cli.py) and, on a local run, the
Hugging Face cache's that an importer reads (core_model/checkpoints/hub_cache.py; the sidebar lists them too). Every
model, a visitor's too, runs on the one device the server was started with (`attention-viz --device`). The other loaders call `models.load_model(...)` through this module, never a copy of the name, so that
replacing it here (as tests do, like MODELS_DIR) reaches every caller.
"""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import streamlit as st
import torch

from core_model import checkpoints
from core_model.checkpoints import hub_cache
from core_model.checkpoints.bounded import bounded
from core_model.importers import bert
from core_model.training.tasks import TASKS, Task, source_words

from .. import load_progress, own_model, serving
from ..home import home
from ..operator_settings import DEVICE_SETTING, LOCAL_SETTING, MODELS_SETTING

__all__ = ["MODELS_DIR", "DEFAULT_MODEL", "LM_NEW_TOKENS", "available_models", "first_model", "model_folder",
           "load_model", "preload",
           "readable", "shipped_task", "known_words", "local_run", "cached_models", "device"]

MODELS_DIR = home() / "assets" / "models"  # the shipped models: the checkout's, or those a wheel carries
DEFAULT_MODEL = "translate-en-fr"
LM_NEW_TOKENS = 20  # as many tokens as `run` lets a decoder-only model continue


def available_models() -> list[str]:
    """Shipped checkpoint folders, the default first, then all-MiniLM-L6-v2 if its package is installed, then the
    operator's own models."""
    names = sorted(p.name for p in MODELS_DIR.iterdir() if (p / checkpoints.CONFIG).is_file()) if MODELS_DIR.is_dir() else []
    imported = [bert.MINILM] if bert.minilm_path() is not None else []
    shipped = sorted(names, key=lambda n: n != DEFAULT_MODEL) + imported
    return shipped + [name for name in operator_models() if name not in shipped]


def named_models() -> dict[str, Path]:
    """The models `attention-viz --model` named, by name, in the order named."""
    try:
        return {name: Path(folder) for name, folder in json.loads(os.environ.get(MODELS_SETTING) or "[]")}
    except (ValueError, TypeError):  # set by hand, and wrongly: the app still opens with its shipped models
        return {}


def operator_models() -> dict[str, Path]:
    """The operator's own models by name: those `attention-viz --model` named, then, on a local run, the cache's."""
    named = named_models()
    return {**named, **{m.name: m.path for m in cached_models() if m.name not in named}}


def first_model() -> str:
    """The model a first visit opens: the first one `attention-viz --model` named, else the shipped default."""
    return next(iter(named_models()), DEFAULT_MODEL)


def model_folder(name: str) -> Path:
    """Where the model `name` is: a shipped folder, the installed MiniLM, a user's own (own_model keeps those), or
    the operator's own."""
    if name == bert.MINILM:
        return bert.minilm_path() or MODELS_DIR / name
    if own_model.is_own(name):
        return own_model.folder_of(name)
    mine = operator_models()
    return mine[name] if name in mine and not (MODELS_DIR / name).is_dir() else MODELS_DIR / name


def local_run() -> bool:
    """Whether the app was started for this machine's own user (`attention-viz` without --serve)."""
    return os.environ.get(LOCAL_SETTING) == "1"


def device() -> torch.device:
    """The device every model is loaded on and run on: the one `attention-viz --device` chose, else the CPU."""
    try:
        return torch.device(os.environ.get(DEVICE_SETTING) or "cpu")
    except RuntimeError:  # set by hand, and wrongly: the app still opens, on the CPU
        return torch.device("cpu")


def cached_models() -> list[hub_cache.Cached]:
    """On a local run, the models of the Hugging Face cache an importer reads; on a server for others, none."""
    return _scan() if local_run() else []


@st.cache_data(ttl=30, max_entries=1, max_size="1MB", show_spinner=False)
def _scan() -> list[hub_cache.Cached]:
    return hub_cache.cached_models()  # a walk over the cache's folders: once in 30 s, not on every rerun


def load_model(name: str) -> checkpoints.Loaded:
    """The model `name`, loaded once per server (_load_cached, a visitor's own in _load_own); while its weights are
    read, a bar names the file and the bytes (viz_app/load_progress.py: drawn outside the cache, so that no later hit
    replays it)."""
    with load_progress.bar() as progress:
        if not own_model.is_own(name):
            return _load_cached(name, progress)
        loaded = _load_own(name, progress)
    if _released.is_set():  # the model this one pushed out of _load_own is gone now: its memory goes back
        _released.clear()
        serving.give_back()
    return loaded


def preload() -> None:
    """Load first_model() into the cache while the server starts (viz_app/cli.py), so that a first visit finds it
    loaded; a model that does not load is left to the page to say why."""
    try:
        _load_cached(first_model())
    except (ValueError, OSError):  # CheckpointError is a ValueError
        pass


@st.cache_resource(max_entries=8, show_spinner=False)
def _load_cached(name: str, _progress=None) -> checkpoints.Loaded:
    """Load once per server; shared read-only by every session, on the server's device(). The operator's own models
    are read as theirs (bounded by the machine's memory), the shipped ones with a visitor's limits
    (core_model/checkpoints/safe_load.Route). `_progress` is told how far the weights are read; its leading _ keeps
    it out of the cache's key."""
    trusted = name in operator_models() and not (MODELS_DIR / name).is_dir()
    loaded = checkpoints.load(model_folder(name), trusted=trusted, progress=_progress)
    loaded.model.to(device())  # in place: the Loaded holds the same module, now on the device
    return loaded


# A visitor's model left _load_own's cache. Its weights' blocks (16 MiB each, under malloc's 32 MiB mmap threshold)
# stayed in malloc's arenas once freed: eight 230 MiB models brought in turn kept the server at 2.3 GB, eight models'
# worth, though the cache held four (bench/uploads.py).
_released = threading.Event()


@st.cache_resource(max_entries=own_model.MAX_LOADED, show_spinner=False, on_release=lambda loaded: _released.set())
def _load_own(name: str, _progress=None) -> checkpoints.Loaded:
    """A visitor's own model, loaded with a visitor's limits, in a cache of its own: however many visitors bring
    models, at most own_model.MAX_LOADED stay in memory (each within the loader's 512 MB of weights), and they never
    push the shipped ones out. Its tokenizers encode in a child process, stopped past a few seconds a text
    (core_model/checkpoints/bounded.py)."""
    loaded = checkpoints.load(model_folder(name), trusted=False, progress=_progress)
    loaded.model.to(device())
    return bounded(loaded)


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


def known_words(name: str) -> frozenset[str] | None:
    """The words a shipped model read in training (its typed text is normalised to them and checked against them,
    text.prepare), or None for a model not trained here."""
    task = shipped_task(name)
    return None if task is None else source_words(task.name)
