"""Attribution (core_model/attribution.py): rollout and flow on hand-made layers, and the gradient methods (Captum)
against the shipped models, checked with autograd and the models' own outputs computed here."""
import functools

import numpy as np
import pytest
import torch

from core_model import decoding, load
from core_model.attribution import COMPLETE, flow, gradients, rollout, with_residual
from viz_app.loaders import DEFAULT_MODEL, model_folder
from viz_app.sidebar import EXAMPLES


@functools.lru_cache(maxsize=None)
def shipped(name: str):
    return load(model_folder(name))


# ----- rollout and flow ----------------------------------------------------------------------------------------------

# Two layers of one head over two tokens. With the residual, ½A + ½I:
#   layer 1: [[1, 0], [.25, .75]]     layer 2: [[.75, .25], [0, 1]]
# Rollout = layer 2 · layer 1 = [[.75 + .25·.25, .25·.75], [.25, .75]] = [[.8125, .1875], [.25, .75]].
# Flow into output 0: from input 0 along 0→0→0 (min 1, .75) and 0→1→0 (min .25, .25) = 1; from input 1 along
# 1→1→0 (min .75, .25) = .25.
HAND = [np.array([[[1.0, 0.0], [0.5, 0.5]]]), np.array([[[0.5, 0.5], [0.0, 1.0]]])]


def test_rollout_of_two_hand_made_layers_is_their_product_worked_by_hand():
    np.testing.assert_allclose(rollout(HAND), [[0.8125, 0.1875], [0.25, 0.75]], atol=1e-12)
    np.testing.assert_allclose(rollout(HAND, np.array([0.0, 1.0])), [[0.25, 0.75]], atol=1e-12)


def test_flow_of_two_hand_made_layers_is_worked_by_hand():
    np.testing.assert_allclose(flow(HAND, np.array([1.0, 0.0])), [1.0, 0.25], atol=1e-9)


def test_one_layer_flow_is_the_layers_own_weights():
    rng = np.random.default_rng(0)
    layer = rng.dirichlet(np.ones(5), size=(3, 5))  # 3 heads, rows summing to 1
    mixed = 0.5 * layer.mean(0) + 0.5 * np.eye(5)
    np.testing.assert_allclose(flow([layer], np.eye(5)[2]), mixed[2], atol=1e-9)  # one edge from each input


def test_rollout_rows_sum_to_one_and_equal_the_product_of_the_mixed_layers():
    rng = np.random.default_rng(1)
    layers = [rng.dirichlet(np.ones(6), size=(4, 6)) for _ in range(2)]  # 2 layers, 4 heads, 6 tokens
    mixed = [0.5 * a.mean(0) + 0.5 * np.eye(6) for a in layers]  # rows already sum to 1
    got = rollout(layers)
    np.testing.assert_allclose(got, mixed[1] @ mixed[0], atol=1e-12)
    np.testing.assert_allclose(got.sum(-1), 1.0, atol=1e-12)
    np.testing.assert_allclose(with_residual(layers[0]).sum(-1), 1.0, atol=1e-12)


# ----- gradient methods on the shipped models ------------------------------------------------------------------------

def log_prob(model, src, tgt, position: int, token: int) -> float:
    """The translator's own log-probability of `token` at `position`, computed here."""
    with torch.no_grad():
        logits = model(torch.tensor([src]), torch.tensor([tgt]), pad_mask=False)
    return float(torch.log_softmax(logits[0, position], -1)[token])


@pytest.fixture(scope="module", params=[EXAMPLES[DEFAULT_MODEL], "where is the train station ?"])
def translated(request):
    """The default sentence, and one whose path needed 1,024 points for some tokens when this was written."""
    loaded = shipped(DEFAULT_MODEL)
    src = loaded.tokenizers["src"].encode(request.param)
    return loaded, src, [loaded.config.bos_id, *decoding.greedy(loaded.model, src).ids]


def test_integrated_gradients_are_complete_on_the_shipped_translator(translated):
    """Σ attributions = f(input) − f(baseline) within 1 %, for every token of the model's own translation."""
    loaded, src, tgt = translated
    cfg = loaded.config
    baseline = [i if i in (cfg.bos_id, cfg.eos_id) else cfg.pad_id for i in src]
    assert baseline != src
    for position in range(len(tgt) - 1):
        token = tgt[position + 1]
        found = gradients(loaded.model, src, tgt, position, token)
        change = log_prob(loaded.model, src, tgt, position, token) - log_prob(loaded.model, baseline, tgt, position,
                                                                                token)
        assert abs(found.integrated.sum() - change) <= COMPLETE * abs(change), (position, found.steps)
        assert found.f_input == pytest.approx(log_prob(loaded.model, src, tgt, position, token), abs=1e-5)


def token_vectors_gradient(model, embedding, run, ids):
    """d output / d token vectors by autograd, with the vectors caught by a forward hook: gradient × input."""
    caught = {}

    def keep(module, inputs, output):
        output.retain_grad()
        caught["x"] = output
    handle = embedding.register_forward_hook(keep)
    try:
        run(ids).backward()
    finally:
        handle.remove()
    return (caught["x"].grad * caught["x"]).sum(-1)[0].detach().numpy()


def test_gradient_times_input_is_autograds_on_the_next_token_of_lm_en():
    loaded = shipped("lm-en")
    model, cfg = loaded.model, loaded.config
    tgt = [cfg.bos_id, *loaded.tokenizers["tgt"].encode(EXAMPLES["lm-en"])]
    with torch.no_grad():
        token = int(model(None, torch.tensor([tgt]))[0, -1].argmax())

    def run(ids):
        return torch.log_softmax(model(None, torch.tensor([ids]), pad_mask=False)[0, -1], -1)[token]
    found = gradients(model, (), tgt, len(tgt) - 1, token)
    want = token_vectors_gradient(model, model.tgt_embed.tok, run, tgt)
    np.testing.assert_allclose(found.times_input, want, rtol=1e-4, atol=1e-6 * np.abs(want).max())


def test_minilm_explains_the_length_of_its_cls_vector():
    loaded = shipped("all-MiniLM-L6-v2")
    model, tok = loaded.model, loaded.tokenizers["src"]
    src = [tok.bos_id, *tok.encode(EXAMPLES["all-MiniLM-L6-v2"]), tok.eos_id]
    with torch.no_grad():
        cls = model(torch.tensor([src]), None)[0, 0]
    direction = cls / cls.norm()
    found = gradients(model, src, ())
    assert found.f_input == pytest.approx(float(cls.norm()), rel=1e-5)
    want = token_vectors_gradient(model, model.src_embed.tok,
                                  lambda ids: model(torch.tensor([ids]), None, pad_mask=False)[0, 0] @ direction, src)
    np.testing.assert_allclose(found.times_input, want, rtol=1e-4, atol=1e-6 * np.abs(want).max())
    assert abs(found.integrated.sum() - (found.f_input - found.f_baseline)) <= COMPLETE * abs(found.f_input
                                                                                               - found.f_baseline)
