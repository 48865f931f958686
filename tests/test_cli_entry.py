"""`attention-viz`, the console script of pyproject.toml (viz_app/cli.py): declared, the same command line as
`./dev.sh app`, run from the checkout, and serving for real on a local port.

The server test starts `python -m viz_app.cli` from another folder, as an installed `attention-viz` would be run,
and stops it by its PID (tests/e2e/conftest.py starts its servers the same way).
"""
from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
import tomllib
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import torch
from setuptools import find_packages

from tests.e2e.conftest import free_port, stop, wait_healthy
from viz_app import cli, serving
from viz_app.loaders import models

ROOT = Path(__file__).resolve().parents[1]
HEALTHY_SECONDS = 90  # Streamlit's start on a busy 2-core machine
LINUX = sys.platform.startswith("linux")


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))




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


def test_an_install_carries_every_package_of_the_libraries():
    found = set(find_packages(ROOT, include=pyproject()["tool"]["setuptools"]["packages"]["find"]["include"]))
    folders = {".".join(p.parent.relative_to(ROOT).parts) for lib in ("attention_viz", "core_model", "viz_app")
               for p in (ROOT / lib).rglob("*.py") if "__pycache__" not in p.parts}
    assert folders <= found, f"left out of an install: {sorted(folders - found)}"
    assert {p.split(".")[0] for p in found} == {"attention_viz", "core_model", "viz_app"}


def test_dev_sh_app_is_this_command():
    script = (ROOT / "dev.sh").read_text(encoding="utf-8")
    assert re.search(r'exec "\$VENV/bin/python" -m viz_app\.cli "\$\{@:2\}"', script)


def test_the_streamlit_command_line():
    extra = ["--server.port", "8600", "--theme.base", "dark"]
    command = cli.command(extra)
    assert command[:5] == [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py")]
    assert command[5:-len(extra)] == ["--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"]
    assert command[-len(extra):] == extra  # the user's arguments last, so they win
    assert Path(command[4]).is_file()


def test_main_runs_streamlit_in_its_own_process_from_the_checkout(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # started from elsewhere; monkeypatch puts the test's folder back
    ran = {}

    class Replaced(Exception):
        pass

    def serve(args):
        ran.update(args=list(args), cwd=Path.cwd())
        raise Replaced

    monkeypatch.setattr(cli, "serve", serve)
    with pytest.raises(Replaced):
        cli.main(["--server.port", "8600"])
    # The checkout's folder: Streamlit reads .streamlit/config.toml (no error details for visitors) from there.
    assert ran == {"args": cli.command(["--server.port", "8600"]), "cwd": ROOT}


def run_main(monkeypatch, argv) -> dict:
    """What cli.main(argv) would start: the command and the environment, caught at cli.serve."""
    ran = {}

    class Replaced(Exception):
        pass

    def serve(args):
        ran.update(args=list(args), env=dict(os.environ))
        raise Replaced

    monkeypatch.setattr(cli, "serve", serve)
    monkeypatch.chdir(ROOT)
    settings = (cli.MODELS_SETTING, cli.LOCAL_SETTING, cli.DEVICE_SETTING, cli.LANG_SETTING)
    for name in settings:
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(Replaced):
        cli.main(argv)
    for name in settings:  # main sets them for the server it becomes
        monkeypatch.delenv(name, raising=False)
    return ran


def test_the_apps_own_options_go_to_the_app_and_the_rest_to_streamlit(monkeypatch, tmp_path):
    folder = tmp_path / "my-model"
    folder.mkdir()
    ran = run_main(monkeypatch, ["--model", str(folder), "--theme.base", "dark", "--port", "8600"])
    assert ran["args"][-4:] == ["--theme.base", "dark", "--server.port", "8600"]
    assert json.loads(ran["env"][cli.MODELS_SETTING]) == [["my-model", str(folder.resolve())]]
    assert ran["env"][cli.LOCAL_SETTING] == "1"
    assert run_main(monkeypatch, ["--serve"])["env"][cli.LOCAL_SETTING] == ""


def test_the_language_reaches_the_app_and_a_fresh_visit_opens_in_it(monkeypatch):
    assert run_main(monkeypatch, [])["env"][cli.LANG_SETTING] == "en"
    assert run_main(monkeypatch, ["--lang", "zh"])["env"][cli.LANG_SETTING] == "zh"
    from tests.app.conftest import assert_clean, open_page
    from viz_app.i18n import text

    monkeypatch.setenv(cli.LANG_SETTING, "zh")
    at = open_page("overview")
    assert_clean(at)
    assert at.title[0].value == text("page.overview", "zh") and at.session_state["lang"] == "zh"
    at = open_page("overview", lang="en")  # a visitor's own choice (the sidebar's, or a link's) still wins
    assert at.title[0].value == text("page.overview", "en")


def test_a_model_neither_a_folder_nor_in_the_cache_is_named_with_where_it_looked(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(cli, "serve", lambda *a: pytest.fail("nothing may start"))
    assert cli.main(["--model", "openai-community/gpt2"]) == 2
    err = capsys.readouterr().err
    assert "'openai-community/gpt2' is not a folder" in err and str(tmp_path / "hub") in err


@pytest.mark.parametrize("cuda", [False, True])
def test_the_device_reaches_the_app_and_auto_takes_cuda_only_where_torch_sees_it(monkeypatch, cuda):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
    assert run_main(monkeypatch, [])["env"][cli.DEVICE_SETTING] == "cpu"  # the default, GPU or not
    assert run_main(monkeypatch, ["--device", "auto"])["env"][cli.DEVICE_SETTING] == ("cuda" if cuda else "cpu")
    assert run_main(monkeypatch, ["--device", "cpu"])["env"][cli.DEVICE_SETTING] == "cpu"
    if cuda:
        assert run_main(monkeypatch, ["--device", "cuda"])["env"][cli.DEVICE_SETTING] == "cuda"


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_auto_is_the_cpu_on_a_machine_without_a_gpu():
    assert cli.device("auto") == "cpu"
    with pytest.raises(cli.NoDevice, match="no CUDA device is available"):
        cli.device("cuda")


def test_cuda_without_a_gpu_is_refused_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(cli, "serve", lambda *a: pytest.fail("nothing may start"))
    monkeypatch.delenv(cli.DEVICE_SETTING, raising=False)
    assert cli.main(["--device", "cuda"]) == 2
    assert capsys.readouterr().err == ("attention-viz: --device cuda: no CUDA device is available "
                                       "(torch.cuda.is_available() is False)\n")
    assert cli.DEVICE_SETTING not in os.environ


def test_the_loader_puts_every_model_on_the_settings_device(monkeypatch):
    """cpu here; meta, a device no run defaults to, shows the setting is what is read."""
    try:
        for device in ("cpu", "meta"):
            monkeypatch.setenv(cli.DEVICE_SETTING, device)
            models._load_cached.clear()
            loaded = models.load_model("reverse")
            assert models.device() == torch.device(device)
            assert {p.device.type for p in loaded.model.parameters()} == {device}
            assert {b.device.type for b in loaded.model.buffers()} <= {device}
    finally:
        models._load_cached.clear()  # no later test may find the meta model
    monkeypatch.setenv(cli.DEVICE_SETTING, "gpu")  # set by hand, and wrongly: the app still opens, on the CPU
    assert models.device() == torch.device("cpu")
    monkeypatch.delenv(cli.DEVICE_SETTING)
    assert models.device() == torch.device("cpu")


def test_the_server_loads_the_first_model_named_while_it_starts(monkeypatch, tmp_path):
    """cli.warm_up, the thread serve() starts beside Streamlit: the app's modules settled, then the first model
    `--model` named loaded into the loaders' cache, so that a first visit finds it there."""
    from streamlit import runtime

    folder = ROOT / "assets" / "models" / "reverse"
    monkeypatch.setenv(cli.MODELS_SETTING, json.dumps([["mine", str(folder)], ["other", str(folder)]]))
    monkeypatch.setattr(runtime, "exists", lambda: True)
    done, real = [], models.checkpoints.load
    monkeypatch.setattr(serving, "settle", lambda: done.append("settle"))  # this test process keeps its threads
    monkeypatch.setattr(models.checkpoints, "load", lambda path, trusted=False, progress=None:
                        done.append(("load", path, trusted)) or real(path, trusted, progress))
    models._load_cached.clear()
    try:
        assert models.first_model() == "mine"
        cli.warm_up()
        assert done == ["settle", ("load", folder, True)]
        loaded = models._load_cached("mine")  # what the page asks for: found, not loaded again
        assert len(done) == 2 and loaded.config.n_encoder_layers > 0
    finally:
        models._load_cached.clear()
    monkeypatch.delenv(cli.MODELS_SETTING)
    assert models.first_model() == models.DEFAULT_MODEL


def test_help_documents_the_apps_own_options(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0 and all(option in out for option in ("--model", "--device", "--port", "--serve",
                                                                      "--lang"))


def test_main_says_what_to_do_without_the_app(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(cli, "APP", tmp_path / "app.py")  # neither a checkout nor a wheel built by setup.py
    monkeypatch.setattr(cli, "serve", lambda *a: pytest.fail("nothing may start"))
    assert cli.main([]) == 1
    assert "install the wheel built from the checkout" in capsys.readouterr().err


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
        if LINUX:  # the process started is the server (Streamlit runs in it), from the checkout's folder
            assert Path(f"/proc/{proc.pid}/cwd").resolve() == ROOT
        # Streamlit's metrics (sessions, cache sizes, compute times) are nobody's business but the operator's
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/metrics", timeout=10)
        assert refused.value.code == 404
    finally:
        stop(proc)  # by its PID
        log.close()
