"""The README's pictures (docs/): made by `.venv/bin/python -m bench.screenshots`, here on the tests' server into a
temporary folder; the README shows the two it keeps."""
from __future__ import annotations

import re
import struct

from bench.screenshots import SHOTS, SIZE, shoot
from tests.test_notebook import ROOT


def png_size(path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_the_command_draws_each_page_and_the_readme_shows_what_it_keeps(browser, server, tmp_path):
    made = shoot(server, browser, tmp_path)
    assert [p.name for p in made] == [f"{name}.png" for name in SHOTS]
    assert all(png_size(p) == SIZE and p.stat().st_size > 30_000 for p in made)  # a drawn page, not a blank one
    shown = re.findall(r"!\[[^\]]*\]\((docs/[^)]+\.png)\)", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert shown == [f"docs/{name}.png" for name in SHOTS]
    assert all(png_size(ROOT / path) == SIZE for path in shown)
