"""Where the app's own files are (app.py, app_pages/, the shipped models in assets/models/, .streamlit/): the checkout
beside viz_app/ (run in place, or installed with `pip install -e .`), else the copy a wheel carries in
attention_viz/app/ (setup.py puts it there when the wheel is built)."""
from __future__ import annotations

from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
INSTALLED = CHECKOUT / "attention_viz" / "app"  # site-packages/attention_viz/app in a wheel's install


def home() -> Path:
    """The folder that holds app.py: the checkout's when there is one."""
    return CHECKOUT if (CHECKOUT / "app.py").is_file() else INSTALLED
