"""The training log: what a real run writes, how --resume continues it, ship carries it, and that
read_log refuses a hostile file with a CheckpointError naming the line, never another exception."""
from __future__ import annotations

import io
import json
import math
import random
import zipfile

import numpy as np
import pytest

from core_model import checkpoints
from core_model.training import evaluate
from core_model.checkpoints import CheckpointError
from core_model.training.train import learning_rate, main, train
from core_model.training.train_log import (HEADER, LOG_FILE, MAX_LOG_BYTES, MAX_LOG_ROWS, LogWriter, format_row, parse_log,
                                  read_log)

from .test_train import FEW, TINY  # the small reversal model of the training tests

STEPS, VALIDATE, SAVE, EVERY = 30, 10, 10, 4
ROW_STEPS = [4, 8, 10, 12, 16, 20, 24, 28, 30]  # every 4 steps, at each validation (10, 20, 30) and the last


def run(out, steps=STEPS, resume=False, save_every=SAVE):
    return train(TINY, out, steps=steps, resume=resume, validate_every=VALIDATE, save_every=save_every,
                 log_every=EVERY, progress=False, snapshots=FEW)


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    """An uninterrupted 30-step run: (its run folder, its summary)."""
    out = tmp_path_factory.mktemp("straight") / "run"
    return out, run(out)


def logs_equal(a, b) -> bool:
    return (np.array_equal(a.step, b.step) and np.array_equal(a.tokens, b.tokens)
            and np.array_equal(a.valid_loss, b.valid_loss, equal_nan=True)
            and all(np.array_equal(getattr(a, k), getattr(b, k)) for k in ("train_loss", "lr", "grad_norm")))


def test_a_run_logs_every_few_steps_and_at_each_validation(straight):
    out, state = straight
    log = read_log(out / "checkpoint")
    assert log.step.tolist() == ROW_STEPS and log.step.dtype == np.int64 and log.tokens.dtype == np.int64
    cfg = TINY.config
    assert log.lr.tolist() == [learning_rate(s, cfg["d_model"], TINY.warmup, TINY.lr_factor) for s in ROW_STEPS]
    assert np.all(np.diff(log.tokens) > 0) and log.tokens[-1] == state["tokens"]
    assert np.flatnonzero(~np.isnan(log.valid_loss)).tolist() == [ROW_STEPS.index(s) for s in (10, 20, 30)]
    assert log.valid_loss[-1] == state["valid_loss"]
    assert np.all(np.isfinite(log.train_loss)) and np.all(log.train_loss > 0)
    assert np.all(np.isfinite(log.grad_norm)) and np.all(log.grad_norm > 0)
    assert log.train_loss[-1] < log.train_loss[0]  # it learned something
    assert checkpoints.load(out / "checkpoint").model is not None  # a checkpoint with a log loads


def test_an_interrupted_then_resumed_run_continues_the_same_log(straight, tmp_path):
    out = tmp_path / "split"
    run(out, steps=20)
    assert read_log(out / "checkpoint").step.tolist() == [4, 8, 10, 12, 16, 20]
    state = run(out, resume=True)
    assert state["step"] == STEPS and state["log_pending"] == [0.0, 0.0, 0]
    resumed = read_log(out / "checkpoint")
    assert resumed.step.tolist() == ROW_STEPS  # no row lost, none twice
    assert logs_equal(resumed, read_log(straight[0] / "checkpoint"))  # every value, to the bit


def test_a_resume_at_a_row_free_step_loses_and_repeats_nothing(straight, tmp_path, monkeypatch):
    """Stopped by Ctrl-C after the save at step 14, two steps after a row: the sums of steps 13 and 14 are
    saved with the checkpoint, so the resumed run's row at 16 is the uninterrupted run's."""
    from core_model.training import train as train_module
    real_save = train_module.save_run

    def save_then_stop(out, model, tokenizers, optimizer, state, log, snaps):
        real_save(out, model, tokenizers, optimizer, state, log, snaps)
        if state["step"] == 14:
            raise KeyboardInterrupt

    out = tmp_path / "split"
    monkeypatch.setattr(train_module, "save_run", save_then_stop)
    with pytest.raises(KeyboardInterrupt):
        run(out, save_every=7)
    monkeypatch.setattr(train_module, "save_run", real_save)
    assert read_log(out / "checkpoint").step.tolist() == [4, 8, 10, 12]
    assert json.loads((out / "checkpoint" / "train_state.json").read_text())["log_pending"][2] == 2
    run(out, resume=True, save_every=7)
    resumed = read_log(out / "checkpoint")
    assert resumed.step.tolist() == ROW_STEPS  # no row lost, none twice
    assert logs_equal(resumed, read_log(straight[0] / "checkpoint"))


def test_resume_drops_rows_after_the_checkpoints_step():
    rows = "".join(format_row(s, 1.0, None, 0.1, 2.0, 10 * s) for s in (5, 10, 15, 20))
    log = parse_log((HEADER + "\n" + rows).encode())
    writer = LogWriter.resume(log, 12, [3.0, 4.0, 2])
    assert parse_log(writer.to_bytes()).step.tolist() == [5, 10]
    writer.write_row(14, 0.5, 140)
    last = parse_log(writer.to_bytes())
    assert last.step.tolist() == [5, 10, 14] and last.train_loss[-1] == 1.5 and last.grad_norm[-1] == 2.0


def test_ship_puts_the_log_beside_the_model(straight, tmp_path, monkeypatch):
    out, state = straight
    # A real evaluation of an untrained model takes 25 s: its translations run to the length limit.
    monkeypatch.setattr(evaluate, "evaluate", lambda *a: {"pairs": 1, "exact_match": 0.0})
    dest = tmp_path / "shipped"
    evaluate.ship(out / "checkpoint", dest, TINY, state, "python -m core_model.training.train ...")
    assert (dest / LOG_FILE).read_bytes() == (out / "checkpoint" / LOG_FILE).read_bytes()
    assert logs_equal(read_log(dest), read_log(out / "checkpoint"))
    assert not (dest / "train_state.json").exists() and not (dest / "optimizer.safetensors").exists()
    card = checkpoints.load(dest).card
    assert (f"`{LOG_FILE}` holds the training loss, validation loss, learning rate and gradient norm "
            f"every {EVERY} steps") in card


def test_a_checkpoint_without_a_log_loads_and_a_zip_carries_one(straight, tmp_path):
    source = straight[0] / "checkpoint"
    names = [n for n in checkpoints.files() if (source / n).is_file()]
    assert LOG_FILE in names
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name in names:
            z.write(source / name, f"model/{name}")
    dest = checkpoints.extract_zip(buffer.getvalue(), tmp_path / "unzipped")
    assert logs_equal(read_log(dest), read_log(source))
    (dest / LOG_FILE).unlink()
    assert checkpoints.load(dest).model is not None and read_log(dest) is None
    copied = checkpoints.copy_folder(source, tmp_path / "copied")
    assert (copied / LOG_FILE).read_bytes() == (source / LOG_FILE).read_bytes()


def test_a_log_over_the_limit_in_a_zip_is_refused_at_load(straight, tmp_path):
    source = straight[0] / "checkpoint"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name in checkpoints.files():
            if (source / name).is_file() and name != LOG_FILE:
                z.write(source / name, name)
        z.writestr(LOG_FILE, b"x" * (2 * MAX_LOG_BYTES))
    with pytest.raises(CheckpointError) as e:
        checkpoints.load_zip(buffer.getvalue(), tmp_path / "unzipped")
    assert e.value.kind == "limit" and LOG_FILE in str(e.value)


# ----- hostile logs ------------------------------------------------------------------------------

GOOD = HEADER + "\n1,2.5,,0.001,1.5,100\n2,2.0,1.9,0.002,1.0,200\n"


def rows_text(n: int) -> str:
    return HEADER + "\n" + "".join(f"{i},1,,1,1,{i}\n" for i in range(1, n + 1))


@pytest.mark.parametrize("text, said", [
    ("x" * (MAX_LOG_BYTES + 1), "over the limit"),
    ("", "line 1: the header must be exactly"),
    ("step,train_loss,valid_loss,lr,grad_norm\n1,2,,3,4\n", "line 1: the header must be exactly"),
    (" " + GOOD, "line 1: the header"),
    (GOOD + "3,nan,,0.1,1,300\n", "line 4: train_loss 'nan' is not a finite number"),
    (GOOD + "3,1,,inf,1,300\n", "line 4: lr 'inf' is not a finite number"),
    (GOOD + "3,1,,1e999,1,300\n", "line 4: lr '1e999' is not a finite number"),
    (GOOD + "3,1,NaN,0.1,1,300\n", "line 4: valid_loss 'NaN' is not a finite number"),
    (GOOD + "3,abc,,0.1,1,300\n", "line 4: train_loss 'abc' is not a finite number"),
    (GOOD + "3,1,,0.1,1,three hundred\n", "line 4: tokens 'three hundred' is not a whole number"),
    (GOOD + "3_0,1,,0.1,1,300\n", "line 4: step '3_0' is not a whole number"),
    (GOOD + "3,1,,0.1,1,300.5\n", "line 4: tokens '300.5' is not a whole number"),
    (GOOD + "3,1,,0.1,1," + "9" * 5000 + "\n", "line 4: tokens '99999999999999999999…' is not a whole number"),
    (GOOD + "3,1_0,,0.1,1,300\n", "line 4: train_loss '1_0' is not a finite number"),
    (GOOD + "3,1,,-0.1,1,300\n", "line 4: lr '-0.1' is negative"),
    (GOOD + "3,1,,0.1,-1,300\n", "line 4: grad_norm '-1' is negative"),
    (GOOD + "1,1,,0.1,1,300\n", "line 4: step 1 does not follow step 2"),
    (GOOD + "2,1,,0.1,1,300\n", "line 4: step 2 does not follow step 2"),
    (HEADER + "\n0,1,,0.1,1,0\n", "line 2: step 0 must be at least 1"),
    (GOOD + "3,1,,0.1,1,150\n", "line 4: tokens 150 is fewer than the 200 before it"),
    (GOOD + "3,1,,0.1,1\n", "line 4: 5 fields, not 6"),
    (GOOD + "3,1,,0.1,1,300,7\n", "line 4: 7 fields, not 6"),
    (GOOD + "\n3,1,,0.1,1,300\n", "line 4: 1 fields, not 6"),
    (GOOD + "3,1,,0.1,1,3\u0660\u0660\n", "not plain ASCII"),
    (rows_text(MAX_LOG_ROWS + 1), "more than 20,000 rows"),
    (rows_text(MAX_LOG_ROWS + 1).rstrip("\n"), "20,001 rows, over the limit of 20,000"),
], ids=lambda v: None if isinstance(v, str) and len(v) < 40 else "long")
def test_a_hostile_log_is_refused_with_the_line_and_the_problem(tmp_path, text, said):
    (tmp_path / LOG_FILE).write_bytes(text.encode("utf-8"))
    with pytest.raises(CheckpointError) as e:
        read_log(tmp_path)
    assert said in str(e.value) and str(e.value).startswith(LOG_FILE)


def test_a_huge_log_is_refused_without_being_read(tmp_path):
    with open(tmp_path / LOG_FILE, "wb") as f:
        f.truncate(64 * 2**30)  # sparse: 64 GB that no read could take
    with pytest.raises(CheckpointError, match="train_log.csv is 65,536 MB, over the limit of 1.0 MB") as e:
        read_log(tmp_path)
    assert e.value.kind == "limit"


def test_the_largest_allowed_log_reads_and_a_windows_log_too(tmp_path):
    (tmp_path / LOG_FILE).write_text(rows_text(MAX_LOG_ROWS))
    assert len(read_log(tmp_path)) == MAX_LOG_ROWS
    (tmp_path / LOG_FILE).write_bytes(GOOD.replace("\n", "\r\n").encode())
    log = read_log(tmp_path)
    assert log.step.tolist() == [1, 2] and math.isnan(log.valid_loss[0]) and log.valid_loss[1] == 1.9
    assert read_log(tmp_path / "elsewhere") is None


def test_damaged_logs_give_a_log_or_a_checkpoint_error_and_nothing_else(tmp_path):
    rng = random.Random(7)
    data = (HEADER + "\n" + "".join(format_row(s, 1 / s, s if s % 4 == 0 else None, 0.01 * s, 2.0, 9 * s)
                                    for s in range(1, 40))).encode()
    alphabet = b"0123456789.,-+eE\nnaif _\r\xff"
    for _ in range(500):
        damaged = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(damaged))
            damaged[i:i + rng.randint(0, 3)] = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 3)))
        try:
            log = parse_log(bytes(damaged))
        except CheckpointError as e:
            assert str(e).startswith(LOG_FILE)
            continue
        assert np.all(np.diff(log.step) > 0) and np.all(np.isfinite(log.train_loss))


def test_log_every_is_checked_on_the_command_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["--task", "reverse", "--out", str(tmp_path / "run"), "--log-every", "0"])
    assert e.value.code == 2 and "argument --log-every: 0 is out of range" in capsys.readouterr().err


def test_the_last_logged_validation_loss_is_the_saved_checkpoints_own(straight):
    """Recomputed from the saved weights on the validation split, the loss is the log's last value: the log
    holds the real run's numbers."""
    from core_model.training.tasks import corpus
    from core_model.training.train import encode_pairs, validation_loss

    out, _ = straight
    loaded = checkpoints.load(out / "checkpoint")
    valid = encode_pairs(corpus(TINY, 0)["valid"], loaded.tokenizers, loaded.config.max_len)
    assert validation_loss(loaded.model, valid, 128) == pytest.approx(read_log(out / "checkpoint").valid_loss[-1],
                                                                     rel=1e-6)
