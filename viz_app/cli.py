"""`attention-viz`: the app, started as `./dev.sh app` starts it, for a checkout installed with `pip install -e .`.

The app's own options come first; every other argument goes on to `streamlit run` (e.g. `--theme.base dark`).
`--model PATH_OR_NAME` (again for more) opens a folder, or a hub name found in the local Hugging Face cache
(core_model/checkpoints/hub_cache.py, offline), beside the shipped models: the operator's own models, passed to the
app in MODELS_SETTING. A local run (the default) also lists in the sidebar what the cache holds; `--serve` starts a
server for others, which lists nothing from this machine's disk but what `--model` names. `--device cuda` (or `auto`,
cuda when torch sees one) runs every model on the GPU: DEVICE_SETTING tells the loader (viz_app/loaders/models.py).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time

import torch

from core_model.checkpoints import CheckpointError, hub_cache
from core_model.cli import Parser, whole
from viz_app.home import home
from viz_app.i18n import LANGUAGES
from viz_app.operator_settings import DEVICE_SETTING, LANG_SETTING, LOCAL_SETTING, MODELS_SETTING

ROOT = home()  # the checkout, or the copy of the app a wheel carries (viz_app/home.py)
APP = ROOT / "app.py"
# dev.sh's own flags: serve this machine only, and send Streamlit no usage statistics.
FLAGS = ("--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false")
DEVICES = ("cpu", "cuda", "auto")


class NoDevice(ValueError):
    """--device names a device this machine does not have."""


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="attention-viz", description="Open the attention visualizer in your browser. Arguments not "
               "listed here go on to `streamlit run` (e.g. --theme.base dark).")
    p.add_argument("--model", action="append", default=[], metavar="PATH_OR_NAME",
                   help="a model folder, or a hub name (openai-community/gpt2) found in the local Hugging Face cache "
                        "(HF_HUB_CACHE, HF_HOME/hub or ~/.cache/huggingface/hub; never downloaded); repeat for more")
    p.add_argument("--device", choices=DEVICES, default="cpu",
                   help="where the models run: cpu (the default), cuda (a GPU), or auto (cuda if there is one, else cpu)")
    p.add_argument("--port", type=whole(1, 65535), help="the port to serve on (Streamlit's --server.port)")
    p.add_argument("--lang", choices=tuple(LANGUAGES), default="en",
                   help="the language a visit opens in when its link names none: en (the default) or zh; a visitor "
                        "can still switch in the sidebar")
    p.add_argument("--serve", action="store_true",
                   help="serve others: the sidebar lists no models from this machine's cache, only --model's")
    return p


def command(args=()) -> list[str]:
    """streamlit run <checkout>/app.py with dev.sh's flags, then `args`, by the running interpreter."""
    return [sys.executable, "-m", "streamlit", "run", str(APP), *FLAGS, *args]


def serve(cmd: list[str]) -> int:
    """Run `cmd` (a command()) in this process, as `python -m streamlit` would: the server keeps this process's
    PID, and no visitor can clear its caches or read its metrics (serving.close_to_visitors). Meanwhile a thread
    makes ready what a first visit waits for (warm_up)."""
    from streamlit.web import cli as streamlit_cli

    from viz_app import serving

    serving.close_to_visitors()
    threading.Thread(target=warm_up, name="attention-viz warm-up", daemon=True).start()
    sys.argv = ["streamlit", *cmd[3:]]
    return streamlit_cli.main(prog_name="streamlit")


def warm_up() -> None:
    """While the server starts: import and settle the app's modules (viz_app/serving.py), then load the model a first
    visit opens (loaders.preload): without it, that visit waited 6.8 s for both (SmolLM2-135M, 2 cores)."""
    from streamlit import runtime

    for _ in range(600):  # the caches the app's modules make on import belong to the server's runtime: wait for it
        if runtime.exists():
            break
        time.sleep(0.05)
    from viz_app import serving
    from viz_app.loaders import models

    serving.settle()
    models.preload()


def device(choice: str) -> str:
    """--device's choice as a torch device: auto is cuda when torch sees a CUDA device, else cpu; NoDevice for cuda
    without one (checked here, so the app never opens to fail on its first model)."""
    available = torch.cuda.is_available()
    if choice == "cuda" and not available:
        raise NoDevice("--device cuda: no CUDA device is available (torch.cuda.is_available() is False)")
    return ("cuda" if available else "cpu") if choice == "auto" else choice


def settings(options) -> dict[str, str]:
    """The environment the app reads its operator's choices from; CheckpointError for a model not found, NoDevice
    for a device this machine lacks."""
    models = [hub_cache.resolve(spec) for spec in options.model]
    return {MODELS_SETTING: json.dumps([[name, str(folder)] for name, folder in models]),
            LOCAL_SETTING: "" if options.serve else "1", DEVICE_SETTING: device(options.device),
            LANG_SETTING: options.lang}


def main(argv=None) -> int:
    """Run the app from the checkout's folder: Streamlit reads .streamlit/config.toml from where it starts."""
    options, rest = parser().parse_known_args(sys.argv[1:] if argv is None else argv)
    if not APP.is_file():  # neither a checkout nor a wheel built by setup.py (which carries the app)
        print(f"attention-viz: no app.py in {ROOT}; install the wheel built from the checkout, or the checkout itself "
              "with `pip install -e .`", file=sys.stderr)
        return 1
    try:
        os.environ.update(settings(options))
    except (CheckpointError, NoDevice) as e:
        print(f"attention-viz: {e}", file=sys.stderr)
        return 2
    cmd = command(rest + (["--server.port", str(options.port)] if options.port else []))
    os.chdir(ROOT)
    return serve(cmd)


if __name__ == "__main__":
    sys.exit(main())
