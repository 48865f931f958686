"""Load a checkpoint someone brought, in a child process held to a time and a memory limit.

A checkpoint from a stranger is read in `python -m core_model.checkpoints.probe FOLDER` (its address space limited
first), never first in the server: the child loads it with every check of checkpoints.load, runs its
tokenizers and one forward pass on a plain sentence, and prints one line of JSON with the reason it was
refused (or none). Whatever the files
do (a size the checks missed, a tokenizer that panics, a parser that recurses), the child is what runs
out of memory or time, and the server only reads its verdict.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import torch

from .folder import load
from ..messages import shortened
from .safe_load import KINDS, CheckpointError, size_text

ROOT = Path(__file__).resolve().parents[2]  # the folder that holds core_model
SECONDS = 60  # a model that runs on a laptop CPU in class loads in a few seconds
MEMORY = 4 * 2**30  # address space: torch alone reserves about 1 GB, the largest model allowed ~1.5 GB more
SENTENCE = "the cat sees a dog ."


def check(folder) -> None:
    """Load `folder` in a bounded child process; raise CheckpointError with its reason if it cannot be used."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    # The child limits itself before it imports anything else: a preexec_fn could deadlock a threaded server.
    start = (f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({MEMORY}, {MEMORY})); "
             "import runpy; runpy.run_module('core_model.checkpoints.probe', run_name='__main__')")
    try:
        done = subprocess.run([sys.executable, "-c", start, str(folder)], capture_output=True, text=True,
                              timeout=SECONDS, cwd=ROOT, env=env)
    except subprocess.TimeoutExpired:
        raise CheckpointError(f"loading the model took over {SECONDS} s, the loader's limit.", "time", "load_time",
                              {"seconds": SECONDS}) from None
    verdict = _verdict(done.stdout)
    if done.returncode != 0 or verdict is None:
        raise CheckpointError(f"loading the model needed more than the loader's {size_text(MEMORY)} of memory, "
                              "or crashed.", "memory", "load_memory_or_crash", {"limit": size_text(MEMORY)})
    if verdict["refused"]:
        raise CheckpointError(verdict["refused"], verdict["kind"], verdict["code"], verdict["fields"])


def _verdict(stdout: str) -> dict | None:
    """The child's verdict: {"refused": its reason ("" when it found none), "kind": the reason's kind, "code" and
    "fields": CheckpointError's}; None if it printed none."""
    try:
        verdict = json.loads(stdout.strip().splitlines()[-1])
        fields = {str(k): v for k, v in dict(verdict["fields"]).items() if isinstance(v, (str, int))}
        return {"refused": str(verdict["refused"]), "kind": verdict["kind"] if verdict["kind"] in KINDS else "invalid",
                "code": str(verdict["code"]), "fields": fields}
    except (ValueError, IndexError, KeyError, TypeError, AttributeError):
        return None


def try_out(folder) -> None:
    """What the child does: load, tokenize a plain sentence, run the model once; raise if anything is wrong."""
    loaded = load(folder)
    ids = {side: tok.encode(SENTENCE) or [tok.unk_id] for side, tok in loaded.tokenizers.items()}
    cfg = loaded.config
    src = torch.tensor([ids["src"][:cfg.max_len]]) if cfg.has_encoder else None
    tgt = torch.tensor([[cfg.bos_id, *ids.get("tgt", [])][:cfg.max_len]]) if cfg.has_decoder else None
    with torch.no_grad():
        out = loaded.model(src, tgt)  # logits, or an encoder's last hidden states
    if not torch.isfinite(out).all():
        raise CheckpointError("the model's outputs on a plain sentence are not finite numbers (NaN or infinity): "
                              "its weights are too large to compute with.", "numbers", "outputs_not_finite")


def main(folder: str) -> int:
    try:
        try_out(folder)
        refused, kind, code, fields = "", "invalid", "", {}
    except CheckpointError as e:
        refused, kind, code, fields = str(e), e.kind, e.code, e.fields
    except MemoryError:
        refused, kind = f"loading the model needed more than the loader's {size_text(MEMORY)} of memory.", "memory"
        code, fields = "load_memory", {"limit": size_text(MEMORY)}
    except RecursionError:
        refused, kind, code, fields = "a file of the model nests too deeply to be read.", "invalid", "too_deep", {}
    except BaseException as e:  # a Rust panic from a tokenizer is a BaseException too
        if isinstance(e, KeyboardInterrupt):
            raise
        refused, kind = f"the model could not be loaded ({type(e).__name__}: {e}).", "crash"
        code, fields = "load_crash", {"detail": shortened(f"{type(e).__name__}: {e}", 200)}
    # the caller words its folders its way
    print(json.dumps({"refused": shortened(refused), "kind": kind, "code": code, "fields": fields}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
