"""A Hugging Face cache laid out as huggingface_hub lays it out, for the tests: models--org--name/ with blobs/ (each
file once, named by its hash), snapshots/<commit>/ (links into blobs/) and refs/main (the commit's hash)."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path


def add_to_cache(cache: Path, name: str, folder: Path, commit: str | None = None, main: bool = True) -> Path:
    """Put `folder`'s files into `cache` as hub model `name`'s snapshot `commit`; returns the snapshot folder."""
    repo = cache / ("models--" + name.replace("/", "--"))
    commit = commit or hashlib.sha1(f"{name}{folder}".encode()).hexdigest()
    snapshot = repo / "snapshots" / commit
    (repo / "blobs").mkdir(parents=True, exist_ok=True)
    snapshot.mkdir(parents=True)
    for f in sorted(folder.iterdir()):
        if f.is_file():
            data = f.read_bytes()
            blob = repo / "blobs" / hashlib.sha256(data).hexdigest()
            blob.write_bytes(data)
            os.symlink(os.path.relpath(blob, snapshot), snapshot / f.name)
    if main:
        (repo / "refs").mkdir(exist_ok=True)
        (repo / "refs" / "main").write_text(commit)
    return snapshot
