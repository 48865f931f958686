"""Heads forming: the attention snapshots a real training run saves (the model's own patterns and AER at
log-spaced steps), how --resume continues them, ship carries them, and read_snapshots refuses a hostile file
with a CheckpointError, never another exception."""
from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
import torch
from safetensors.torch import save as save_safetensors

from core_model import checkpoints
from core_model.training import evaluate
from core_model.checkpoints import CheckpointError
from core_model.training.evaluate import alignment_error_rates
from core_model.training.snapshots import (AER_PAIRS, MAX_SNAPSHOT_BYTES, PROBES, SNAPSHOT_FILE, patterns, probe_of,
                                  read_snapshots, snapshot_steps)
from core_model.training.tasks import corpus
from core_model.training.train import train

from .test_train import TINY  # the small reversal model of the training tests

STEPS, SAVE = 20, 10


def run(out, steps=STEPS, resume=False):
    return train(TINY, out, steps=steps, resume=resume, validate_every=SAVE, save_every=SAVE, progress=False)


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    out = tmp_path_factory.mktemp("snapshots") / "run"
    run(out)
    return out


def test_the_steps_are_log_spaced_from_the_untrained_model_to_the_last():
    short = snapshot_steps(20)
    assert short[:3] == [0, 1, 2] and short[-1] == 20 and len(short) <= 21 and short == sorted(set(short))
    steps = snapshot_steps(4000)
    assert steps[:3] == [0, 1, 2] and steps[-1] == 4000 and 18 <= len(steps) <= 22
    assert all(b / a < 1.8 for a, b in zip(steps[8:], steps[9:]))  # evenly spread on a log scale


def test_a_run_saves_the_models_own_patterns_and_aer(straight):
    snaps = read_snapshots(straight / "checkpoint")
    assert snaps.steps.tolist() == snapshot_steps(STEPS) and len(snaps.probes) == PROBES
    final = checkpoints.load(straight / "checkpoint")
    valid = corpus(TINY, 0)["valid"]
    probe = probe_of(final.tokenizers, final.config.bos_id, valid[0][0], valid[0][1])
    assert snaps.probes[0]["src"] == probe.src and snaps.probes[0]["tgt"] == probe.tgt
    expected = patterns(final.model, probe)  # the trained model's patterns, traced now
    assert set(snaps.probes[0]["blocks"]) == set(expected) == {"encoder.self_attn", "decoder.self_attn",
                                                                 "decoder.cross_attn"}
    for block, saved in snaps.probes[0]["blocks"].items():
        assert saved.shape[0] == len(snaps.steps)
        np.testing.assert_array_equal(saved[-1], expected[block].astype(np.float32))  # both float16 of one trace
        np.testing.assert_allclose(saved.sum(-1), 1.0, atol=5e-3)  # rows of float16 weights
    cross = snaps.probes[0]["blocks"]["decoder.cross_attn"]
    assert not np.array_equal(cross[0], cross[-1])  # step 0 is the untrained model
    aer = alignment_error_rates(final, [pair for _, _, pair in valid[:AER_PAIRS]])
    np.testing.assert_allclose(snaps.aer[-1], np.float32(aer))
    assert snaps.aer.shape == (len(snaps.steps), TINY.config["n_decoder_layers"])


def test_an_interrupted_then_resumed_run_saves_the_same_snapshots(straight, tmp_path, monkeypatch):
    from core_model.training import train as train_module
    real_save = train_module.save_run

    def save_then_stop(out, model, tokenizers, optimizer, state, log, snaps):
        real_save(out, model, tokenizers, optimizer, state, log, snaps)
        if state["step"] == SAVE:
            raise KeyboardInterrupt

    out = tmp_path / "split"
    monkeypatch.setattr(train_module, "save_run", save_then_stop)
    with pytest.raises(KeyboardInterrupt):
        run(out)
    monkeypatch.setattr(train_module, "save_run", real_save)
    assert read_snapshots(out / "checkpoint").steps.tolist() == [s for s in snapshot_steps(STEPS) if s <= SAVE]
    run(out, resume=True)
    resumed, whole = read_snapshots(out / "checkpoint"), read_snapshots(straight / "checkpoint")
    assert resumed.steps.tolist() == whole.steps.tolist()  # none lost, none twice
    for a, b in zip(resumed.probes, whole.probes):  # the same training, so the same patterns
        for block in b["blocks"]:
            np.testing.assert_array_equal(a["blocks"][block], b["blocks"][block])
    np.testing.assert_array_equal(resumed.aer, whole.aer)


def test_ship_carries_the_snapshots(straight, tmp_path, monkeypatch):
    monkeypatch.setattr(evaluate, "evaluate", lambda *a: {"pairs": 1, "exact_match": 0.0})  # see test_train_log
    state = json.loads((straight / "checkpoint" / "train_state.json").read_text())
    evaluate.ship(straight / "checkpoint", tmp_path / "shipped", TINY, state, "python -m core_model.training.train ...")
    assert (tmp_path / "shipped" / SNAPSHOT_FILE).read_bytes() == (straight / "checkpoint" / SNAPSHOT_FILE).read_bytes()


def _file(tmp_path, data: bytes):
    (tmp_path / SNAPSHOT_FILE).write_bytes(data)
    return tmp_path


def _tensors(steps=(0, 1), q=3, k=3, dtype=torch.float16):
    return {"steps": torch.tensor(steps, dtype=torch.int64),
            "probe0.encoder.self_attn": torch.full((len(steps), 1, 1, q, k), 1 / k, dtype=dtype)}


PROBE_META = {"probes": json.dumps([{"src": ["a", "b", "c"], "tgt": ["<s>", "x"]}])}
HOSTILE = {
    "not safetensors": b"hello, this is text",
    "a pickle": pickle.dumps({"steps": [0, 1]}),
    "no steps": save_safetensors({"x": torch.zeros(1)}, metadata=PROBE_META),
    "steps going back": save_safetensors(_tensors((3, 1)), metadata=PROBE_META),
    "no probes metadata": save_safetensors(_tensors()),
    "probes metadata not a list": save_safetensors(_tensors(), metadata={"probes": "{\"a\": 1}"}),
    "a shape that does not match the pieces": save_safetensors(_tensors(q=4), metadata=PROBE_META),
    "float32 patterns": save_safetensors(_tensors(dtype=torch.float32), metadata=PROBE_META),
    "aer with NaN": save_safetensors({**_tensors(), "aer": torch.tensor([[float("nan")], [0.5]])}, metadata=PROBE_META),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_file_is_refused_with_a_checkpoint_error(tmp_path, case):
    with pytest.raises(CheckpointError):
        read_snapshots(_file(tmp_path, HOSTILE[case]))


def test_a_good_small_file_is_read_and_an_oversized_one_is_refused_unread(tmp_path):
    snaps = read_snapshots(_file(tmp_path, save_safetensors(_tensors(), metadata=PROBE_META)))
    assert snaps.steps.tolist() == [0, 1] and snaps.probes[0]["blocks"]["encoder.self_attn"].dtype == np.float32
    with open(tmp_path / SNAPSHOT_FILE, "r+b") as f:
        f.truncate(MAX_SNAPSHOT_BYTES + 1)  # sparse: no memory or disk spent
    with pytest.raises(CheckpointError, match="over the limit"):
        read_snapshots(tmp_path)
    assert read_snapshots(tmp_path / "nowhere") is None
