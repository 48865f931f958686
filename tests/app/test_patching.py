"""The explorer's two-sentence comparison, patched: each head of the sidebar's sentence's run copied into the second
sentence's alone, as core_model.interventions.patching computes it (tests/core/test_interventions.py checks that
against an edit made by hand); two sentences of different lengths are told why they cannot be patched."""
from __future__ import annotations

import numpy as np

from core_model import interventions
from tests.app.conftest import assert_clean, chart_names, named_chart, named_z, open_page
from viz_app import loaders
from viz_app.i18n import text

MODEL, A, B = "translate-en-fr", "the small girl does not see the red car", "the small boy does not see the red car"
OPEN = {"explorer.compare": True, "explorer.compare.mode": "sentences", "explorer.compare.text": B}


def test_each_heads_grid_is_how_far_copying_it_from_a_moves_b_toward_as_first_differing_token():
    at = open_page("explorer", src=A, **OPEN)
    at.toggle(key="explorer.compare.patch").set_value(True).run()
    assert_clean(at)
    loaded = loaders.load_model(MODEL)
    src_a, src_b = (loaded.tokenizers["src"].encode(s) for s in (A, B))
    out_a, out_b = (loaders.decode(MODEL, s).ids for s in (A, B))
    assert out_a[0] != out_b[0]  # la / le: they part at the first token
    moved, whole, done = interventions.patching(loaded.model, (src_a, [loaded.config.bos_id]),
                                                (src_b, [loaded.config.bos_id]), 0, out_a[0], out_b[0])
    assert done
    for block, grid in moved.items():
        np.testing.assert_allclose(named_z(at, f"patch.{block}"), grid, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(named_z(at, "patch.whole"), np.stack(list(whole.values())), rtol=1e-5, atol=1e-5)
    assert named_chart(at, "patch.whole")["data"][0]["y"] == ["encoder self", "decoder self", "cross", "encoder FFN",
                                                             "decoder FFN"]
    tokenizer = loaded.tokenizers["tgt"]
    intro = text("patch.intro", "en", step=0, a=f"`{tokenizer.id_to_piece(out_a[0]).lstrip('▁')}`",
                 b=f"`{tokenizer.id_to_piece(out_b[0]).lstrip('▁')}`")
    assert intro in [m.value for m in at.markdown]


def test_two_sentences_of_different_lengths_are_told_why_they_cannot_be_patched():
    at = open_page("explorer", src=A, **{**OPEN, "explorer.compare.text": "the small boy sees the car"})
    at.toggle(key="explorer.compare.patch").set_value(True).run()
    assert_clean(at)
    loaded = loaders.load_model(MODEL)
    n_a, n_b = (len(loaded.tokenizers["src"].encode(s)) for s in (A, "the small boy sees the car"))
    assert text("error.patch_lengths", "en", a=n_a, b=n_b) in [i.value for i in at.info]
    assert not any(n.startswith("patch.") for n in chart_names(at))
