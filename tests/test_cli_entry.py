"""`attention-viz`, the console script of pyproject.toml (viz_app/cli.py): declared, the same command line as
`./dev.sh app`, run from the checkout, and serving for real on a local port.

The server test starts `python -m viz_app.cli` from another folder, as an installed `attention-viz` would be run,
and stops it by its PID (tests/e2e/conftest.py starts its servers the same way).
"""
from __future__ import annotations

import importlib
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from setuptools import find_packages

from tests.e2e.conftest import free_port, stop, wait_healthy
from viz_app import cli

ROOT = Path(__file__).resolve().parents[1]
HEALTHY_SECONDS = 90  # Streamlit's start on a busy 2-core machine
LINUX = sys.platform.startswith("linux")


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def dev_sh_flags() -> list[str]:
    """The flags `./dev.sh app` gives `streamlit run app.py`, before the user's own arguments."""
    script = (ROOT / "dev.sh").read_text(encoding="utf-8").replace("\\\n", " ")
    found = re.search(r'streamlit run app\.py (.*?) "\$\{@:2\}"', script)
    assert found, "dev.sh starts the app with `streamlit run app.py ... \"${@:2}\"`"
    return shlex.split(found.group(1))


def test_the_entry_point_is_declared_and_resolves():
    project = pyproject()["project"]
    assert project["scripts"]["attention-viz"] == "viz_app.cli:main"
    module, name = project["scripts"]["attention-viz"].split(":")
    assert callable(getattr(importlib.import_module(module), name))


def test_dependencies_are_requirements_txt():
    config = pyproject()
    assert "dependencies" in config["project"]["dynamic"] and "dependencies" not in config["project"]
    assert config["tool"]["setuptools"]["dynamic"]["dependencies"] == {"file": ["requirements.txt"]}
    pins = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert "torch==2.13.0" in pins  # exact: a looser torch pulls the CUDA build


def test_an_install_carries_every_package_of_the_two_libraries():
    found = set(find_packages(ROOT, include=pyproject()["tool"]["setuptools"]["packages"]["find"]["include"]))
    folders = {".".join(p.parent.relative_to(ROOT).parts) for lib in ("core_model", "viz_app")
               for p in (ROOT / lib).rglob("*.py") if "__pycache__" not in p.parts}
    assert folders <= found, f"left out of an install: {sorted(folders - found)}"
    assert {p.split(".")[0] for p in found} == {"core_model", "viz_app"}


def test_the_command_line_is_dev_sh_s():
    extra = ["--server.port", "8600", "--theme.base", "dark"]
    command = cli.command(extra)
    assert command[:5] == [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py")]
    assert command[5:-len(extra)] == dev_sh_flags() == ["--server.address", "127.0.0.1",
                                                        "--browser.gatherUsageStats", "false"]
    assert command[-len(extra):] == extra  # the user's arguments last, so they win
    assert Path(command[4]).is_file()


@pytest.mark.skipif(os.name != "posix", reason="main() replaces its process with os.execv on POSIX only")
def test_main_runs_streamlit_in_its_place_from_the_checkout(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # started from elsewhere; monkeypatch puts the test's folder back
    ran = {}

    class Replaced(Exception):
        pass

    def execv(path, args):
        ran.update(path=path, args=list(args), cwd=Path.cwd())
        raise Replaced

    monkeypatch.setattr(os, "execv", execv)
    with pytest.raises(Replaced):
        cli.main(["--server.port", "8600"])
    # The checkout's folder: Streamlit reads .streamlit/config.toml (no error details for visitors) from there.
    assert ran == {"path": sys.executable, "args": cli.command(["--server.port", "8600"]), "cwd": ROOT}


def test_main_says_what_to_do_without_a_checkout(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(cli, "APP", tmp_path / "app.py")  # as in a plain, not editable, install
    monkeypatch.setattr(os, "execv", lambda *a: pytest.fail("nothing may start"))
    assert cli.main([]) == 1
    assert "pip install -e ." in capsys.readouterr().err


def test_it_serves_the_app_on_a_local_port(tmp_path):
    port = free_port()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p))
    log = open(tmp_path / "server.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "viz_app.cli", "--server.port", str(port),
                             "--server.headless", "true", "--server.fileWatcherType", "none"],
                            cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        try:
            wait_healthy(f"http://127.0.0.1:{port}/_stcore/health", proc, timeout=HEALTHY_SECONDS)
        except RuntimeError as e:
            raise AssertionError(f"{e}:\n{(tmp_path / 'server.log').read_text()}") from None
        if LINUX:  # the process started is the server (execv kept its PID), on the checkout's app, from there
            argv = Path(f"/proc/{proc.pid}/cmdline").read_bytes().decode().split("\0")
            assert argv[1:5] == ["-m", "streamlit", "run", str(ROOT / "app.py")]
            assert Path(f"/proc/{proc.pid}/cwd").resolve() == ROOT
    finally:
        stop(proc)  # by its PID
        log.close()
