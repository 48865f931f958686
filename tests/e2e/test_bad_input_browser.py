"""What only a browser shows of bad input: Markdown in a shared link's values and in typed words stays text."""
from urllib.parse import urlencode

IMAGE = "![x](http://evil.example/p.png)"
TYPED = f"the cat {IMAGE} $x$ :red[x] www.evil.example"


def test_markdown_in_a_link_or_a_sentence_is_shown_as_typed_and_fetches_nothing(open_page):
    # typed as the teacher-forcing target: the translator's sentence is written as its training text (no punctuation)
    page, rec = open_page("overview?" + urlencode({"head": IMAGE, "src": "the cat", "tgt": TYPED}))
    alerts = page.locator('[data-testid="stAlert"]')
    texts = alerts.all_inner_texts()
    assert any(f"The link asked for head = {IMAGE}, which" in a for a in texts), texts
    assert any(f"“{IMAGE}”, “$x$”, “:red[x]”" in a for a in texts), texts  # the typed words, as typed
    assert alerts.locator("img, a, .katex").count() == 0  # no image, link or formula was made of them
    assert not [u for u in rec.requests if "evil.example" in u and "127.0.0.1" not in u]
    assert rec.page_errors == []
