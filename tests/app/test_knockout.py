"""The decoding page's knock-out section as a student drives it: the sweep's grids are each head's drop in log
P(output) as the core computes it (tests/core/test_interventions.py checks that against a model with the head's W_O
columns zeroed by hand); removing the head the sweep puts first changes the translation, and the page shows both."""
from __future__ import annotations

import numpy as np

from core_model import decoding, interventions
from streamlit.testing.v1 import AppTest

from tests.app.conftest import APP, assert_clean, chart_names, named_z, open_page
from viz_app import loaders
from viz_app.i18n import text

MODEL, SENTENCE = "translate-en-fr", "the small girl does not see the red car"
BLOCKS = ("encoder.self_attn", "decoder.self_attn", "decoder.cross_attn")


def source_ids(model: str, sentence: str) -> list[int]:
    loaded = loaders.load_model(model)
    return loaded.tokenizers["src" if loaded.config.has_encoder else "tgt"].encode(sentence)


def core_sweep(model: str, sentence: str) -> dict:
    loaded, ids = loaders.load_model(model), source_ids(model, sentence)
    out = loaders.decode(model, sentence)  # the page's greedy output (its length bound is the page's)
    drops, done = interventions.sweep(loaded.model, ids, out.ids, out.finished_by == "eos")
    assert done
    return drops


def badges(at) -> list[str]:
    """The two outputs' rows of badges: the original's, then the one without the heads."""
    return [m.value for m in at.markdown if m.value.startswith(":") and "-badge[" in m.value and "orange" not in m.value]


def test_the_sweep_draws_each_heads_drop_and_removing_the_first_changes_the_translation():
    at = open_page("decoding", src=SENTENCE)
    assert_clean(at)
    assert at.multiselect(key="knockout.heads").value == [] and not any(n.startswith("knockout") for n in chart_names(at))
    at.toggle(key="knockout.sweep").set_value(True).run()
    assert_clean(at)
    expected = core_sweep(MODEL, SENTENCE)
    for block in BLOCKS:
        np.testing.assert_allclose(named_z(at, f"knockout.sweep.{block}"), expected[block], rtol=1e-4, atol=1e-4)
    first = max(((b, *np.unravel_index(np.argmax(d), d.shape)) for b, d in expected.items()),
                key=lambda h: expected[h[0]][h[1], h[2]])
    at.button(key="knockout.strongest").click().run()
    assert_clean(at)
    assert at.multiselect(key="knockout.heads").value == [(first[0], int(first[1]), int(first[2]))]

    loaded = loaders.load_model(MODEL)
    original = decoding.greedy(loaded.model, source_ids(MODEL, SENTENCE), max_len=64)
    without = decoding.greedy(loaded.model, source_ids(MODEL, SENTENCE), max_len=64,
                              edits=[interventions.knockout(*first)])
    assert without.ids != original.ids  # the head the sweep puts first matters to this output
    shown, changed = badges(at)
    pieces = [loaders.load_model(MODEL).tokenizers["tgt"].id_to_piece(i).lstrip("▁") for i in without.ids]
    assert changed.count("-badge[") == len(without.ids) and all(p in changed for p in pieces)
    assert changed.count(":red-badge[") == sum(a != b for a, b in zip(original.ids, without.ids)) + max(
        len(without.ids) - len(original.ids), 0)
    assert shown.count(":gray-badge[") == len(original.ids) and ":red-badge[" not in shown
    before, after = [m for m in at.metric if m.label.startswith("log P")]
    assert abs(float(before.value) - original.log_prob) < 2e-3  # shown to 3 decimals
    dropped = interventions.output_log_prob(loaded.model, source_ids(MODEL, SENTENCE), original.ids, True,
                                            [interventions.knockout(*first)])
    assert abs(float(after.value) - dropped) < 2e-3 and float(after.value) < float(before.value)


def test_predict_then_reveal_asks_which_head_matters_before_the_sweep_is_drawn():
    at = open_page("decoding", src=SENTENCE, predict=True, **{"knockout.sweep": True})
    assert_clean(at)
    next_token = [p for p in at.pills if p.key.startswith("predict.pick.")]
    assert len(next_token) == 1  # the page asks for the next token first, and draws nothing below it
    next_token[0].set_value(0).run()
    assert_clean(at)
    assert text("predict.q.head_matters", "en") in [m.value for m in at.markdown]
    assert not any(n.startswith("knockout.sweep") for n in chart_names(at))  # the grids would answer it
    question = [p for p in at.pills if p.key.startswith("predict.pick.")][-1]
    expected = core_sweep(MODEL, SENTENCE)
    values = [expected[b][layer, head] for b in BLOCKS for layer, head in np.ndindex(expected[b].shape)]
    best = int(np.argmax(values))
    question.set_value(best).run()
    assert_clean(at)
    assert any("Right" in s.value for s in at.success)
    assert all(f"knockout.sweep.{b}" in chart_names(at) for b in BLOCKS)


def test_a_language_model_has_one_grid_and_a_choice_from_another_model_is_dropped():
    at = open_page("decoding", src=SENTENCE, **{"knockout.heads": [("decoder.cross_attn", 2, 3)]})
    assert_clean(at)
    assert at.multiselect(key="knockout.heads").value == [("decoder.cross_attn", 2, 3)]
    at.sidebar.selectbox(key="model").set_value("lm-en").run()
    assert_clean(at)
    assert at.multiselect(key="knockout.heads").value == []  # lm-en has no cross-attention
    at.toggle(key="knockout.sweep").set_value(True).run()
    assert_clean(at)
    src = at.session_state["src"]
    names = [n for n in chart_names(at) if n.startswith("knockout.sweep")]
    assert names == ["knockout.sweep.decoder.self_attn"]
    np.testing.assert_allclose(named_z(at, names[0]), core_sweep("lm-en", src)["decoder.self_attn"], rtol=1e-4,
                               atol=1e-4)


def test_the_explorers_head_is_taken_to_the_decoding_page_knocked_out():
    at = open_page("explorer", src=SENTENCE, layer=1, head=2, **{"explorer.kind": "decoder.cross_attn"})
    assert_clean(at)
    at.button(key="explorer.knock_out").click().run()
    assert_clean(at)
    assert at.title[0].value == text("page.decoding", "en")
    assert at.multiselect(key="knockout.heads").value == [("decoder.cross_attn", 1, 2)]
    loaded = loaders.load_model(MODEL)
    without = decoding.greedy(loaded.model, source_ids(MODEL, SENTENCE), max_len=64,
                              edits=[interventions.knockout("decoder.cross_attn", 1, 2)])
    pieces = [loaded.tokenizers["tgt"].id_to_piece(i).lstrip("▁") for i in without.ids]
    assert badges(at)[-1].count("-badge[") == len(pieces) and all(p in badges(at)[-1] for p in pieces)


def test_an_encoder_only_model_offers_no_knock_out():
    at = open_page("explorer", model="all-MiniLM-L6-v2")
    assert_clean(at)
    assert not [b for b in at.button if b.key == "explorer.knock_out"]


def test_a_copied_link_reopens_the_heads_removed_and_the_sweep():
    """The knock-out is part of the view a link keeps, as every setting is."""
    at = open_page("decoding", src=SENTENCE)
    at.multiselect(key="knockout.heads").set_value([("decoder.cross_attn", 1, 2), ("encoder.self_attn", 0, 3)]).run()
    at.toggle(key="knockout.sweep").set_value(True).run()
    assert_clean(at)
    link = dict(at.query_params)
    again = AppTest.from_file(APP, default_timeout=60)
    again.query_params.update({k: v[0] if isinstance(v, list) else v for k, v in link.items()})
    again.switch_page("app_pages/decoding.py")
    again.run()
    assert_clean(again)
    assert again.multiselect(key="knockout.heads").value == [("decoder.cross_attn", 1, 2), ("encoder.self_attn", 0, 3)]
    assert all(f"knockout.sweep.{b}" in chart_names(again) for b in BLOCKS)
