"""Killing the training CLI at any moment leaves the last good checkpoint loadable; --resume goes on.

Every run here is the real `python -m core_model.training.train` in a subprocess (the reverse task on a
small corpus, one thread), stopped by a real SIGINT or SIGKILL.
"""
from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from core_model import checkpoints
from core_model.training.train import TASKS, train

ROOT = Path(__file__).resolve().parents[2]
SAVE_EVERY = 2
FAR = 100_000  # a step count no killed run reaches

# The CLI itself, with os.replace patched to SIGKILL (or SIGINT) the process once the second
# save has done KILL_AT of its renames: 0 = new folder written, nothing renamed; 1 = the old
# checkpoint parked, the new one not yet in its place; 2 = both renames done, the parked one not
# yet deleted. Patching the rename is the only way to land exactly between two syscalls.
DRIVER = """
import os, signal, sys
from core_model import checkpoints
from core_model.training import train
sig, kill_at, argv = getattr(signal, sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
real_save, real_replace = checkpoints.save, os.replace
saves, renames = [0], [0]

def save(*args, **kwargs):
    saves[0] += 1
    return real_save(*args, **kwargs)

def replace(src, dst):
    if saves[0] == 2 and renames[0] == kill_at:
        os.kill(os.getpid(), sig)
    real_replace(src, dst)
    renames[0] += saves[0] == 2
    if saves[0] == 2 and renames[0] == kill_at:
        os.kill(os.getpid(), sig)

checkpoints.save, os.replace = save, replace
sys.exit(train.main(argv))
"""


def cli_args(out: Path, steps: int, save_every: int = SAVE_EVERY, resume: bool = False) -> list[str]:
    args = ["--task", "reverse", "--out", str(out), "--n-train", "2000", "--steps", str(steps),
            "--save-every", str(save_every), "--validate-every", str(FAR), "--threads", "1"]
    return args + ["--resume"] * resume


def run(argv: list[str], log: Path) -> subprocess.Popen:
    """Start a Python process in the repository; its stderr (the progress bar) goes to `log`.

    SIGINT starts at its default, so Python turns it into KeyboardInterrupt as in a terminal, even when
    these tests run in a background job of a script (which starts its children with SIGINT ignored).
    """
    with open(log, "w") as err:
        return subprocess.Popen([sys.executable, *argv], cwd=ROOT, stdout=subprocess.PIPE, stderr=err, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def ended(proc: subprocess.Popen, timeout: float) -> str:
    """The process's stdout once it has ended; one still running after `timeout` s is killed, not left behind."""
    try:
        return proc.communicate(timeout=timeout)[0]
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise


def train_cli(out: Path, steps: int, log: Path, **kwargs) -> subprocess.Popen:
    return run(["-m", "core_model.training.train", *cli_args(out, steps, **kwargs)], log)


def saved_step(out: Path) -> int | None:
    """The step of the checkpoint on disk right now (None if there is none yet)."""
    for _ in range(50):  # a save may swap the folder while we read it
        found = checkpoints.find(out / "checkpoint")
        if found is None:
            return None
        try:
            return json.loads((found / "train_state.json").read_text())["step"]
        except (OSError, json.JSONDecodeError):
            time.sleep(0.01)
    raise AssertionError("train_state.json stayed unreadable")


def wait_for_save(out: Path, step: int, proc: subprocess.Popen) -> None:
    """Wait until the running `proc` has saved `step` or a later one."""
    deadline = time.monotonic() + 60
    while (saved_step(out) or 0) < step:
        assert proc.poll() is None, f"the run ended early with code {proc.returncode}"
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("no new checkpoint within 60 s")
        time.sleep(0.02)


def temp_folders(out: Path) -> set[str]:
    return {p.name for p in out.iterdir() if p.name.startswith(".checkpoint.") and p.name != ".checkpoint.old"}


def loaded_step(out: Path) -> int:
    """Load the run's checkpoint as any user would; its step, checked against its card."""
    loaded = checkpoints.load(out / "checkpoint")
    step = json.loads((loaded.path / "train_state.json").read_text())["step"]
    # The card is written by the same save as the weights and counters: one folder, one step.
    assert f"step {step}." in loaded.card
    return step


def finish(out: Path, steps: int, resumed_from: int, log: Path) -> dict:
    """Resume to `steps`; it must start at `resumed_from`, end at `steps` and leave no temp folder."""
    proc = train_cli(out, steps, log, resume=True)
    stdout = ended(proc, 120)
    assert proc.returncode == 0, log.read_text()[-2000:]
    assert f"at step {resumed_from}." in log.read_text()
    summary = json.loads(stdout.splitlines()[-1])
    assert summary["step"] == loaded_step(out) == steps
    assert sorted(p.name for p in out.iterdir()) == ["checkpoint", "tokenizers"]
    return summary


def test_random_sigint_and_sigkill_leave_a_checkpoint_that_resume_continues(tmp_path):
    rng = random.Random(20240611)
    signals = [signal.SIGINT, signal.SIGKILL]  # each once, in a random order: the second run resumes, then is hit
    rng.shuffle(signals)
    out, saved, outcomes = tmp_path / "run", None, []
    for i, sig in enumerate(signals):
        log, left = tmp_path / f"{i}.log", temp_folders(out) if out.exists() else set()
        proc = train_cli(out, FAR, log, resume=saved is not None)
        # The moment: after 1 to 3 further checkpoints (steps, not seconds, so that a busy
        # machine does not make every kill land at the first one), then 0 to 0.3 s more.
        wait_for_save(out, (saved or 0) + SAVE_EVERY * rng.randint(1, 3), proc)
        assert not left & temp_folders(out)  # a killed save's temp folder goes at the next save
        time.sleep(rng.uniform(0.0, 0.3))
        proc.send_signal(sig)
        ended(proc, 30)
        err = log.read_text()
        if saved is not None:
            assert f"at step {saved}." in err  # it resumed from the last checkpoint, not from 0
        step = loaded_step(out)
        assert step % SAVE_EVERY == 0 and step > (saved or 0)
        if sig == signal.SIGINT:
            assert proc.returncode == 130 and "Traceback" not in err, err[-2000:]
            assert f"Interrupted. The last checkpoint, at step {step}, is in" in err
        else:
            assert proc.returncode == -signal.SIGKILL
        outcomes.append((sig.name, step, len(temp_folders(out))))
        saved = step
    finish(out, saved + 4, saved, tmp_path / "finish.log")
    print("kills (signal, checkpoint step, temp folders left):", outcomes)


# Each run resumes from what the previous kill left and is itself killed in its second save.
KILLS = [  # signal, renames done when it lands, what is then on disk, the step that loads
    ("SIGKILL", 0, {"checkpoint", "temp"}, 1),
    ("SIGKILL", 1, {".checkpoint.old", "temp"}, 2),
    ("SIGKILL", 2, {"checkpoint", ".checkpoint.old"}, 4),
    ("SIGINT", 1, {".checkpoint.old"}, 5),  # the interrupted save still deletes its temp folder
]


def test_a_kill_at_each_point_of_a_save_loses_at_most_that_save(tmp_path):
    out, saved = tmp_path / "run", None
    for i, (sig, kill_at, on_disk, step) in enumerate(KILLS):
        log = tmp_path / f"{i}.log"
        argv = cli_args(out, FAR, save_every=1, resume=saved is not None)
        proc = run(["-c", DRIVER, sig, str(kill_at), *argv], log)
        ended(proc, 120)
        err = log.read_text()
        if saved is not None:
            assert f"at step {saved}." in err
        assert proc.returncode == (130 if sig == "SIGINT" else -signal.SIGKILL), err[-2000:]
        if sig == "SIGINT":
            assert "Traceback" not in err
            assert f"Interrupted. The last checkpoint, at step {step}, is in {out / '.checkpoint.old'}" in err
        names = {p.name for p in out.iterdir()} - {"tokenizers"}
        assert {"temp" if n in temp_folders(out) else n for n in names} == on_disk, err[-2000:]
        assert loaded_step(out) == step
        saved = step
    resumed = finish(out, 8, saved, tmp_path / "finish.log")
    # The same 8 steps without a break, in this process (a start of the CLI costs 3 s of CPU).
    straight = train(TASKS["reverse"], tmp_path / "straight", steps=8, n_train=2000,
                     validate_every=FAR, save_every=8, progress=False)
    assert resumed["tokens"] == straight["tokens"]  # the very same batches, none lost or repeated
    # Weights are not compared bit for bit: Adam (eps 1e-9) turns rounding noise in gradients
    # that should be zero (a bias before a LayerNorm) into whole steps, and rounding differs
    # with the thread count. The loss ignores those weights; one step more or less moves it 0.07.
    assert abs(resumed["valid_loss"] - straight["valid_loss"]) < 1e-3
