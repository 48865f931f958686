"""views/encodings.py against core_model: each shipped model's position signal, one head from position alone, and
the head's real pattern. Every expected value comes from core_model (its functions, its modules, its trace)."""
import math

import numpy as np
import pytest
import torch

from core_model import bert, checkpoint
from core_model.positional import alibi_bias, rope_angles, rope_rotate, sinusoidal_table
from core_model.trace import run_with_trace
from tests.tolerance import assert_activations_close
from viz_app import loaders
from viz_app.views.encodings import ADDED, KINDS, alibi_bias as view_bias, encoding, rope_angles as view_angles, \
    rotate, softmax

SENTENCE = "the small girl does not see the red car"
# Attention weights lie in 0..1: a fixed absolute bound suits them (tests/tolerance.py); numpy in float64 against
# torch in float32 differ in the last bits of a float32, about 1e-7 here.
WEIGHT_ATOL = 1e-5


def loaded(kind):
    return checkpoint.load(loaders.model_folder(loaders.ENCODING_MODELS[kind]))


def encoded(kind, head=0, text=SENTENCE):
    return encoding(loaders.encoding_run(loaders.ENCODING_MODELS[kind], text), head)


def test_the_four_kinds_are_the_shipped_models_own():
    for kind in KINDS:
        assert loaded(kind).config.positional == kind


def test_softmax_rows_sum_to_one_and_the_causal_one_sees_no_later_key():
    scores = np.random.default_rng(0).normal(size=(5, 5)) * 4
    for causal in (False, True):
        w = softmax(scores, causal)
        np.testing.assert_allclose(w.sum(1), 1, atol=1e-6)
        assert np.all(w >= 0)
    assert np.all(np.triu(softmax(scores, True), 1) == 0)
    want = torch.softmax(torch.tensor(scores).masked_fill(~torch.ones(5, 5, dtype=torch.bool).tril(), -math.inf), -1)
    np.testing.assert_allclose(softmax(scores, True), want.numpy(), atol=1e-6)


@pytest.mark.parametrize("n, d_head, base", [(32, 32, 10000.0), (7, 8, 100.0)])
def test_rope_angles_and_rotation_are_core_models(n, d_head, base):
    angles = view_angles(n, d_head, base)
    np.testing.assert_allclose(angles, rope_angles(torch.arange(n), d_head, base).numpy(), rtol=1e-6, atol=1e-6)
    x = torch.randn(1, 2, n, d_head, generator=torch.Generator().manual_seed(1))  # [b, h, pos, d_head]
    want = rope_rotate(x, torch.arange(n), base)
    assert_activations_close(rotate(x.numpy(), angles), want)


def test_alibi_bias_of_each_head_is_core_models():
    slopes = loaders.encoding_run("lm-en", SENTENCE).slopes
    want = alibi_bias(len(slopes), torch.arange(9), torch.arange(9))[0].numpy()  # [h, q, k]
    for head, slope in enumerate(slopes):
        np.testing.assert_array_equal(view_bias(slope, 9), want[head])


def test_sinusoidal_signal_is_the_table_and_position_alone_is_layer_0_on_it():
    model = loaded("sinusoidal").model
    for head in range(model.cfg.n_heads):
        e = encoded("sinusoidal", head)
        n = len(e.labels)
        assert e.signal.shape == (n, model.cfg.d_model) and e.labels[0].startswith("0·")
        np.testing.assert_allclose(e.signal, sinusoidal_table(n, model.cfg.d_model, 10000.0).numpy(), atol=1e-6)
        with torch.no_grad():  # post-norm: the position table goes into W_Q and W_K as it is
            _, want = model.encoder.layers[0].self_attn(model.src_embed.pos.table[:n][None])
        np.testing.assert_allclose(e.alone, want[0, head].numpy(), atol=WEIGHT_ATOL)


def test_learned_signal_is_minilms_position_rows_and_position_alone_goes_through_its_layernorm():
    model = loaded("learned").model
    e = encoded("learned", 5)
    n = len(e.labels)
    assert e.labels[0] == "0·[CLS]" and e.labels[-1] == f"{n - 1}·[SEP]"
    np.testing.assert_array_equal(e.signal, model.src_embed.pos.weight[:n].detach().numpy())
    size = np.abs(e.signal)  # one dimension dwarfs the rest: the colour range covers 99 % of the values, not it
    assert e.peak == size.max() and e.bound < e.peak / 5
    assert np.mean(size <= e.bound) >= 0.989  # the 99th percentile is interpolated between two values
    emb = model.src_embed
    with torch.no_grad():
        x = emb.norm(emb.pos.weight[:n] + emb.token_type.weight[0])  # token vectors zero; BERT's embedding norm
        _, want = model.encoder.layers[0].self_attn(x[None])
    np.testing.assert_allclose(e.alone, want[0, 5].numpy(), atol=WEIGHT_ATOL)


def test_rope_angles_are_core_models_and_position_alone_depends_only_on_the_offset():
    cfg = loaded("rope").config
    e = encoded("rope", 2)
    n = len(e.labels)
    np.testing.assert_allclose(e.raw, rope_angles(torch.arange(n), cfg.d_head, cfg.positional_base).numpy(), atol=1e-6)
    np.testing.assert_allclose(np.cos(e.signal), np.cos(e.raw), atol=1e-5)  # drawn wrapped, the same rotation
    bound = 1e-5 * np.abs(e.scores).max()  # float32 scores of the same size; a Toeplitz matrix up to their last bits
    np.testing.assert_allclose(e.scores[1:, 1:], e.scores[:-1, :-1], atol=bound)
    assert np.ptp(np.diagonal(e.scores, -3)) <= bound and np.ptp(e.scores[:, 0]) > 100 * bound  # offsets differ
    np.testing.assert_allclose(e.alone.sum(1), 1, atol=1e-6)
    assert np.all(np.triu(e.alone, 1) == 0)


def test_ropes_plain_queries_and_keys_turned_by_core_model_are_the_traces():
    loaded_rope = loaded("rope")
    run = loaders.encoding_run("lm-en-rope", SENTENCE)
    ids = [loaded_rope.config.bos_id, *loaded_rope.tokenizers["tgt"].encode(SENTENCE)]
    _, trace = run_with_trace(loaded_rope.model, None, ids)
    attn, positions = trace.attn("decoder", 0), torch.arange(len(ids))
    for plain, turned in ((run.plain_q, attn.q), (run.plain_k, attn.k)):
        assert_activations_close(rope_rotate(torch.tensor(plain)[None], positions, 10000.0), turned)


def test_alibi_bias_is_core_models_and_position_alone_decays_with_distance():
    cfg = loaded("alibi").config
    for head in range(cfg.n_heads):
        e = encoded("alibi", head)
        n = len(e.labels)
        np.testing.assert_allclose(e.signal, alibi_bias(cfg.n_heads, torch.arange(n), torch.arange(n))[0, head].numpy(),
                                   atol=1e-6)
        np.testing.assert_allclose(e.alone.sum(1), 1, atol=1e-6)
        assert np.all(np.triu(e.alone, 1) == 0)  # the causal mask
        for i in range(1, n):  # the nearer the key, the more weight: strictly, as every slope is above 0
            assert np.all(np.diff(e.alone[i, :i + 1]) > 0), (head, i)


@pytest.mark.parametrize("kind", KINDS)
def test_the_real_pattern_is_the_models_layer_0_on_its_own_tokens(kind):
    model = loaded(kind)
    cfg = model.config
    ids = model.tokenizers["src" if cfg.has_encoder else "tgt"].encode(SENTENCE)
    if cfg.architecture == "decoder":
        _, trace = run_with_trace(model.model, None, [cfg.bos_id, *ids])
    elif cfg.architecture == "encoder":
        _, trace = run_with_trace(model.model, [cfg.bos_id, *ids, cfg.eos_id])  # [CLS] … [SEP]
    else:
        _, trace = run_with_trace(model.model, ids, [cfg.bos_id])
    stack = "encoder" if cfg.has_encoder else "decoder"
    e = encoded(kind, 1)
    np.testing.assert_array_equal(e.pattern, trace.attn(stack, 0).pattern[0, 1])
    assert (kind in ADDED) == (trace.embed("src" if cfg.has_encoder else "tgt").pos is not None)


def test_a_long_sentence_is_cut_to_the_first_tokens_of_each_tokenizer():
    text = " ".join(["the small girl sees the red car"] * 8)
    for kind in KINDS:
        e = encoded(kind, 0, text)
        assert len(e.labels) == loaders.ENCODING_TOKENS and e.alone.shape == e.pattern.shape == (32, 32)
    assert encoded("learned", 0, text).labels[-1] == "31·[SEP]"  # MiniLM's frame is kept inside the bound
    assert bert.MINILM == loaders.ENCODING_MODELS["learned"]
