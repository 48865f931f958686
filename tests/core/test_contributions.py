"""The contribution graph's shares (core_model/contributions.py): the parts it splits each state into are the state,
each part's L1 share is what the formula says on a case worked by hand, and every state's shares add up to 1."""
from __future__ import annotations

import numpy as np
import pytest

from core_model import checkpoints, run_with_trace
from core_model.contributions import MAX_TOKENS, applies, l1_shares, layer_shares, shares
from tests.core.conftest import MODELS
from tests.tolerance import assert_activations_close

PROMPT = [2, 260, 262, 291, 502, 88, 369, 287]


def test_l1_shares_on_a_case_worked_by_hand():
    parts = np.array([[3.0, 0.0], [1.0, 1.0], [-1.0, 0.0]])  # sum (3, 1): |sum|₁ = 4
    # without each: (0, 1) → 1, gain 3; (2, 0) → 2, gain 2; (4, 1) → 5, gain -1 → 0
    np.testing.assert_allclose(l1_shares(parts, parts.sum(0)), [3 / 5, 2 / 5, 0.0])


@pytest.mark.parametrize("name", ["lm-en", "lm-en-rope"])
def test_every_states_shares_add_up_to_one_and_its_parts_to_the_state(name):
    model = checkpoints.load(MODELS / name).model
    _, trace = run_with_trace(model, None, PROMPT)
    found = shares(model, trace)
    assert len(found) == model.cfg.n_decoder_layers
    for layer in found:
        total = layer.attention.sum(axis=(0, 2)) + layer.kept + layer.bias
        np.testing.assert_allclose(total, 1.0, rtol=1e-9)
        np.testing.assert_allclose(layer.ffn + layer.carried, 1.0, rtol=1e-9)
        assert (np.triu(layer.attention.sum(0), 1) == 0).all()  # no later token: the causal mask
    # the parts the shares are taken of add up to the state after attention (what the test rebuilds here)
    block = model.decoder.layers[1].self_attn
    view = trace.attn("decoder", 1)
    w_o = block.out_proj.weight.detach().double().numpy()
    d = block.d_head
    i = 5
    rebuilt = trace.layer_input("decoder", 1)[0, i].astype(np.float64) + block.out_proj.bias.detach().double().numpy()
    group = block.n_heads // block.n_kv_heads
    for h in range(block.n_heads):
        rebuilt += (view.pattern[0, h, i, :, None] * view.v[0, h // group]).sum(0) @ w_o[:, h * d:(h + 1) * d].T
    assert_activations_close(rebuilt, trace.layer("decoder", 1, "resid_mid")[0, i].astype(np.float64))


def test_a_head_that_only_reads_its_own_token_is_all_residual_like():
    model = checkpoints.load(MODELS / "lm-en").model
    _, trace = run_with_trace(model, None, PROMPT[:1])  # <s> alone: every head reads only itself
    layer = layer_shares(model, trace, 0)
    assert layer.attention.shape == (model.cfg.n_heads, 1, 1)
    assert layer.kept[0] + layer.attention[:, 0, 0].sum() + layer.bias[0] == pytest.approx(1.0)


def test_models_it_cannot_read_and_texts_too_long_are_refused_in_a_sentence():
    translator = checkpoints.load(MODELS / "translate-en-fr").model
    assert not applies(translator)
    _, trace = run_with_trace(translator, [5, 17], [2])
    with pytest.raises(ValueError, match="pre-norm decoder-only"):
        shares(translator, trace)
    lm = checkpoints.load(MODELS / "lm-en").model
    _, long = run_with_trace(lm, None, [2] + [260] * MAX_TOKENS)
    with pytest.raises(ValueError, match=f"at most {MAX_TOKENS} tokens"):
        shares(lm, long)
