"""The command-line entry points given bad arguments: each exits with code 2 and one `error: ...`
line, never a traceback.

Most cases call the module's `main(argv)` in this process (a new Python process importing torch
costs seconds, and there are dozens of cases): what a user's shell would see is rebuilt from the
exit code (`SystemExit` or main's return value) and the captured stdout/stderr, and an uncaught
exception becomes a traceback on stderr and exit code 1, as in a real process. A few cases, at the
end, run the real command in a subprocess, to check that `python -m ...` is wired to that `main`."""
from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "assets" / "models" / "reverse"
LONG = "x" * 100_000  # one argument of 100,000 characters (Linux takes up to 128 KiB per argument)
QUICK = ["--task", "reverse", "--n-train", "50"]  # a corpus that is built in a moment


def short_id(value):
    """Test ids without the 100,000 characters."""
    return f"{len(value)}-chars" if isinstance(value, str) and len(value) > 60 else None


@dataclass
class Ran:
    """What a finished command left: like subprocess.CompletedProcess."""
    returncode: int
    stdout: str
    stderr: str


def call_main(module: str, args) -> int:
    """`python -m module args` in this process: main's exit code; an uncaught exception is printed
    as a traceback (on the current sys.stderr) and gives 1, as the interpreter does.
    torch's thread count (train's --threads sets it) is put back afterwards."""
    threads = torch.get_num_threads()
    try:
        code = importlib.import_module(module).main([str(a) for a in args])
    except SystemExit as e:
        code = e.code
    except Exception:  # noqa: BLE001 -- the test then sees it as a real process would show it
        traceback.print_exc(file=sys.stderr)
        code = 1
    finally:
        torch.set_num_threads(threads)
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


@pytest.fixture
def run(capsys, monkeypatch):
    """`run(module, *args)`: the module's main(argv) in this process, from the repository folder."""
    monkeypatch.chdir(ROOT)

    def run_main(module: str, *args) -> Ran:
        capsys.readouterr()  # only this call's output
        code = call_main(module, args)
        out, err = capsys.readouterr()
        return Ran(code, out, err)

    return run_main


def run_command(module: str, *args) -> subprocess.CompletedProcess:
    """The real `python -m module args`, in a new process."""
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


class PastTheChecks(Exception):
    """Raised in place of the long work that the argument checks must stop before."""


@pytest.fixture
def no_training(monkeypatch):
    """train.main gets to call train() only if its argument checks let the command through."""
    from core_model.training import train

    def refuse(*args, **kwargs):
        raise PastTheChecks("the arguments were accepted: training would start")

    monkeypatch.setattr(train, "train", refuse)


@pytest.fixture
def no_benchmarks(monkeypatch):
    """bench.run.main goes on to an hour of benchmarks only if its arguments parse."""
    from bench import run as bench_run

    real = bench_run.parse_args

    def parse_then_stop(argv):
        real(argv)
        raise PastTheChecks("the arguments were accepted: the benchmarks would start")

    monkeypatch.setattr(bench_run, "parse_args", parse_then_stop)


def fails_with(result, *expected: str | tuple[str, ...]) -> str:
    """The command stopped with exit code 2 and one short `error:` line, its last, holding each `expected`."""
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

def test_evaluate_a_missing_folder(run, tmp_path):
    fails_with(run("core_model.training.evaluate", tmp_path / "nowhere", "--task", "reverse"), "is not a checkpoint folder")


@pytest.mark.parametrize("damage, said", [("config", "config.json is not valid JSON"),
                                          ("model.safetensors", "model.safetensors is truncated")])
def test_evaluate_a_damaged_checkpoint(run, tmp_path, damage, said):
    folder = checkpoint_copy(SHIPPED, tmp_path / "model", damage)
    fails_with(run("core_model.training.evaluate", folder, "--task", "reverse"), said)


@pytest.mark.parametrize("args, said", [
    (["--task", "sing"], "argument --task: invalid choice: 'sing'"),
    (["--task", LONG], "argument --task: invalid choice"),
    (["--task", "reverse", "--seed", "-1"], "argument --seed: -1 is out of range"),
    (["--task", "reverse", "--seed", "99999999999999999999999"], "argument --seed: 99999999999999999999999 is out of range"),
    (["--task", "reverse", "--seed", "one"], "argument --seed: 'one' is not a whole number"),
], ids=["unknown", "long", "negative-seed", "huge-seed", "word-seed"])
def test_evaluate_bad_arguments(run, args, said):
    fails_with(run("core_model.training.evaluate", SHIPPED, *args), said)


def test_evaluate_a_100k_character_path(run):
    fails_with(run("core_model.training.evaluate", LONG, "--task", "reverse"), "File name too long", "(100,000 characters)")


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
def test_train_bad_numbers_and_paths_are_refused_before_any_work(run, no_training, tmp_path, option, value, said):
    out = tmp_path / "run"
    args = [*QUICK, "--out", out, option, value] if option != "--out" else [*QUICK, option, value]
    fails_with(run("core_model.training.train", *args), said)
    assert not out.exists()  # refused before anything was written


@pytest.mark.parametrize("task", ["sing", LONG], ids=short_id)
def test_train_an_unknown_task(run, no_training, tmp_path, task):
    fails_with(run("core_model.training.train", "--task", task, "--out", tmp_path / "run"), "argument --task: invalid choice")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A one-step training run: a real checkpoint with its optimizer state, to damage."""
    out = tmp_path_factory.mktemp("trained") / "run"
    assert call_main("core_model.training.train", [*QUICK, "--out", out, "--steps", "1", "--threads", "1"]) == 0
    return out / "checkpoint"


@pytest.mark.parametrize("damage, said", [
    ("config", "config.json is not valid JSON"),
    ("model.safetensors", "model.safetensors is truncated"),
    ("optimizer.safetensors", "cannot be resumed: train_state.json or optimizer.safetensors is missing or damaged"),
])
def test_train_resume_from_a_damaged_checkpoint(run, trained, tmp_path, damage, said):
    checkpoint_copy(trained, tmp_path / "run" / "checkpoint", damage)
    fails_with(run("core_model.training.train", *QUICK, "--out", tmp_path / "run", "--steps", "2", "--resume"), said)


# ----- bench.run -----------------------------------------------------------------------------------

@pytest.mark.parametrize("args, said", [
    (["--out", "/nonexistent-folder/BENCHMARKS.md"], "argument --out: cannot write /nonexistent-folder/BENCHMARKS.md: "
                                                      "No such file or directory"),
    (["--out", LONG], ("argument --out: cannot write xxxx", "x… (100,000 characters): File name too long")),
    (["--quick=3"], "argument --quick: ignored explicit argument '3'"),
    (["--repeats", "-1"], "unrecognized arguments: --repeats -1"),
], ids=["missing-folder", "long", "value-for-a-flag", "unknown-option"])
def test_bench_bad_arguments_are_refused_before_an_hour_of_benchmarks(run, no_benchmarks, args, said):
    fails_with(run("bench.run", *args), said)


# ----- the real commands ---------------------------------------------------------------------------

@pytest.mark.parametrize("module", ["core_model.training.evaluate", "core_model.training.train", "bench.run"])
def test_each_command_exits_2_with_one_error_line_in_a_real_process(module, trained, tmp_path):
    """`python -m module` as a user runs it: a new process, its real exit code and stderr. Each case
    is one of the in-process cases above, picked to cross the command's own `SystemExit(main())`."""
    if module == "core_model.training.evaluate":  # main returns 2 (a damaged file)
        folder = checkpoint_copy(SHIPPED, tmp_path / "model", "model.safetensors")
        fails_with(run_command(module, folder, "--task", "reverse"), "model.safetensors is truncated")
    elif module == "core_model.training.train":  # main returns 2 (a damaged checkpoint to resume from)
        checkpoint_copy(trained, tmp_path / "run" / "checkpoint", "config")
        fails_with(run_command(module, *QUICK, "--out", tmp_path / "run", "--steps", "2", "--resume"),
                   "config.json is not valid JSON")
    else:  # argparse exits with 2 (the benchmarks are not started)
        fails_with(run_command(module, "--quick=3"), "argument --quick: ignored explicit argument '3'")


def test_a_nul_character_cannot_be_passed_in_argv():
    # So no entry point can receive one: the operating system ends each argument at the first NUL,
    # and Python refuses to build such a command line at all. (Text with NUL in the app: test_bad_input.)
    with pytest.raises(ValueError, match="null byte"):
        subprocess.run([sys.executable, "-c", "pass", "a\x00b"], check=False)
