"""The heads' lines page (viz_app/figures/head_lines.py): what its script draws is exactly the lines it is given,
and a token can never be markup or end the script. How it behaves under a pointer: tests/e2e/test_head_lines_browser.py."""
import json
import re
from types import SimpleNamespace

import numpy as np

from viz_app.figures import head_lines

HOSTILE = ("</script><script>alert(1)</script>", "<b>bold</b>", "a&amp;b", "DATA", "FONT_PX")


def lines(n_heads=2, rows=("a", "b"), keys=("a", "b")):
    head, query, key = np.array([0, 1, 1]), np.array([0, 1, 1]), np.array([0, 0, 1])
    return SimpleNamespace(head=head, query=query, key=key, weight=np.array([0.5, 0.25, 0.125], np.float32),
                           n_heads=n_heads, rows=tuple(rows), start=3, keys=slice(3, 3 + len(keys)),
                           k_labels=tuple(keys), left_out=0)


def data_of(page: str) -> dict:
    blob = re.search(r"const D = (.*?);\n", page).group(1)
    return json.loads(blob)


def test_the_page_holds_exactly_the_lines_weights_and_positions_it_was_given():
    page = head_lines.page(lines(), ["head 0", "head 1"], "Layer 2", "Point at a token")
    d = data_of(page)
    assert d["lines"] == [[0, 0, 0], [1, 1, 0], [1, 1, 1]] and d["weights"] == [0.5, 0.25, 0.125]
    assert d["rowPos"] == [3, 4] and d["keyPos"] == [3, 4]
    assert d["heads"] == ["head 0", "head 1"] and d["colours"] == ["#1F77B4", "#FF7F0E"]
    assert "font: 14px" in page


def test_a_token_is_text_in_the_data_never_markup_and_cannot_end_the_script():
    page = head_lines.page(lines(rows=HOSTILE[:2], keys=HOSTILE[2:4]), list(HOSTILE[3:]), HOSTILE[0], HOSTILE[1])
    assert page.count("</script>") == 1 and page.count("<script>") == 1 and "<b>" not in page
    d = data_of(page)
    assert d["rows"] == list(HOSTILE[:2]) and d["keys"] == list(HOSTILE[2:4]) and d["title"] == HOSTILE[0]
    assert d["heads"] == list(HOSTILE[3:]) and "innerHTML" not in page  # the script sets text only


def test_more_heads_than_d3s_ten_colours_get_a_colour_each():
    many = head_lines.colours(16)
    assert len(set(many)) == 16 and len(set(head_lines.colours(10))) == 10
