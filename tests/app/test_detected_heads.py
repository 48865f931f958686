"""The explorer's head statistics of a decoder-only model carry its head detectors' scores (core_model.detectors, on
random tokens repeated once; tests/core/test_detectors.py checks them on heads written by hand), and say what they
read; the translator's blocks have none."""
from __future__ import annotations

import numpy as np

from core_model import detectors
from tests.app.conftest import assert_clean, named_z, open_page
from viz_app import loaders
from viz_app.i18n import text


def stats_table(at):
    return next(d.value for d in at.dataframe if text("explorer.stat.entropy", "en") in d.value.columns)


def test_a_language_models_heads_are_scored_by_each_detector_in_the_table_and_the_map():
    at = open_page("explorer", model="lm-en", src="the old man sees the red car")
    assert_clean(at)
    expected = detectors.scores(loaders.load_model("lm-en").model)
    table = stats_table(at)
    for kind, grid in expected.items():
        column = text(f"explorer.stat.detected_{kind}", "en")
        np.testing.assert_allclose(table[column].to_numpy(), grid.ravel(), rtol=1e-6)  # rows: layer, then head
    assert text("explorer.stats.detected", "en") in [c.value for c in at.caption]
    at.selectbox(key="explorer.stat").set_value("detected_induction").run()
    assert_clean(at)
    np.testing.assert_allclose(named_z(at, "explorer.stats"), expected["induction"], rtol=1e-6)


def test_the_translators_blocks_have_no_detector_columns():
    at = open_page("explorer", src="the small girl does not see the red car")
    assert_clean(at)
    assert not [c for c in stats_table(at).columns if "repeated random" in c]
    assert text("explorer.stats.detected", "en") not in [c.value for c in at.caption]


def test_the_corpus_view_of_a_language_models_head_says_what_the_detectors_found_for_it():
    at = open_page("explorer", model="lm-en", src="the old man", layer=2, head=1,
                   **{"explorer.kind": "decoder.self_attn", "explorer.qk": True})
    assert_clean(at)
    found = detectors.scores(loaders.load_model("lm-en").model)
    said = text("qk.detected", "en", layer=2, head=1, **{k: float(v[2, 1]) for k, v in found.items()})
    assert said in [c.value for c in at.caption]


def test_the_lessons_last_step_finds_the_induction_head_of_an_imported_gpt2(tmp_path, monkeypatch):
    """The operator opens a GPT-2 folder whose induction head is written by hand (tests/induction_gpt2.py); the
    lesson's step after training opens the explorer on its decoder's self-attention with the induction statistic
    mapped, and the map's brightest cell is that head."""
    import json

    from tests.induction_gpt2 import build
    from viz_app import cli, lesson
    from viz_app.loaders import models

    monkeypatch.setenv(cli.MODELS_SETTING, json.dumps([["gpt2-induction", str(build(tmp_path / "gpt2"))]]))
    models._load_cached.clear()
    at = open_page("training", lesson=len(lesson.STEPS) - 1)
    assert at.session_state["model"] == "gpt2-induction"
    at.button(key="lesson.next").click().run()
    assert_clean(at)
    assert at.title[0].value == text("page.explorer", "en") and at.session_state["lesson"] == len(lesson.STEPS)
    assert any(text("lesson.induction.goal", "en") in m.value for m in at.markdown)
    assert at.selectbox(key="explorer.stat").value == "detected_induction"
    induction = named_z(at, "explorer.stats")
    assert np.unravel_index(np.nanargmax(induction), induction.shape) == (1, 0) and induction[1, 0] > 0.9
