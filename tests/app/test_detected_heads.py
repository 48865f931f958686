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
