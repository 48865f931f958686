"""Every page opens from a link to its own path; the app's root opens the first page, keeping the link's settings."""
import pytest

from tests.e2e.conftest import wait_idle
from viz_app.i18n import text
from viz_app.registry import PAGES


@pytest.mark.parametrize("path, name, lang", [("", PAGES[0].name, "en"), ("?lang=zh", PAGES[0].name, "zh"),
                                              (PAGES[0].name, PAGES[0].name, "en"),
                                              (PAGES[-1].name, PAGES[-1].name, "en")])
def test_a_link_to_a_page_opens_it_without_a_page_not_found_dialog(open_page, path, name, lang):
    page, _ = open_page(path)
    wait_idle(page)
    page.get_by_role("heading", name=text(f"page.{name}", lang)).first.wait_for(timeout=30_000)
    assert page.get_by_text("Page not found").count() == 0
    assert f"/{name}" in page.url and (lang == "en" or f"lang={lang}" in page.url)
