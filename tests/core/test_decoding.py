"""Decoding: greedy, beam search and sampling on small random models.

The step records are checked against the model itself: a cached run must equal a full
recompute, and every recorded row must equal the matching row of one traced forward pass over
the final sequence.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from core_model import ModelConfig, Transformer, run_with_trace
from core_model.decoding import (Decoded, beam_search, greedy, length_penalty_gnmt, sample,
                                 sampling_distribution)
from tests.tolerance import assert_activations_close

SRC = [5, 6, 7, 8, 9]
VOCAB = 40
# (architecture, positional, norm placement): both decoding architectures, additive and in-attention positions
SETUPS = [
    ("encoder-decoder", "sinusoidal", "post"),
    ("encoder-decoder", "rope", "pre"),
    ("encoder-decoder", "alibi", "post"),
    ("decoder", "rope", "pre"),
    ("decoder", "alibi", "post"),
    ("decoder", "learned", "pre"),
]
IDS = ["-".join(s) for s in SETUPS]


def make_model(architecture="encoder-decoder", positional="sinusoidal", placement="post", seed=0, **overrides):
    torch.manual_seed(seed)
    fields = dict(architecture=architecture, src_vocab_size=VOCAB, tgt_vocab_size=VOCAB, d_model=32,
                  n_heads=4, n_encoder_layers=2, n_decoder_layers=2, d_ff=64, dropout=0.0,
                  positional=positional, norm_placement=placement, max_len=32)
    fields.update(overrides)
    return Transformer(ModelConfig(**fields)).eval()


def suppress_eos(model, bias=-100.0):
    """Make eos (nearly) impossible, so runs last until max_len and are long enough to compare."""
    with torch.no_grad():
        model.generator.bias[model.cfg.eos_id] = bias
    return model


def full_forward(model, tgt):
    """One traced pass over the whole decoder input: (logits [t, vocab], Trace)."""
    src = SRC if model.cfg.has_encoder else None
    logits, trace = run_with_trace(model, src, list(tgt), pad_mask=False)
    return logits[0], trace


def sequence_log_prob(model, start, tokens) -> float:
    """Sum of log p(token | everything before it), from one full forward pass."""
    logits, _ = full_forward(model, tuple(start) + tuple(tokens[:-1]))
    log_probs = torch.log_softmax(logits.double(), -1)[len(start) - 1:]  # [len(tokens), vocab]
    return float(log_probs[torch.arange(len(tokens)), torch.tensor(tokens)].sum())


def start_of(model):
    return (model.cfg.bos_id,) if model.cfg.has_encoder else (model.cfg.bos_id, *SRC)


def assert_logits_close(model, got, want) -> None:
    """float32 logits, held to a bound that grows with their size (tests/tolerance.py).

    The size that sets the rounding is that of h·Wᵀ, so the output bias is left out of it:
    suppress_eos sets one bias to -100, and the relative part covers that logit's own rounding.
    """
    want = np.asarray(want)
    assert_activations_close(got, want, size=float(np.abs(want - model.generator.bias.detach().numpy()).max()))


def assert_steps_equal(model, a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert (x.index, x.prefix, x.chosen) == (y.index, y.prefix, y.chosen)
        assert_logits_close(model, x.logits, y.logits)
        np.testing.assert_allclose(x.self_attn, y.self_attn, atol=1e-5)
        if x.cross_attn is None:
            assert y.cross_attn is None
        else:
            np.testing.assert_allclose(x.cross_attn, y.cross_attn, atol=1e-5)
        assert [t for t, _ in x.top] == [t for t, _ in y.top]


def assert_steps_match_full_forward(model, decoded: Decoded):
    """Each step's logits and attention rows are the rows of one forward pass over the last prefix."""
    final = decoded.steps[-1].prefix
    logits, trace = full_forward(model, final)
    n = model.cfg.n_decoder_layers
    for step in decoded.steps:
        q = len(step.prefix) - 1  # the query position this step predicted from
        assert step.prefix == final[:q + 1]
        assert_logits_close(model, step.logits, logits[q].numpy())
        self_rows = np.stack([trace.attn("decoder", i).pattern[0, :, q, :q + 1] for i in range(n)])
        np.testing.assert_allclose(step.self_attn, self_rows, atol=1e-5)  # [layers, h, q + 1]
        if model.cfg.has_encoder:
            cross_rows = np.stack([trace.attn("decoder", i, "cross_attn").pattern[0, :, q] for i in range(n)])
            np.testing.assert_allclose(step.cross_attn, cross_rows, atol=1e-5)  # [layers, h, s]
        else:
            assert step.cross_attn is None


RUNS = {
    "greedy": lambda m, **kw: greedy(m, SRC, max_len=8, **kw),
    "sample": lambda m, **kw: sample(m, SRC, temperature=2.0, top_k=10, top_p=0.9, seed=3, max_len=8, **kw),
    "beam": lambda m, **kw: beam_search(m, SRC, width=3, max_len=8, **kw),
}


@pytest.mark.parametrize("setup", SETUPS, ids=IDS)
@pytest.mark.parametrize("method", list(RUNS))
def test_cached_steps_equal_full_recompute(setup, method):
    model = suppress_eos(make_model(*setup))
    cached, full = RUNS[method](model, use_cache=True), RUNS[method](model, use_cache=False)
    assert cached.ids == full.ids and cached.finished_by == full.finished_by
    assert_steps_equal(model, cached.steps, full.steps)
    if method == "beam":
        for a, b in zip(cached.beams, full.beams):
            assert [(x.tokens, x.parent) for x in a.beams] == [(y.tokens, y.parent) for y in b.beams]
            # log-probabilities summed in float64: their error does not grow with the sum
            np.testing.assert_allclose([x.score for x in a.beams], [y.score for y in b.beams], atol=1e-5)


@pytest.mark.parametrize("setup", SETUPS, ids=IDS)
@pytest.mark.parametrize("method", list(RUNS))
def test_step_records_equal_one_traced_forward(setup, method):
    model = suppress_eos(make_model(*setup))
    decoded = RUNS[method](model)
    assert len(decoded.steps) == 8
    assert_steps_match_full_forward(model, decoded)


@pytest.mark.parametrize("setup", SETUPS[:2] + SETUPS[3:4], ids=IDS[:2] + IDS[3:4])
def test_records_match_when_the_output_ends_with_eos(setup):
    # a mild eos boost makes eos win after a few steps, exercising the early stop on real rows
    model = make_model(*setup)
    with torch.no_grad():
        model.generator.bias[model.cfg.eos_id] = 1.5
    for decoded in (greedy(model, SRC, max_len=20), beam_search(model, SRC, width=3, max_len=20)):
        if decoded.finished_by == "eos":
            assert decoded.steps[-1].chosen == model.cfg.eos_id
        assert_steps_match_full_forward(model, decoded)


@pytest.mark.parametrize("setup", SETUPS, ids=IDS)
def test_greedy_equals_beam_width_one(setup):
    model = make_model(*setup)
    g, b = greedy(model, SRC, max_len=10), beam_search(model, SRC, width=1, max_len=10)
    assert g.ids == b.ids and g.finished_by == b.finished_by
    assert [s.chosen for s in g.steps] == [s.chosen for s in b.steps]
    assert g.log_prob == pytest.approx(b.log_prob, abs=1e-6)


@pytest.mark.parametrize("setup", SETUPS[:1] + SETUPS[3:4], ids=IDS[:1] + IDS[3:4])
@pytest.mark.parametrize("alpha", [0.0, 0.6, 1.0])
def test_beam_scores_are_real_log_probs_and_ranked(setup, alpha):
    model = make_model(*setup)
    with torch.no_grad():
        model.generator.bias[model.cfg.eos_id] = 1.5  # some beams finish, some run on
    decoded = beam_search(model, SRC, width=4, length_penalty=alpha, max_len=10)
    hyps = decoded.hypotheses
    assert 1 <= len(hyps) <= 4
    normalized = [h.normalized for h in hyps]
    assert normalized == sorted(normalized, reverse=True)
    for h in hyps:
        assert h.score == pytest.approx(sequence_log_prob(model, start_of(model), h.tokens), abs=1e-4)
        assert h.normalized == pytest.approx(h.score / length_penalty_gnmt(len(h.tokens), alpha))
        assert h.finished == (h.tokens[-1] == model.cfg.eos_id)
    best = hyps[0]
    assert decoded.ids == (best.tokens[:-1] if best.finished else best.tokens)
    assert [s.chosen for s in decoded.steps] == list(best.tokens)
    assert decoded.log_prob == best.score


def test_beam_tree_links_each_beam_to_its_parent():
    model = make_model()
    decoded = beam_search(model, SRC, width=3, max_len=8)
    previous = None
    for step in decoded.beams:
        live = [b for b in step.beams if not b.finished]
        assert 1 <= len(live) <= 3
        assert step.beams[:len(live)] == tuple(live)  # live beams first, in batch order
        for beam in step.beams:
            assert len(beam.tokens) == step.index + 1
            if previous is None:
                assert beam.parent == -1  # the root, bos alone, is not a recorded step
            else:
                parent = previous.beams[beam.parent]
                assert not parent.finished and beam.tokens[:-1] == parent.tokens
                lp = sequence_log_prob(model, start_of(model), beam.tokens)
                assert beam.score == pytest.approx(lp, abs=1e-4)
        previous = step


def test_greedy_log_prob_is_the_sequence_log_prob():
    model = make_model()
    decoded = greedy(model, SRC, max_len=8)
    tokens = [s.chosen for s in decoded.steps]
    assert decoded.log_prob == pytest.approx(sequence_log_prob(model, start_of(model), tokens), abs=1e-4)


def test_seeded_sampling_repeats_and_leaves_the_global_rng_alone():
    model = suppress_eos(make_model(), bias=-1e4)
    state = torch.get_rng_state()
    a = sample(model, SRC, temperature=5.0, seed=7, max_len=10)
    b = sample(model, SRC, temperature=5.0, seed=7, max_len=10)
    assert torch.equal(state, torch.get_rng_state())
    assert a.ids == b.ids and len(a.ids) == 10
    assert_steps_equal(model, a.steps, b.steps)
    # At temperature 5 a random model is close to uniform over 39 tokens: two seeds
    # agreeing on ten draws has a chance of about 39^-10.
    c = sample(model, SRC, temperature=5.0, seed=8, max_len=10)
    assert a.ids != c.ids


@pytest.mark.parametrize("setup", SETUPS[:1] + SETUPS[4:5], ids=IDS[:1] + IDS[4:5])
@pytest.mark.parametrize("filters", [dict(top_k=1), dict(top_p=1e-6), dict(top_k=1, temperature=3.0),
                                     dict(top_p=1e-6, temperature=0.2)])
def test_sampling_with_one_candidate_is_greedy(setup, filters):
    model = make_model(*setup)
    expected = greedy(model, SRC, max_len=10)
    for seed in (0, 1):
        decoded = sample(model, SRC, seed=seed, max_len=10, **filters)
        assert decoded.ids == expected.ids
        assert all(s.top[0][1] == pytest.approx(1.0) for s in decoded.steps)


@pytest.mark.parametrize("method", list(RUNS))
def test_top_candidates_are_sorted_probabilities(method):
    model = make_model()
    for step in RUNS[method](model).steps:
        probs = [p for _, p in step.top]
        assert len(step.top) == 5
        assert probs == sorted(probs, reverse=True)
        assert all(p >= 0 for p in probs) and sum(probs) <= 1 + 1e-6
        assert len({t for t, _ in step.top}) == 5


def test_top_follows_the_sampling_filters():
    model = make_model()
    for step in sample(model, SRC, top_k=3, max_len=6, n_top=5).steps:
        kept = [p for _, p in step.top if p > 0]
        assert len(kept) == 3 and sum(kept) == pytest.approx(1.0)
        assert step.chosen in [t for t, p in step.top if p > 0]


def test_sampling_distribution_keeps_the_nucleus():
    logits = torch.log(torch.tensor([0.5, 0.3, 0.2]))
    np.testing.assert_allclose(sampling_distribution(logits, top_p=0.6), [0.625, 0.375, 0.0], atol=1e-9)
    np.testing.assert_allclose(sampling_distribution(logits, top_p=0.5), [1.0, 0.0, 0.0], atol=1e-9)
    np.testing.assert_allclose(sampling_distribution(logits, top_k=2), [0.625, 0.375, 0.0], atol=1e-9)
    np.testing.assert_allclose(sampling_distribution(logits), [0.5, 0.3, 0.2], atol=1e-6)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-20, 20), min_size=2, max_size=30), st.floats(0.1, 5.0),
       st.integers(0, 30), st.floats(1e-3, 1.0))
def test_sampling_distribution_is_a_distribution(values, temperature, top_k, top_p):
    probs = sampling_distribution(torch.tensor(values), temperature, top_k, top_p)
    assert torch.all(probs >= 0) and float(probs.sum()) == pytest.approx(1.0)
    assert probs[int(torch.argmax(torch.tensor(values)))] > 0  # the most likely token always survives
    if 0 < top_k < len(values):  # tokens tied with the k-th largest stay in, so count them
        logits = torch.tensor(values).tolist()  # as float32 sees them: 0.0 and 1e-275 are a tie there
        kth = sorted(logits, reverse=True)[top_k - 1]
        assert int((probs > 0).sum()) <= sum(v >= kth for v in logits)


@pytest.mark.parametrize("setup", SETUPS[:1] + SETUPS[3:4], ids=IDS[:1] + IDS[3:4])
def test_stops_at_eos(setup):
    model = suppress_eos(make_model(*setup), bias=100.0)
    for decoded in (greedy(model, SRC), sample(model, SRC, seed=1), beam_search(model, SRC, width=3)):
        assert decoded.ids == () and decoded.finished_by == "eos"
        assert [s.chosen for s in decoded.steps] == [model.cfg.eos_id]


def test_respects_max_len_and_the_models_length():
    model = suppress_eos(make_model())
    for decoded in (greedy(model, SRC, max_len=5), sample(model, SRC, max_len=5), beam_search(model, SRC, max_len=5)):
        assert len(decoded.ids) == 5 and decoded.finished_by == "max_len"
    # a decoder-only model with max_len 12 and bos + 5 prompt tokens has room for 6 more
    small = suppress_eos(make_model("decoder", max_len=12))
    for decoded in (greedy(small, SRC, max_len=100), beam_search(small, SRC, width=2, max_len=100)):
        assert len(decoded.ids) == 6 and decoded.finished_by == "max_len"
        assert decoded.steps[0].prefix == (small.cfg.bos_id, *SRC)
        assert_steps_match_full_forward(small, decoded)
    with pytest.raises(ValueError, match="no room"):
        greedy(make_model("decoder", max_len=6), SRC)


def test_decoder_only_continues_an_empty_prompt():
    model = make_model("decoder")
    decoded = greedy(model, [], max_len=4)
    assert decoded.steps[0].prefix == (model.cfg.bos_id,)


def test_encoder_only_model_cannot_decode():
    model = make_model("encoder")
    for run in (greedy, sample, beam_search):
        with pytest.raises(ValueError, match="encoder-only model has no decoder"):
            run(model, SRC)


@pytest.mark.parametrize("call, message", [
    (lambda m: sample(m, SRC, temperature=0), "temperature"),
    (lambda m: sample(m, SRC, temperature=-1.0), "temperature"),
    (lambda m: sample(m, SRC, top_p=0.0), "top_p"),
    (lambda m: sample(m, SRC, top_p=1.5), "top_p"),
    (lambda m: sample(m, SRC, top_k=-1), "top_k"),
    (lambda m: beam_search(m, SRC, width=0), "width"),
    (lambda m: beam_search(m, SRC, length_penalty=-0.5), "length_penalty"),
    (lambda m: greedy(m, []), "source is empty"),
    (lambda m: greedy(m, SRC, max_len=0), "max_len"),
    (lambda m: greedy(m, [VOCAB]), "source id"),
    (lambda m: greedy(m.train(), SRC), "training mode"),
])
def test_bad_arguments_are_explained(call, message):
    with pytest.raises(ValueError, match=message):
        call(make_model())


@pytest.mark.parametrize("decode", [greedy, sample, beam_search])
def test_a_time_limit_ends_decoding_whatever_the_budget(decode):
    model = suppress_eos(make_model())  # never picks eos: only the budget or the clock can end it
    unbounded = decode(model, SRC, max_len=20)
    assert unbounded.finished_by == "max_len" and len(unbounded.steps) == 20
    out_of_time = decode(model, SRC, max_len=20, seconds=0.0)  # no step after the first may start
    assert out_of_time.finished_by == "time" and len(out_of_time.steps) == 1
    assert decode(model, SRC, max_len=20, seconds=600.0).ids == unbounded.ids  # a loose limit changes nothing
