"""views/encodings.py against core_model: each shipped model's position signal, one head from position alone, and
the head's real pattern. Every expected value comes from core_model (its functions, its modules, its trace)."""
import math

import numpy as np
import pytest
import torch

from core_model import checkpoints
from core_model.importers import bert
from core_model.nn.positional import alibi_bias, rope_angles, rope_rotate, sinusoidal_table
from core_model.trace import run_with_trace
from tests.tolerance import assert_activations_close
from viz_app import loaders
from viz_app.views.encodings import ADDED, KINDS, encoding

SENTENCE = "the small girl does not see the red car"
# Attention weights lie in 0..1: a fixed absolute bound suits them (tests/tolerance.py); the same float32 sums taken
# in another order here and in the page's numbers (a module's attention, another matmul) differ about 1e-7.
WEIGHT_ATOL = 1e-5


def loaded(kind):
    return checkpoints.load(loaders.model_folder(loaders.ENCODING_MODELS[kind]))


def encoded(kind, head=0, text=SENTENCE):
    return encoding(loaders.encoding_run(loaders.ENCODING_MODELS[kind], text), head)


def causal_softmax(scores):
    """torch's softmax of [.., n, n] scores with every later key blocked, as a decoder's mask blocks it."""
    n = scores.shape[-1]
    return torch.softmax(scores.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), -math.inf), -1)


def test_the_four_kinds_are_the_shipped_models_own():
    for kind in KINDS:
        assert loaded(kind).config.positional == kind


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


def test_ropes_position_alone_is_the_traces_mean_query_and_key_turned_for_every_position():
    model = loaded("rope")
    cfg = model.config
    ids = [cfg.bos_id, *model.tokenizers["tgt"].encode(SENTENCE)]
    _, trace = run_with_trace(model.model, None, ids)
    attn, positions, n = trace.attn("decoder", 0), torch.arange(len(ids)), len(ids)
    # The trace keeps q and k turned; turning them back by -position gives what W_Q and W_K made of the sentence.
    plain = [rope_rotate(torch.tensor(x), -positions, cfg.positional_base) for x in (attn.q, attn.k)]  # [1, h, n, d]
    q, k = (rope_rotate(p.mean(2, keepdim=True).expand(-1, -1, n, -1), positions, cfg.positional_base)[0]
            for p in plain)  # [h, n, d_head] one mean query (key) at every position
    scores = q @ k.transpose(-2, -1) / math.sqrt(cfg.d_head)  # [h, n, n]
    alone = causal_softmax(scores)
    for head in range(cfg.n_heads):
        e = encoded("rope", head)
        assert_activations_close(e.scores, scores[head])  # float32 scores of any size: the shared scaled bound
        np.testing.assert_allclose(e.alone, alone[head].numpy(), atol=WEIGHT_ATOL)


def test_alibi_bias_is_core_models_and_position_alone_decays_with_distance():
    cfg = loaded("alibi").config
    for head in range(cfg.n_heads):
        e = encoded("alibi", head)
        n = len(e.labels)
        bias = alibi_bias(cfg.n_heads, torch.arange(n), torch.arange(n))[0, head]  # [n, n]
        np.testing.assert_allclose(e.signal, bias.numpy(), atol=1e-6)
        np.testing.assert_allclose(e.alone, causal_softmax(bias).numpy(), atol=WEIGHT_ATOL)
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
