"""deploy/'s systemd units and logrotate file, as an operator installs them (deploy/README.md, "Run it with
systemd"), with /opt/attention-viz replaced by this checkout: systemd and logrotate accept them, and the app unit's
own command serves the app, with Streamlit's metrics refused (tests/e2e/test_proxy.py runs deploy/nginx.conf)."""
from __future__ import annotations

import grp
import os
import pwd
import re
import shlex
import shutil
import subprocess
import urllib.error
import urllib.request

import pytest

from tests.e2e.conftest import ROOT, free_port, stop, wait_healthy

DEPLOY = ROOT / "deploy"
PLACE = "/opt/attention-viz"  # where the files say the checkout is
UNITS = ("attention-viz@.service", "attention-viz-nginx.service")


def installed(folder, name: str, place=ROOT) -> str:
    """The file as it would be for a checkout at `place` run by this test's user, written to `folder`; its text."""
    user, group = pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(os.getgid()).gr_name
    text = (DEPLOY / name).read_text(encoding="utf-8").replace(PLACE, str(place))
    text = text.replace("su attention-viz attention-viz", f"su {user} {group}")
    (folder / name).write_text(text, encoding="utf-8")
    return text


def tool(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin:/sbin:/bin")
    if not found:  # fails, never skips: ./dev.sh test installs logrotate (as root); systemd-analyze comes with systemd
        pytest.fail(f"{name} not found: apt-get install {'logrotate' if name == 'logrotate' else 'systemd'}")
    return found


def test_systemd_accepts_both_units(tmp_path):
    for name in UNITS:
        installed(tmp_path, name)
    for unit in ("attention-viz@8501.service", "attention-viz-nginx.service"):
        done = subprocess.run([tool("systemd-analyze"), "verify", str(tmp_path / unit)], capture_output=True,
                              text=True, timeout=60, cwd=tmp_path)
        problems = [line for line in (done.stdout + done.stderr).splitlines() if "attention-viz" in line]
        assert done.returncode == 0 and not problems, done.stdout + done.stderr


def test_logrotate_rotates_a_log_past_50_mb_and_keeps_four(tmp_path):
    text = installed(tmp_path, "logrotate.conf", place=tmp_path)
    assert re.search(r"^\s*maxsize 50M$", text, re.M) and re.search(r"^\s*rotate 4$", text, re.M)
    logs = tmp_path / "run" / "nginx"
    logs.mkdir(parents=True)
    for day in range(6):  # six times a log past 50 MB: nothing else on the disk
        (logs / "access.log").write_bytes(b"x" * (51 << 20))
        (logs / "error.log").write_text("an error\n")
        done = subprocess.run([tool("logrotate"), "--state", str(tmp_path / "state"), str(tmp_path / "logrotate.conf")],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
    kept = sorted(p.name for p in logs.iterdir())
    assert kept == ["access.log.1", *(f"access.log.{i}.gz" for i in (2, 3, 4)), "error.log"], kept
    assert sum(p.stat().st_size for p in logs.iterdir()) < 60 << 20  # the newest whole, three compressed


def exec_start(text: str) -> list[str]:
    """A unit's ExecStart command line, its continuation lines joined."""
    line = re.search(r"^ExecStart=((?:.*\\\n)*.*)$", text, re.M).group(1)
    return shlex.split(line.replace("\\\n", " "))


def test_the_app_units_command_serves_the_app_on_this_machine_only_without_metrics(tmp_path):
    port = free_port()
    command = [part.replace("%i", str(port)) for part in exec_start(installed(tmp_path, "attention-viz@.service"))]
    assert command[:3] == [str(ROOT / ".venv/bin/python"), "-m", "viz_app.cli"] and "--serve" in command
    nginx_unit = installed(tmp_path, "attention-viz-nginx.service")
    assert exec_start(nginx_unit)[-3:] == [str(ROOT / "deploy/nginx.conf"), "-g", "daemon off;"]
    log = open(tmp_path / "server.log", "w")
    proc = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_healthy(f"http://127.0.0.1:{port}/_stcore/health", proc, timeout=120)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/metrics", timeout=10)
        assert refused.value.code == 404
        listening = subprocess.run(["ss", "-Hltnp"], capture_output=True, text=True).stdout
        assert re.search(rf"127\.0\.0\.1:{port}\b", listening) and not re.search(rf"(0\.0\.0\.0|\*|\[::\]):{port}\b",
                                                                                  listening), listening
    finally:
        stop(proc)
        log.close()
