"""The configuration a server for strangers runs with (.streamlit/config.toml), as Streamlit itself reads it."""
import subprocess
import sys
import tomllib

from core_model import checkpoints
from viz_app.registry import ROOT


def shown_config() -> str:
    """`streamlit config show` started where ./dev.sh app and the browser tests start the server."""
    return subprocess.run([sys.executable, "-m", "streamlit", "config", "show"], cwd=ROOT, capture_output=True,
                          text=True, check=True, timeout=120).stdout


def test_streamlit_reads_the_servers_settings():
    settings = shown_config()
    assert 'showErrorDetails = "none"' in settings  # no traceback with the server's paths for a visitor
    assert 'toolbarMode = "viewer"' in settings
    assert "maxUploadSize = 128" in settings


def test_the_upload_limit_is_the_loaders_own():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["maxUploadSize"] * 2**20 == checkpoints.MAX_ZIP_BYTES
