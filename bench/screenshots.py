"""The README's pictures: `.venv/bin/python -m bench.screenshots` starts the app, opens the attention explorer and
the self-attention steps in chromium at 1440×900 on the default model and sentence, and saves docs/explorer.png and
docs/self_attention.png (what a first visit sees, once every chart is drawn)."""
from __future__ import annotations

import sys
from pathlib import Path

from . import browser as br
from .browser import ROOT

SHOTS = {"explorer": "explorer", "self_attention": "self_attention"}  # file name → the page's link
SIZE = (1440, 900)
IDLE = """() => document.querySelector('h1') && !document.querySelector('[data-testid="stStatusWidget"]')
    && !document.querySelector('[data-stale="true"]') && document.querySelector('.js-plotly-plot .main-svg')"""


def shoot(base: str, b, out: Path = ROOT / "docs") -> list[Path]:
    """One screenshot per page of SHOTS into `out`, each from a fresh session of the server at `base` in chromium
    `b`; their paths."""
    out.mkdir(parents=True, exist_ok=True)
    saved = []
    for name, link in SHOTS.items():
        page = b.new_page(viewport={"width": SIZE[0], "height": SIZE[1]})
        try:
            page.goto(f"{base}/{link}", wait_until="commit")
            page.wait_for_function(IDLE, timeout=120_000)
            page.wait_for_timeout(1000)  # idle twice, a second apart: the last chart's animation is over
            page.wait_for_function(IDLE, timeout=120_000)
            page.screenshot(path=str(out / f"{name}.png"))
        finally:
            page.close()
        saved.append(out / f"{name}.png")
    return saved


if __name__ == "__main__":
    why = br.missing()
    if why:
        raise SystemExit(why)
    with br.server() as (address, _), br.browser() as chromium:
        for path in shoot(address, chromium, Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs"):
            print(path)
