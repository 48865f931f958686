"""A fresh load of a Chinese link names the pages in the navigation and the browser tab in Chinese, with no
Deploy button. (That no English is on screen of any Chinese page is checked in presenter mode, with the
layout: tests/e2e/test_classroom_browser.py.)"""
from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import PAGES, TIMEOUT_MS

HAN = re.compile(r"[\u4e00-\u9fff]")
NAV_LINKS = '[data-testid="stSidebarNav"] a'


@pytest.mark.parametrize("name", ["overview", "self_attention", "training"])  # the first, one in the middle, the last
def test_a_fresh_chinese_load_names_the_pages_and_the_tab_in_chinese(projector, name):
    page = projector(f"{name}?lang=zh", charts=False)
    page.wait_for_function("() => document.title !== ''", timeout=TIMEOUT_MS)
    links = page.locator(NAV_LINKS).all_inner_texts()
    assert len(links) == len(PAGES)
    assert [link for link in links if not HAN.search(link)] == [], links
    assert HAN.search(page.title()), page.title()
    assert page.locator('[data-testid="stAppDeployButton"]').count() == 0  # toolbarMode "viewer": no Deploy
