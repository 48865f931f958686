"""Heads knocked out (core_model/interventions.py): decoding and scoring with a head removed, checked against the
same model with that head's columns of W_O zeroed by hand (W_O then reads nothing from the head, as when its z is 0)."""
from __future__ import annotations

import copy
import math

import numpy as np
import pytest
import torch

from core_model import decoding, run_with_trace
from core_model.interventions import blocks, knockout, logit_difference, output_log_prob, patching, sweep
from core_model.trace.edits import patch, zero

SRC = [5, 17, 40, 9, 61, 3]  # translator source ids
PROMPT = [260, 262, 291, 502]  # lm-en: "the old man"


def without_head(model, block: str, layer: int, head: int):
    """A copy of the model whose W_O reads nothing from one head."""
    stack, kind = block.split(".")
    other = copy.deepcopy(model)
    attn = getattr(getattr(other, stack).layers[layer], kind)
    with torch.no_grad():
        attn.out_proj.weight[:, head * attn.d_head:(head + 1) * attn.d_head] = 0
    return other


def test_the_blocks_of_each_kind_of_model(translator, lm):
    assert [b for b, _, _ in blocks(translator)] == ["encoder.self_attn", "decoder.self_attn", "decoder.cross_attn"]
    assert blocks(lm) == [("decoder.self_attn", lm.cfg.n_decoder_layers, lm.cfg.n_heads)]


@pytest.mark.parametrize("name, src", [("translator", SRC), ("lm", PROMPT)])
def test_an_outputs_log_probability_teacher_forced_is_decodings_own(name, src, request):
    model = request.getfixturevalue(name)
    out = decoding.greedy(model, src, max_len=12)
    score = output_log_prob(model, src, out.ids, out.finished_by == "eos")
    assert math.isclose(score, out.log_prob, rel_tol=1e-5, abs_tol=1e-5)


@pytest.mark.parametrize("block, layer, head", [("encoder.self_attn", 2, 1), ("decoder.cross_attn", 1, 3),
                                                ("decoder.self_attn", 0, 0)])
def test_decoding_with_a_head_knocked_out_is_decoding_the_model_without_it(translator, block, layer, head):
    edited = decoding.greedy(translator, SRC, max_len=12, edits=[knockout(block, layer, head)])
    by_hand = decoding.greedy(without_head(translator, block, layer, head), SRC, max_len=12)
    assert edited.ids == by_hand.ids
    assert math.isclose(edited.log_prob, by_hand.log_prob, rel_tol=1e-5, abs_tol=1e-5)
    assert decoding.greedy(translator, SRC, max_len=12).ids == decoding.greedy(translator, SRC, max_len=12).ids


def test_the_sweep_is_each_heads_drop_in_the_outputs_log_probability(translator):
    out = decoding.greedy(translator, SRC, max_len=12)
    ended = out.finished_by == "eos"
    seen = []
    drops, done = sweep(translator, SRC, out.ids, ended, progress=seen.append)
    assert done and seen[-1] == 1.0 and len(seen) == sum(layers * heads for _, layers, heads in blocks(translator))
    for block, layer, head in [("encoder.self_attn", 0, 2), ("decoder.cross_attn", 2, 0)]:
        expected = out.log_prob - output_log_prob(without_head(translator, block, layer, head), SRC, out.ids, ended)
        assert math.isclose(drops[block][layer, head], expected, rel_tol=1e-4, abs_tol=1e-4)
    assert np.isfinite(np.concatenate([d.ravel() for d in drops.values()])).all()
    assert max(d.max() for d in drops.values()) > 0.5  # some head matters to this output


def test_a_sweep_out_of_time_says_so_and_leaves_the_rest_untried(lm):
    out = decoding.greedy(lm, PROMPT, max_len=8)
    drops, done = sweep(lm, PROMPT, out.ids, out.finished_by == "eos", seconds=0)
    assert not done and np.isnan(drops["decoder.self_attn"]).all()


def test_decoding_refuses_an_edit_at_one_position(lm):
    with pytest.raises(ValueError, match="give it no position"):
        decoding.greedy(lm, PROMPT, edits=[zero("decoder.layers.0.self_attn.z", head=0, position=2)])


def test_each_head_patched_from_a_moves_bs_preference_by_what_that_head_carries(lm):
    """lm-en on two prompts of one length that it continues differently: each head's z copied from A into B alone.
    One cell checked against the edit made by hand, and the normalisation's ends: B itself is 0, A's whole last
    stream copied into B is 1."""
    a, b = [2, 260, 262, 291, 502], [2, 260, 262, 291, 601]  # the last prompt token differs
    logits_a, trace_a = run_with_trace(lm, None, a)
    logits_b, _ = run_with_trace(lm, None, b)
    token_a, token_b, at = int(logits_a[0, -1].argmax()), int(logits_b[0, -1].argmax()), len(a) - 1
    assert token_a != token_b
    moved, whole, done = patching(lm, (None, a), (None, b), at, token_a, token_b)
    grid = moved["decoder.self_attn"]
    assert done and grid.shape == (lm.cfg.n_decoder_layers, lm.cfg.n_heads) and np.isfinite(grid).all()
    ld_a, ld_b = (logit_difference(x, at, token_a, token_b) for x in (logits_a, logits_b))
    by_hand, _ = run_with_trace(lm, None, b, edits=[patch("decoder.layers.2.self_attn.z", trace_a, 1)])
    assert math.isclose(grid[2, 1], (logit_difference(by_hand, at, token_a, token_b) - ld_b) / (ld_a - ld_b),
                        rel_tol=1e-6)
    assert grid.max() > 0.05  # some head carries A's difference
    stream, _ = run_with_trace(lm, None, b, edits=[patch("decoder.layers.2.resid_post", trace_a)])
    assert math.isclose((logit_difference(stream, at, token_a, token_b) - ld_b) / (ld_a - ld_b), 1.0)
    assert set(whole) == {"decoder.self_attn", "decoder.ffn"} and all(np.isfinite(v).all() for v in whole.values())
    by_hand, _ = run_with_trace(lm, None, b, edits=[patch("decoder.layers.1.ffn.out", trace_a)])
    assert math.isclose(whole["decoder.ffn"][1], (logit_difference(by_hand, at, token_a, token_b) - ld_b) / (ld_a - ld_b),
                        rel_tol=1e-6)


def test_patching_within_a_deadline_says_what_it_did_not_try_and_needs_two_runs_that_differ(translator):
    src_a, src_b = [5, 17, 40, 9], [5, 17, 41, 9]
    moved, whole, done = patching(translator, (src_a, [2]), (src_b, [2]), 0, 30, 31, seconds=0)
    assert not done and all(np.isnan(g).all() for g in [*moved.values(), *whole.values()])
    assert set(whole) == {"encoder.self_attn", "decoder.self_attn", "decoder.cross_attn", "encoder.ffn", "decoder.ffn"}
    with pytest.raises(ValueError, match="same margin"):
        patching(translator, (src_a, [2]), (src_a, [2]), 0, 30, 31)
