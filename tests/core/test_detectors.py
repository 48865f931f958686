"""Head detectors (core_model/detectors.py) on a model whose circuit is written by hand: layer 0's head 0 copies each
token's predecessor into the stream (a previous-token head), layer 1's head 0 looks for the key whose predecessor is
the query's own token (an induction head); the other heads do nothing. Then on lm-en, against the explorer's
previous-token statistic."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from core_model import ModelConfig, Transformer, checkpoints, run_with_trace
from core_model.detectors import repeated_tokens, scores, targets
from tests.core.conftest import MODELS

V, P, D, HEAD = 24, 32, 96, 48  # vocabulary, positions, width, each head's width
TOK, POS, PREV = 0, V, V + P  # where each kind of feature starts in the stream


def induction_model() -> Transformer:
    cfg = ModelConfig(architecture="decoder", tgt_vocab_size=V, d_model=D, n_heads=2, n_decoder_layers=2, d_ff=8,
                      dropout=0.0, norm="rmsnorm", norm_placement="pre", positional="learned", max_len=P,
                      scale_embedding=False)
    model = Transformer(cfg).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
        for name, p in model.named_parameters():
            if "norm" in name:
                p.fill_(1.0)
        model.tgt_embed.tok.weight[torch.arange(V), TOK + torch.arange(V)] = 1.0  # a token: its own feature
        model.tgt_embed.pos.weight[torch.arange(P), POS + torch.arange(P)] = 1.0  # a position: its own feature
        scale = 1 / np.sqrt(2 / D)  # RMSNorm's gain on a stream of two features
        first, second = model.decoder.layers[0].self_attn, model.decoder.layers[1].self_attn
        for p in range(P - 1):  # layer 0, head 0: query at position p + 1 meets key at position p
            first.q_proj.weight[p + 1, POS + p + 1] = 2.0
            first.k_proj.weight[p + 1, POS + p] = 2.0
        for t in range(V):  # ... and writes that key's token into the "previous token" features
            first.v_proj.weight[t, TOK + t] = 1.0
            first.out_proj.weight[PREV + t, t] = 1.0 / scale
            second.q_proj.weight[t, TOK + t] = 3.0  # layer 1, head 0: my token against each key's previous token
            second.k_proj.weight[t, PREV + t] = 3.0
    return model


def test_the_targets_of_each_kind_on_a_repeated_sequence():
    found = targets(3)  # <s> a b c a b c
    assert list(found["previous"]) == [-1, -1, 1, 2, 3, 4, 5]
    assert list(found["duplicate"]) == [-1, -1, -1, -1, 1, 2, 3]
    assert list(found["induction"]) == [-1, -1, -1, -1, 2, 3, 4]


def test_the_hand_built_induction_head_scores_near_one_and_the_others_near_zero():
    model = induction_model()
    found = scores(model, n=10, batch=4)
    induction, previous = found["induction"], found["previous"]
    assert induction[1, 0] > 0.95 and previous[0, 0] > 0.95
    assert np.delete(induction.ravel(), 2).max() < 0.15  # every head but layer 1's head 0
    assert np.delete(previous.ravel(), 0).max() < 0.15  # every head but layer 0's head 0
    assert found["duplicate"].max() < 0.15


def test_the_sequence_is_random_tokens_repeated_once_after_bos():
    ids = repeated_tokens(induction_model(), n=10, batch=3, seed=1)
    assert ids.shape == (3, 21) and (ids[:, 0] == 2).all() and torch.equal(ids[:, 1:11], ids[:, 11:])
    assert all(len(set(row[1:11].tolist())) == 10 and min(row[1:].tolist()) > 3 for row in ids)


def test_the_previous_token_score_is_the_explorers_statistic_on_the_detectors_own_sequence():
    """The detector's score and the explorer's "previous" column (views.head_stats.previous_token) measure the same
    weight: on lm-en's reading of [<s>, r_1 … r_n, r_1 … r_n] from r_2 on (r_1 follows <s>, which is no token), the
    two agree for every head."""
    from viz_app.views.head_stats import previous_token

    model = checkpoints.load(MODELS / "lm-en").model
    detected = scores(model, n=20, batch=4, seed=0)["previous"]
    _, trace = run_with_trace(model, None, repeated_tokens(model, n=20, batch=4, seed=0))
    explorer = np.stack([previous_token(trace.attn("decoder", layer).pattern[:, :, 1:, 1:]).mean(0)  # <s> left out
                         for layer in range(model.cfg.n_decoder_layers)])
    np.testing.assert_allclose(explorer, detected, rtol=1e-5)
    assert detected.shape == (3, 4) and 0 < detected.min() and detected.max() < 1


def test_an_encoder_decoder_is_refused():
    with pytest.raises(ValueError, match="decoder-only"):
        scores(checkpoints.load(MODELS / "translate-en-fr").model)


def test_the_induction_head_written_into_a_gpt2_folder_is_found_once_imported(tmp_path):
    """The same circuit in a GPT-2 folder made by transformers (tests/induction_gpt2.py), read by the GPT-2 importer:
    LayerNorm's centring and GPT-2's own layout in between, the detectors still name those two heads."""
    from tests.induction_gpt2 import build

    model = checkpoints.load(build(tmp_path / "gpt2-induction")).model
    found = scores(model)
    induction, previous = found["induction"], found["previous"]
    assert np.unravel_index(induction.argmax(), induction.shape) == (1, 0) and induction[1, 0] > 0.9
    assert np.unravel_index(previous.argmax(), previous.shape) == (0, 0) and previous[0, 0] > 0.9
    assert np.delete(induction.ravel(), 2).max() < 0.2
