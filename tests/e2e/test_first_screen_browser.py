"""The first screen, as a class first sees it: at 1440×900, and at 1024×768 in presenter mode, in English and
Chinese, the overview shows without scrolling the line that says what to do, the lesson's start, the sentence box,
the model's output and the chart of where it looks."""
import pytest

from tests.e2e.conftest import TIMEOUT_MS, chart_selector, wait_idle
from viz_app.i18n import text

# Each screen once, the languages in turn (presenting, the sidebar starts folded)
SCREENS = [(1440, 900, "", "en"), (1024, 768, "", "zh"), (1024, 768, "&present=1", "en")]


def in_view(box, width: int, height: int) -> bool:
    return box is not None and box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= width + 1 \
        and box["y"] + box["height"] <= height + 1


@pytest.mark.parametrize("width, height, present, lang", SCREENS, ids=["laptop-en", "small-zh", "presenting-en"])
def test_the_first_screen_holds_what_to_do_the_sentence_the_output_and_a_chart(browser, server, width, height,
                                                                               present, lang):
    context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{server}/?lang={lang}{present}")
        wait_idle(page, charts=1)
        main = page.locator('[data-testid="stMain"]')
        parts = {
            "what to do": main.get_by_text(text("overview.what_to_do" + (".present" if present else ""),
                                                lang).split("**")[1]).first,
            "lesson": main.get_by_role("button", name=text("lesson.start", lang)).first,
            "sentence box": page.locator(f'[data-testid="stSidebar"] input[aria-label="{text("sidebar.src", lang)}"]'),
            "output": main.locator('[data-testid="stText"]').nth(1),
            "chart": page.locator(f"{chart_selector('overview.look')} .js-plotly-plot").first,
        }
        if present:  # the sidebar is folded: its toggle is what shows (the line says to open it)
            parts["sentence box"] = page.locator('[data-testid="stExpandSidebarButton"]').first
        boxes = {name: part.bounding_box() for name, part in parts.items()}
        out = {name: box for name, box in boxes.items() if not in_view(box, width, height)}
        if out:
            page.screenshot(path=f"artifacts/e2e/first-screen-{width}{present[1:8]}-{lang}.png")
        assert not out, out
        assert parts["output"].inner_text().strip()  # the translation itself
    finally:
        context.close()
