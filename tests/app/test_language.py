"""Every page renders in Chinese with no English UI strings left (model tokens aside)."""
import json
import re

import pytest

from viz_app import loaders
from viz_app.registry import NAMES
from tests.app.conftest import assert_clean, open_page
from viz_app.i18n import STRINGS

PAGE_NAMES = list(NAMES)
# Two or more English words in a row: what an untranslated label looks like.
ENGLISH_PHRASE = re.compile(r"\b[A-Za-z]{3,}(?:[ ,]+[A-Za-z]{3,})+\b")


def ui_texts(at) -> list[str]:
    """Every piece of text the page itself writes: titles, prose, labels, options, chart titles."""
    texts = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "info", "warning", "error", "success"):
        texts += [e.value for e in at.get(kind)]
    for kind in ("button", "checkbox", "toggle", "radio", "selectbox", "multiselect", "slider", "select_slider",
                 "text_input", "text_area", "number_input"):
        for widget in at.get(kind):
            texts.append(widget.label)
            texts += [str(o) for o in getattr(widget, "options", []) or []]
    for kind in ("tab", "expander"):
        texts += [e.label for e in at.get(kind)]
    for chart in at.get("plotly_chart"):
        layout = json.loads(chart.proto.spec).get("layout", {})
        texts += [str(layout.get("title", {}).get("text", ""))]
        texts += [str(v.get("title", {}).get("text", "")) for k, v in layout.items() if k.startswith(("xaxis", "yaxis"))]
    return [t for t in texts if t]


def model_words(at) -> set[str]:
    """Words that come from the model or the typed text, not from the UI."""
    words = set()
    for key in ("src", "tgt", "masks.batch"):
        value = at.session_state[key] if key in at.session_state else ""
        words |= set(re.findall(r"[A-Za-z]+", str(value)))
    snapshots = loaders.training_snapshots(at.session_state["model"])  # the Training page's probe sentences
    for probe in snapshots.probes if snapshots else []:  # pieces joined into words, as the page shows them
        words |= set(re.findall(r"[A-Za-z]+", "".join(probe["src"]) + "".join(probe["tgt"])))
    return words


@pytest.mark.parametrize("name", PAGE_NAMES)
def test_page_has_no_english_left_in_chinese(name):
    at = open_page(name, lang="zh")
    assert_clean(at)
    english = {v["en"] for v in STRINGS.values() if v["en"] != v["zh"] and ENGLISH_PHRASE.search(v["en"])}
    allowed = model_words(at)
    leftovers = []
    for text in ui_texts(at):
        if text in english:
            leftovers.append(text)
            continue
        # math ($…$, \commands) and code spans (`python -m …`) are not prose: the same in every language
        for phrase in ENGLISH_PHRASE.findall(re.sub(r"\$[^$]*\$|\\\w+|`[^`]*`", " ", text)):
            if not set(re.findall(r"[A-Za-z]+", phrase)) <= allowed:
                leftovers.append(phrase)
    assert not leftovers, f"English left on the Chinese {name} page: {leftovers[:10]}"
    assert any(re.search(r"[\u4e00-\u9fff]", t) for t in ui_texts(at))


def test_a_model_that_cannot_be_loaded_is_said_in_chinese(monkeypatch):
    from core_model.checkpoints.safe_load import CheckpointError
    from tests.app.conftest import shown

    def broken(name):
        raise CheckpointError("the checkpoint folder /srv/m has no config.json.", code="file_missing",
                              fields={"folder": "/srv/m", "file": "config.json"})

    monkeypatch.setattr(loaders.models, "load_model", broken)
    at = open_page("overview", lang="zh")
    assert [shown(e.value) for e in at.sidebar.error] == ["无法加载模型 translate-en-fr：检查点文件夹 /srv/m 中没有 config.json。"]
