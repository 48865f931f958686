"""Direct logit attribution (core_model/logit_attribution.py): the heads' and the rest's parts add up to the model's
own logit through the final norm's frozen scale, on the shipped pre-norm models and an imported GPT-2."""
from __future__ import annotations

import numpy as np
import pytest

from core_model import checkpoints, run_with_trace
from core_model.logit_attribution import applies, attribute, parts
from tests.core.conftest import MODELS
from tests.tolerance import assert_activations_close

PROMPT = [2, 260, 262, 291, 502, 88, 369]


def shipped(name: str):
    return checkpoints.load(MODELS / name).model


def check_sums(model, ids, position: int) -> None:
    _, trace = run_with_trace(model, None, ids)
    logits = trace["logits"][0, position]
    for token in (int(logits.argmax()), int(logits.argmin()), 7):
        found = attribute(model, trace, position, token)
        assert found.logit == pytest.approx(float(logits[token]))
        assert found.total == pytest.approx(found.logit, rel=1e-4, abs=1e-4 * float(np.abs(logits).max()))
    pieces = parts(model, trace, position)  # a block's heads and bias are its recorded output
    for i in range(model.cfg.n_decoder_layers):
        block = sum(v for (kind, name, layer, _), v in pieces.items()
                    if kind in ("head", "bias") and name == "decoder.self_attn" and layer == i)
        assert_activations_close(block, trace[f"decoder.layers.{i}.self_attn.out"][0, position].astype(np.float64))


@pytest.mark.parametrize("name", ["lm-en", "lm-en-rope"])  # LayerNorm; RMSNorm
def test_every_part_of_a_shipped_decoders_stream_adds_up_to_its_logit(name):
    check_sums(shipped(name), PROMPT, position=4)


def test_an_imported_gpt2s_parts_add_up_to_its_logit(hub_folder):
    model = checkpoints.load(hub_folder("gpt2")).model
    check_sums(model, [5, 17, 40, 9, 61, 3, 22], position=6)


def test_the_heads_of_the_top_layer_carry_the_prediction_somewhere():
    model = shipped("lm-en")
    _, trace = run_with_trace(model, None, PROMPT)
    found = attribute(model, trace, 3, int(trace["logits"][0, 3].argmax()))
    heads = found.heads["decoder.self_attn"]
    assert heads.shape == (model.cfg.n_decoder_layers, model.cfg.n_heads) and np.abs(heads).max() > 0.1
    layers = model.cfg.n_decoder_layers
    assert list(found.rest) == [("embedding", "", -1), *[part for i in range(layers) for part in
                                (("bias", "decoder.self_attn", i), ("ffn", "", i))], ("norm", "", -1)]


def test_a_post_norm_model_is_refused_in_a_sentence():
    model = shipped("translate-en-fr")
    assert not applies(model)
    _, trace = run_with_trace(model, [5, 17, 40], [2, 30])
    with pytest.raises(ValueError, match="post-norm"):
        attribute(model, trace, 1, 30)
