"""Every UI string renders as Markdown without a stray marker, in both languages.

Streamlit renders Markdown by CommonMark's rules, where `**` closes emphasis only if it is "right-flanking": a
closing `**` right after punctuation must be followed by a space or punctuation. Chinese puts no space after
its full-width colon, so "**目标：**文本" shows its asterisks; "**目标**：文本" is bold. markdown-it-py is a
CommonMark parser.
"""
import re

import pytest
from markdown_it import MarkdownIt

from viz_app.i18n import STRINGS

PARSER = MarkdownIt("commonmark")
FIELD = re.compile(r"\{[^{}]*\}")


def rendered_text(template: str) -> str:
    """The text a reader sees: each {field} filled with a digit, the Markdown rendered, the tags dropped."""
    html = PARSER.render(FIELD.sub("1", template))
    return re.sub(r"<[^>]+>", "", html)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_no_string_shows_its_bold_markers(language):
    raw = [key for key, strings in STRINGS.items() if "**" in rendered_text(strings.get(language, ""))]
    assert raw == []


def test_the_check_sees_a_marker_left_open():
    assert "**" in rendered_text("**目标：**{text}") and "**" not in rendered_text("**目标**：{text}")
