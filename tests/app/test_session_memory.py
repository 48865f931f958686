"""A finished run leaves nothing of its page behind in the session.

A session keeps its widgets' callbacks and format_funcs, and the server keeps every download button's
deferred callable, until the session is gone: for as long as a visitor stays, and 120 s after (in case
the browser reconnects). A function made in a page script holds that script's whole namespace (its
unpickled traced run, its figures), about a megabyte a session; RELIABILITY.md §4.
"""
import gc
import sys
from unittest import mock

import pytest

from viz_app import page as page_helpers
from viz_app.registry import NAMES

from .conftest import assert_clean, open_keeping_downloads, open_page

PAGES = sorted(NAMES)


def namespaces(page: str) -> list[dict]:
    """The live global namespaces of runs of app_pages/<page>.py."""
    gc.collect()
    return [o for o in gc.get_objects()
            if type(o) is dict and str(o.get("__file__", "")).endswith(f"app_pages/{page}.py")]


def test_every_page_is_checked():
    assert {"overview", "explorer", "masks", "positional", "decoding"} <= set(PAGES)


@pytest.mark.parametrize("page", PAGES)
def test_a_finished_run_keeps_nothing_of_its_page(page):
    at, kept = open_keeping_downloads(page)  # held, as the server holds them for the session
    assert_clean(at)
    assert at.get("plotly_chart") or page == "overview"  # the page drew what it draws (overview: a diagram)
    assert not namespaces(page), "something the session keeps was made in the page script"


def test_the_check_finds_a_page_namespace_that_is_held():
    """Not blind: holding what a page's chart call sees as its globals keeps the page, and the check says so."""
    held = []
    chart = page_helpers.chart

    def spy(*args, **kwargs):
        held.append(sys._getframe(1).f_globals)  # the caller: the page script's namespace
        return chart(*args, **kwargs)

    with mock.patch.object(page_helpers, "chart", spy):
        at = open_page("explorer")
    assert_clean(at)
    assert held and namespaces("explorer") == [held[0]]
    held.clear()
    assert not namespaces("explorer")
