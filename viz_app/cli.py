"""`attention-viz`: the app started as `./dev.sh app` starts it, for a checkout installed with `pip install -e .`.

Arguments go on to `streamlit run`, e.g. `attention-viz --server.port 8600`.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app.py"
# dev.sh's own flags: serve this machine only, and send Streamlit no usage statistics.
FLAGS = ("--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false")


def command(args=()) -> list[str]:
    """streamlit run <checkout>/app.py with dev.sh's flags, then `args`, by the running interpreter."""
    return [sys.executable, "-m", "streamlit", "run", str(APP), *FLAGS, *args]


def main(argv=None) -> int:
    """Run the app from the checkout's folder: Streamlit reads .streamlit/config.toml from where it starts."""
    if not APP.is_file():  # a plain (not editable) install copies the packages but not app.py, app_pages/ or assets/
        print(f"attention-viz: no app.py in {ROOT}; install the checkout itself with `pip install -e .`",
              file=sys.stderr)
        return 1
    cmd = command(sys.argv[1:] if argv is None else argv)
    os.chdir(ROOT)
    if os.name == "posix":
        os.execv(cmd[0], cmd)  # streamlit takes this process's place and its PID, as dev.sh's `exec` does
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
