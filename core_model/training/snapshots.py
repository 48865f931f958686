"""Heads forming: every attention pattern of a few probe sentences, saved at about 20 log-spaced steps of
training, with the cross-attention's alignment error rate per decoder layer at each of them.

Kept in each checkpoint (and shipped) as attention_steps.safetensors: float16 patterns, a few MB at most.

    steps            int64 [S]             the optimizer steps saved (0: before the first update)
    aer              float32 [S, layers]   alignment error rate per decoder layer (encoder-decoder tasks)
    probe{i}.{block} float16 [S, L, H, q, k]  block: encoder.self_attn, decoder.self_attn, decoder.cross_attn
    metadata "probes": JSON, per probe {"src": [pieces], "tgt": [pieces]}

read_snapshots takes a file that may come from anyone (an uploaded zip): bounded size, data only (safetensors,
no pickle), every shape checked against the others.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import save as save_safetensors

from ..checkpoints.safe_load import MAX_SNAPSHOT_BYTES, SNAPSHOT_FILE, CheckpointError, size_text
from ..trace import run_with_trace

MAX_STEPS = 64
PROBES = 4  # probe pairs: the first of the validation split
AER_PAIRS = 50  # validation pairs whose cross-attention is scored against the gold alignment at each saved step
COUNT = 20  # about this many steps are saved, log-spaced
BLOCKS = ("encoder.self_attn", "decoder.self_attn", "decoder.cross_attn")


def snapshot_steps(total: int, count: int = COUNT) -> list[int]:
    """Step 0 (the untrained model) and about `count` log-spaced steps from 1 to `total`, `total` included."""
    return [0] + sorted({int(s) for s in np.round(np.geomspace(1, total, count))} | {total})


@dataclass(frozen=True)
class Probe:
    src: list[str]  # display pieces (empty for a decoder-only model)
    tgt: list[str]  # display pieces of <s> + target
    src_ids: list[int]
    tgt_ids: list[int]


def probe_of(tokenizers: dict, bos_id: int, src_text: str | None, tgt_text: str) -> Probe:
    tgt_ids = [bos_id] + tokenizers["tgt"].encode(tgt_text)
    src_ids = tokenizers["src"].encode(src_text) if src_text is not None else []
    return Probe(tokenizers["src"].display_pieces(src_ids) if src_ids else [],
                 tokenizers["tgt"].display_pieces(tgt_ids), src_ids, tgt_ids)


@torch.no_grad()
def patterns(model, probe: Probe) -> dict[str, np.ndarray]:
    """Every block's patterns of one probe: {block: [L, H, q, k] float16}."""
    _, trace = run_with_trace(model, probe.src_ids or None, probe.tgt_ids, names="*.pattern")
    out = {}
    for block in BLOCKS:
        stack, kind = block.split(".")
        layers = trace.n_layers(stack)
        if layers and f"{stack}.layers.0.{kind}.pattern" in trace:
            out[block] = np.stack([trace.attn(stack, l, kind).pattern[0] for l in range(layers)]).astype(np.float16)
    return out


class SnapshotWriter:
    """The saved steps so far; add() records one step (the model put in eval mode and back), to_bytes() the file."""

    def __init__(self, probes: list[Probe], wanted: list[int], aer=None, saved: dict | None = None):
        self.probes, self.wanted, self.aer = probes, set(wanted), aer
        self.saved = dict(saved or {})  # step -> ({probe index: {block: array}}, aer row or None)

    def wants(self, step: int) -> bool:
        return step in self.wanted and step not in self.saved

    @torch.no_grad()
    def add(self, step: int, model) -> None:
        was_training = model.training
        model.eval()
        self.saved[step] = ({i: patterns(model, p) for i, p in enumerate(self.probes)},
                            None if self.aer is None else np.asarray(self.aer(model), dtype=np.float32))
        model.train(was_training)

    def to_bytes(self) -> bytes:
        steps = sorted(self.saved)
        tensors = {"steps": torch.tensor(steps, dtype=torch.int64)}
        if self.aer is not None and steps:
            tensors["aer"] = torch.as_tensor(np.stack([self.saved[s][1] for s in steps]))
        for i in range(len(self.probes)):
            for block in (self.saved[steps[0]][0][i] if steps else {}):
                tensors[f"probe{i}.{block}"] = torch.as_tensor(np.stack([self.saved[s][0][i][block] for s in steps]))
        meta = json.dumps([{"src": p.src, "tgt": p.tgt} for p in self.probes])
        return save_safetensors(tensors, metadata={"probes": meta})


@dataclass(frozen=True)
class Snapshots:
    """A read attention_steps.safetensors: the steps, the AER per layer, and per probe its pieces and patterns."""
    steps: np.ndarray  # int64 [S]
    aer: np.ndarray | None  # float32 [S, decoder layers]
    probes: list[dict]  # {"src": [pieces], "tgt": [pieces], "blocks": {block: float32 [S, L, H, q, k]}}


def read_snapshots(folder) -> Snapshots | None:
    """The snapshots in `folder`, every shape checked; None if there are none, CheckpointError if they are bad."""
    path = Path(folder) / SNAPSHOT_FILE
    if not path.exists() and not path.is_symlink():
        return None
    if not path.is_file():
        raise CheckpointError(f"{SNAPSHOT_FILE} is not a regular file.", code="not_regular_file",
                              fields={"file": SNAPSHOT_FILE})
    size = path.stat().st_size
    if size > MAX_SNAPSHOT_BYTES:
        raise CheckpointError(f"{SNAPSHOT_FILE} is {size_text(size)}, over the limit of "
                              f"{size_text(MAX_SNAPSHOT_BYTES)}.", "limit", "file_too_big",
                              {"file": SNAPSHOT_FILE, "size": size_text(size), "limit": size_text(MAX_SNAPSHOT_BYTES)})
    try:
        with safe_open(str(path), framework="np") as f:
            meta, tensors = f.metadata() or {}, {name: f.get_tensor(name) for name in f.keys()}
        probes = json.loads(meta.get("probes", "null"))
    except (SafetensorError, OSError, ValueError, RuntimeError) as e:
        raise CheckpointError(f"{SNAPSHOT_FILE} cannot be read: {str(e)[:200]}", code="snapshots_unreadable",
                              fields={"file": SNAPSHOT_FILE}) from None
    return checked(tensors, probes)


def _bad(why: str) -> CheckpointError:
    return CheckpointError(f"{SNAPSHOT_FILE}: {why}", code="snapshots_bad", fields={"file": SNAPSHOT_FILE})


def checked(tensors: dict, probes) -> Snapshots:
    """The file's arrays as Snapshots, after checking they describe one set of probes at one set of steps."""
    steps = tensors.get("steps")
    if steps is None or steps.dtype != np.int64 or steps.ndim != 1 or not 0 < len(steps) <= MAX_STEPS:
        raise _bad(f"'steps' must be 1 to {MAX_STEPS} whole numbers.")
    if (steps < 0).any() or (np.diff(steps) <= 0).any():
        raise _bad("'steps' must rise strictly from 0 or more.")
    if not isinstance(probes, list) or not 0 < len(probes) <= PROBES or not all(
            isinstance(p, dict) and all(isinstance(p.get(side), list) and all(isinstance(x, str) for x in p[side])
                                        for side in ("src", "tgt")) for p in probes):
        raise _bad(f"the 'probes' metadata must list 1 to {PROBES} probes, each with 'src' and 'tgt' pieces.")
    aer = tensors.get("aer")
    if aer is not None and (aer.ndim != 2 or len(aer) != len(steps) or not np.isfinite(aer).all()):
        raise _bad("'aer' must hold one finite row per step.")
    out = []
    for i, probe in enumerate(probes):
        blocks = {}
        for block in BLOCKS:
            a = tensors.get(f"probe{i}.{block}")
            if a is None:
                continue
            q = len(probe["tgt"]) if block.startswith("decoder") else len(probe["src"])
            k = len(probe["src"]) if block.endswith("cross_attn") or block.startswith("encoder") else len(probe["tgt"])
            if a.dtype != np.float16 or a.ndim != 5 or a.shape[0] != len(steps) or a.shape[3:] != (q, k):
                raise _bad(f"probe{i}.{block} must be float16 [steps, layers, heads, {q}, {k}].")
            blocks[block] = a.astype(np.float32)
        if not blocks:
            raise _bad(f"probe {i} has no patterns.")
        out.append({"src": probe["src"], "tgt": probe["tgt"], "blocks": blocks})
    return Snapshots(steps, None if aer is None else aer.astype(np.float32), out)


def resumed(writer: SnapshotWriter, snaps: Snapshots | None, step: int) -> SnapshotWriter:
    """`writer` holding the steps of `snaps` up to `step` (a run resumed at `step` saves the later ones again)."""
    for s, at in enumerate(snaps.steps if snaps is not None else []):
        if at <= step:
            patterns_at = {i: {b: a[s].astype(np.float16) for b, a in p["blocks"].items()} for i, p in enumerate(snaps.probes)}
            writer.saved[int(at)] = (patterns_at, None if snaps.aer is None else snaps.aer[s])
    return writer
