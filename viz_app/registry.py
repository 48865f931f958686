"""The one list of the app's pages, in menu order. Plain data: app.py, the tests and bench import it
without starting Streamlit."""
from __future__ import annotations

from dataclasses import dataclass

from .home import home

ROOT = home()  # app.py's folder: the checkout, or an install's copy (home.py)


@dataclass(frozen=True)
class Page:
    name: str  # app_pages/<name>.py, its URL path, and "page.<name>" its title's i18n key

    @property
    def path(self) -> str:
        return f"app_pages/{self.name}.py"

    @property
    def title_key(self) -> str:
        return f"page.{self.name}"


PAGES = tuple(Page(name) for name in (
    "overview", "tokens", "positional", "self_attention", "explorer", "masks", "decoding", "attribution", "ffn_norm",
    "worked_example", "training"))
NAMES = tuple(p.name for p in PAGES)
