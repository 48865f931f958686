"""The decoding page's "what each head writes": each head's share of the chosen token's logit, as
core_model.logit_attribution splits it (tests/core/test_logit_attribution.py checks that the shares add up to the
model's own logit); a post-norm model says why it has no such split."""
from __future__ import annotations

import numpy as np

from core_model import run_with_trace
from core_model.logit_attribution import attribute
from tests.app.conftest import assert_clean, named_z, open_page
from viz_app import loaders
from viz_app.i18n import text


def test_the_steps_token_logit_is_split_by_head_and_the_parts_add_up_on_screen():
    at = open_page("decoding", model="lm-en", src="the old man")
    assert_clean(at)
    step = loaders.decode("lm-en", "the old man").steps[0]
    model = loaders.load_model("lm-en").model
    logits, trace = run_with_trace(model, None, list(step.prefix))
    expected = attribute(model, trace, len(step.prefix) - 1, step.chosen)
    np.testing.assert_allclose(named_z(at, "writes.decoder.self_attn"), expected.heads["decoder.self_attn"],
                               rtol=1e-5, atol=1e-5)
    logit = float(logits[0, -1, step.chosen])
    caption = next(c.value for c in at.caption if c.value.startswith("Heads "))
    assert f"{logit:.3f}" in caption and caption.count(f"{expected.total:.3f}") >= 1
    table = next(d.value for d in at.dataframe if list(d.value.columns)[0] == text("writes.part", "en"))
    layers = [[f"decoder self W_O bias, layer {i}", f"FFN of layer {i}"] for i in range(model.cfg.n_decoder_layers)]
    assert list(table.iloc[:, 0]) == ["embedding", *sum(layers, []), "final norm's bias and the output bias"]
    np.testing.assert_allclose(table.iloc[:, 1], list(expected.rest.values()), rtol=1e-6)


def test_a_post_norm_translator_says_its_logit_has_no_split_by_head():
    at = open_page("decoding", src="the small girl does not see the red car")
    assert_clean(at)
    assert text("writes.post_norm", "en") in [i.value for i in at.info]
    assert not any(n.startswith("writes.") for n in [c.key for c in at.get("plotly_chart")] if n)
