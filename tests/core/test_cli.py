"""The command-line entry points, run as a user runs them (real subprocesses), given bad arguments:
each exits with code 2 and one `error: ...` line, never a traceback."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "assets" / "models" / "reverse"
LONG = "x" * 100_000  # one argument of 100,000 characters (Linux takes up to 128 KiB per argument)
QUICK = ["--task", "reverse", "--n-train", "50"]  # a corpus that is built in a moment


def short_id(value):
    """Test ids without the 100,000 characters."""
    return f"{len(value)}-chars" if isinstance(value, str) and len(value) > 60 else None


def run(module: str, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def fails_with(result: subprocess.CompletedProcess, *expected: str | tuple[str, ...]) -> str:
    """The process stopped with exit code 2 and one short `error:` line, its last, holding each `expected`."""
    expected = [e for item in expected for e in ((item,) if isinstance(item, str) else item)]
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    lines = result.stderr.strip().splitlines()
    errors = [line for line in lines if "error: " in line]
    assert errors == lines[-1:], lines[-5:]
    assert len(errors[0]) < 600  # a 100,000-character argument is not echoed whole
    assert all(e in errors[0] for e in expected), errors[0]
    return errors[0]


def checkpoint_copy(source: Path, dest: Path, damage: str | None = None) -> Path:
    shutil.copytree(source, dest)
    if damage == "config":
        (dest / "config.json").write_text("{ this is not json")
    elif damage is not None:  # cut a safetensors file to a tenth, as an interrupted copy would
        f = dest / damage
        f.write_bytes(f.read_bytes()[:f.stat().st_size // 10])
    return dest


# ----- evaluate ------------------------------------------------------------------------------------

def test_evaluate_a_missing_folder(tmp_path):
    fails_with(run("core_model.evaluate", tmp_path / "nowhere", "--task", "reverse"), "is not a checkpoint folder")


@pytest.mark.parametrize("damage, said", [("config", "config.json is not valid JSON"),
                                          ("model.safetensors", "model.safetensors is truncated")])
def test_evaluate_a_damaged_checkpoint(tmp_path, damage, said):
    folder = checkpoint_copy(SHIPPED, tmp_path / "model", damage)
    fails_with(run("core_model.evaluate", folder, "--task", "reverse"), said)


@pytest.mark.parametrize("args, said", [
    (["--task", "sing"], "argument --task: invalid choice: 'sing'"),
    (["--task", LONG], "argument --task: invalid choice"),
    (["--task", "reverse", "--seed", "-1"], "argument --seed: -1 is out of range"),
    (["--task", "reverse", "--seed", "99999999999999999999999"], "argument --seed: 99999999999999999999999 is out of range"),
    (["--task", "reverse", "--seed", "one"], "argument --seed: 'one' is not a whole number"),
], ids=["unknown", "long", "negative-seed", "huge-seed", "word-seed"])
def test_evaluate_bad_arguments(args, said):
    fails_with(run("core_model.evaluate", SHIPPED, *args), said)


def test_evaluate_a_100k_character_path():
    fails_with(run("core_model.evaluate", LONG, "--task", "reverse"), "File name too long", "(100,000 characters)")


# ----- train ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("option, value, said", [
    ("--steps", "0", "argument --steps: 0 is out of range: it must be at least 1"),
    ("--steps", "-5", "argument --steps: -5 is out of range"),
    ("--steps", "ten", "argument --steps: 'ten' is not a whole number"),
    ("--steps", LONG, "argument --steps: 'xxxx"),
    ("--n-train", "0", "argument --n-train: 0 is out of range"),
    ("--validate-every", "0", "argument --validate-every: 0 is out of range"),
    ("--save-every", "-1", "argument --save-every: -1 is out of range"),
    ("--threads", "0", "argument --threads: 0 is out of range"),
    ("--seed", "-1", "argument --seed: -1 is out of range"),
    ("--seed", "99999999999999999999999", "argument --seed: 99999999999999999999999 is out of range"),
    ("--out", LONG, ("argument --out: xxxx", "x… (100,000 characters): File name too long")),
    ("--ship", LONG, ("argument --ship: xxxx", "x… (100,000 characters): File name too long")),
], ids=short_id)
def test_train_bad_numbers_and_paths_are_refused_before_any_work(tmp_path, option, value, said):
    out = tmp_path / "run"
    args = [*QUICK, "--out", out, option, value] if option != "--out" else [*QUICK, option, value]
    fails_with(run("core_model.train", *args), said)
    assert not out.exists()  # refused before anything was written


@pytest.mark.parametrize("task", ["sing", LONG], ids=short_id)
def test_train_an_unknown_task(tmp_path, task):
    fails_with(run("core_model.train", "--task", task, "--out", tmp_path / "run"), "argument --task: invalid choice")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A one-step training run: a real checkpoint with its optimizer state, to damage."""
    out = tmp_path_factory.mktemp("trained") / "run"
    result = run("core_model.train", *QUICK, "--out", out, "--steps", "1", "--threads", "1")
    assert result.returncode == 0, result.stderr[-2000:]
    return out / "checkpoint"


@pytest.mark.parametrize("damage, said", [
    ("config", "config.json is not valid JSON"),
    ("model.safetensors", "model.safetensors is truncated"),
    ("optimizer.safetensors", "cannot be resumed: train_state.json or optimizer.safetensors is missing or damaged"),
])
def test_train_resume_from_a_damaged_checkpoint(trained, tmp_path, damage, said):
    checkpoint_copy(trained, tmp_path / "run" / "checkpoint", damage)
    fails_with(run("core_model.train", *QUICK, "--out", tmp_path / "run", "--steps", "2", "--resume"), said)


# ----- bench.run -----------------------------------------------------------------------------------

@pytest.mark.parametrize("args, said", [
    (["--out", "/nonexistent-folder/BENCHMARKS.md"], "argument --out: cannot write /nonexistent-folder/BENCHMARKS.md: "
                                                      "No such file or directory"),
    (["--out", LONG], ("argument --out: cannot write xxxx", "x… (100,000 characters): File name too long")),
    (["--quick=3"], "argument --quick: ignored explicit argument '3'"),
    (["--repeats", "-1"], "unrecognized arguments: --repeats -1"),
], ids=["missing-folder", "long", "value-for-a-flag", "unknown-option"])
def test_bench_bad_arguments_are_refused_before_an_hour_of_benchmarks(args, said):
    fails_with(run("bench.run", *args), said)


def test_a_nul_character_cannot_be_passed_in_argv():
    # So no entry point can receive one: the operating system ends each argument at the first NUL,
    # and Python refuses to build such a command line at all. (Text with NUL in the app: test_bad_input.)
    with pytest.raises(ValueError, match="null byte"):
        subprocess.run([sys.executable, "-c", "pass", "a\x00b"], check=False)
