"""The importers the loader knows, keyed by the `model_type` of a Hugging Face config.json.

An importer is a module of core_model/importers that declares
  MODEL_TYPES   the config.json `model_type` values it reads ("bert", "gpt2", ...),
  FAMILY        its family's name as a reader knows it ("BERT"),
  FILES         the files of a folder it reads besides config.json and model.safetensors,
  load(path)    the folder as a Loaded model.
importers/__init__.py installs them all, once; folder.load looks the folder's model_type up here, so no
family is tried in turn, and this package never imports an importer (importers build on checkpoints).
"""
from __future__ import annotations

from types import MappingProxyType, ModuleType

_BY_TYPE: MappingProxyType = MappingProxyType({})  # model_type -> importer; set once, by install


def table(importers) -> dict[str, ModuleType]:
    """model_type -> the importer that reads it. A model_type two importers claim is a mistake in the code:
    dispatch would depend on the order of the list, so it is refused, naming both."""
    by_type = {}
    for importer in importers:
        for model_type in importer.MODEL_TYPES:
            if model_type in by_type:
                raise ValueError(f"model_type {model_type!r} is read by both {by_type[model_type].__name__} and "
                                 f"{importer.__name__}.")
            by_type[model_type] = importer
    return by_type


def install(importers) -> None:
    """Make each importer the reader of the model_types it declares: once, when core_model is imported
    (importers/__init__.py), so that what a folder is read by never changes while the app runs."""
    global _BY_TYPE
    if _BY_TYPE:
        raise RuntimeError("the importers are installed once, by core_model/importers/__init__.py.")
    _BY_TYPE = MappingProxyType(table(importers))


def importer_for(model_type) -> ModuleType | None:
    """The importer that reads `model_type`, or None."""
    return _BY_TYPE.get(model_type) if isinstance(model_type, str) else None


def model_types() -> list[str]:
    """Every config.json model_type an importer reads, sorted: what a folder's config.json must say."""
    return sorted(_BY_TYPE)


def files() -> tuple[str, ...]:
    """Every file an importer reads besides config.json and the weights, each once, in registration order."""
    return tuple(dict.fromkeys(name for importer in _BY_TYPE.values() for name in importer.FILES))
