"""Models already on this machine: a folder, or a Hugging Face hub name found in the local Hugging Face cache.

The cache is read with huggingface_hub itself, offline (`local_files_only`: never a download), where its settings put
it: HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub. A name is `org/name` (or `name`); its folder is the
snapshot `refs/main` points to, else the newest snapshot. A snapshot's files are links into the repository's blobs/:
they are followed only where they stay inside the cache.

A model found here is the operator's own (named on the command line, or picked on a local run): checkpoints.load reads
it with the limits of that route, never those of a visitor's upload.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from . import registry
from .safe_load import CONFIG, CheckpointError, size_text


@dataclass(frozen=True)
class Cached:
    """A model of the cache that an importer reads: its hub name, family, size on disk and snapshot folder."""
    name: str
    family: str
    size: str
    path: Path


def cache_dir() -> Path:
    """Where the Hugging Face cache is, by its own settings read now (a test or a launcher may have set them)."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    home = os.environ.get("HF_HOME") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "huggingface"
    return Path(home).expanduser() / "hub"


def resolve(spec: str, cache: Path | None = None) -> tuple[str, Path]:
    """(the name to show, the folder) of a model named by a folder path or a hub name found in the cache;
    CheckpointError naming the name and where it looked when it is neither."""
    folder = Path(spec).expanduser()
    if spec.strip() and folder.is_dir():
        return folder.resolve().name, folder.resolve()
    cache = cache or cache_dir()
    snapshot = _snapshot(spec, cache)
    if snapshot is None:
        raise CheckpointError(f"{spec!r} is not a folder, and the Hugging Face cache at {cache} has no model of that "
                              "name (nothing is downloaded: fetch it once with huggingface_hub or transformers).",
                              code="model_not_found", fields={"name": spec[:200], "cache": str(cache)})
    _check_links(snapshot, cache)
    return spec, snapshot


def _snapshot(name: str, cache: Path) -> Path | None:
    """The snapshot folder of hub model `name` in `cache`: refs/main's, else the newest; None if it has none."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    if not cache.is_dir() or name.count("/") > 1 or not name.strip("/"):
        return None
    try:
        return Path(snapshot_download(name, cache_dir=cache, local_files_only=True))
    except (LocalEntryNotFoundError, ValueError, OSError):
        pass
    snapshots = cache / ("models--" + name.replace("/", "--")) / "snapshots"
    found = [p for p in snapshots.iterdir() if p.is_dir()] if snapshots.is_dir() else []
    return max(found, key=lambda p: p.stat().st_mtime) if found else None


def _check_links(snapshot: Path, cache: Path) -> None:
    """Refuse a snapshot with a file that leads outside the cache (the cache's own links lead into blobs/)."""
    root = cache.resolve()
    for f in snapshot.rglob("*"):
        if not f.resolve().is_relative_to(root):
            raise CheckpointError(f"{f.relative_to(snapshot)} in the cached snapshot leads outside the cache, so the "
                                  "snapshot is not read.", "unsafe", "cache_link_outside",
                                  {"file": str(f.relative_to(snapshot))[:200]})


def cached_models(cache: Path | None = None) -> list[Cached]:
    """Every model of the cache whose config.json's model_type an importer reads, by name (a scan of the cache's
    folders and each model's config.json: no weights are read)."""
    from huggingface_hub import scan_cache_dir
    from huggingface_hub.errors import CacheNotFound, CorruptedCacheException

    cache = cache or cache_dir()
    try:
        repos = scan_cache_dir(cache).repos
    except (CacheNotFound, CorruptedCacheException, OSError):
        return []
    found = []
    for repo in sorted(repos, key=lambda r: r.repo_id.casefold()):
        if repo.repo_type != "model" or not repo.revisions:
            continue
        snapshot = _snapshot(repo.repo_id, cache)
        importer = registry.importer_for(_model_type(snapshot)) if snapshot else None
        if importer is not None:
            found.append(Cached(repo.repo_id, importer.FAMILY, size_text(repo.size_on_disk), snapshot))
    return found


def _model_type(snapshot: Path):
    try:
        return json.loads((snapshot / CONFIG).read_text(encoding="utf-8")).get("model_type")
    except (OSError, ValueError, AttributeError):
        return None
