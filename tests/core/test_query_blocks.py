"""Attention by blocks of queries (nn/attention.attention_in_blocks, masks.query_blocks): under a causal mask a long
text's attention computes only the keys each block of rows may see. The same trace as the whole computation (names,
values within float32's last bits, every blocked weight exactly 0), a full trace and an on-demand one equal bit for
bit, and the whole computation wherever a step is edited or the mask lets a row see later keys."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from core_model import checkpoints, run_with_trace
from core_model.nn import attention as attention_module
from core_model.nn import masks
from core_model.trace import zero
from tests.tolerance import assert_activations_close

from .test_on_demand import LAYOUTS, both, ids_for


@pytest.fixture
def blocks_from_16(monkeypatch):
    """Blocks from 16 queries (1,024 in use), and a count of the calls made by blocks."""
    calls = []
    by_blocks = attention_module.attention_in_blocks
    monkeypatch.setattr(masks, "BLOCKS_FROM", 16)
    monkeypatch.setattr(attention_module, "attention_in_blocks", lambda *a, **k: calls.append(1) or by_blocks(*a, **k))
    return calls


def test_query_blocks_cover_the_rows_and_only_a_mask_that_hides_later_keys_has_them(monkeypatch):
    monkeypatch.setattr(masks, "BLOCKS_FROM", 16)
    blocks = masks.query_blocks(masks.causal_mask(20))
    assert blocks == [(0, 3, 3), (3, 6, 6), (6, 9, 9), (9, 12, 12), (12, 15, 15), (15, 18, 18), (18, 20, 20)]
    assert masks.query_blocks(masks.causal_mask(20, window=4)) == blocks  # a sliding window hides later keys too
    assert masks.query_blocks(masks.causal_mask(20, offset=5))[0] == (0, 3, 8)  # 5 cached keys before the rows
    padded = masks.combine(masks.causal_mask(20), masks.padding_mask(torch.arange(20)[None] % 7, 0))
    assert masks.query_blocks(padded) == blocks
    assert masks.query_blocks(torch.ones(1, 1, 20, 20, dtype=torch.bool)) is None  # every row sees every key
    assert masks.query_blocks(masks.padding_mask(torch.ones(1, 20, dtype=torch.long), 0)) is None  # [b, 1, 1, k]
    assert masks.query_blocks(masks.causal_mask(15)) is None  # under BLOCKS_FROM
    monkeypatch.setattr(masks, "BLOCKS_FROM", 1024)
    assert masks.query_blocks(masks.causal_mask(1024)) is not None
    assert masks.query_blocks(masks.causal_mask(1023)) is None


def test_blocks_give_the_whole_computations_weights_and_output():
    torch.manual_seed(0)
    q, k, v = torch.randn(2, 4, 40, 8), torch.randn(2, 4, 40, 8), torch.randn(2, 4, 40, 8)
    mask = masks.causal_mask(40)
    bias = torch.randn(1, 4, 40, 40)
    blocks = [(0, 10, 10), (10, 25, 25), (25, 40, 40)]
    with torch.no_grad():
        z, weights = attention_module.attention(q, k, v, mask, bias.clone())
        z_b, weights_b = attention_module.attention_in_blocks(q, k, v, mask, bias, True, blocks)
    assert_activations_close(z_b, z)
    np.testing.assert_allclose(weights_b.numpy(), weights.numpy(), rtol=1e-6, atol=1e-7)
    assert torch.equal(weights_b == 0, ~mask.expand_as(weights_b))  # every weight the mask blocks exactly 0


@pytest.mark.parametrize("family", LAYOUTS)
def test_a_trace_by_blocks_is_the_whole_computations_and_an_on_demand_one_equals_it(
        hub_folder, family, monkeypatch, blocks_from_16):
    loaded = checkpoints.load(hub_folder(family))
    src, tgt = ids_for(loaded.config, 40)  # an encoder-decoder's target: 21 tokens
    with monkeypatch.context() as whole_only:
        whole_only.setattr(masks, "BLOCKS_FROM", 10**9)
        _, whole = run_with_trace(loaded.model, src, tgt)
    assert blocks_from_16 == []
    full, lazy = both(loaded.model, src, tgt)
    # decoders' self-attention goes by blocks; encoders' and cross-attention stay whole
    assert bool(blocks_from_16) == loaded.config.has_decoder
    assert full.names == whole.names and lazy.names == full.names
    assert [n for n in full.names if not np.array_equal(full[n], lazy[n])] == []
    for name in full.names:
        got, want = full[name], whole[name]
        assert np.array_equal(np.isinf(got), np.isinf(want)), name  # the masked scores' -inf
        assert_activations_close(np.where(np.isinf(got), 0, got), np.where(np.isinf(want), 0, want), err_msg=name)
        if name.startswith("decoder") and name.endswith("self_attn.pattern"):
            assert np.all(np.triu(got[0, 0], 1) == 0), name


def test_an_edited_step_runs_the_whole_computation(hub_folder, blocks_from_16):
    loaded = checkpoints.load(hub_folder("llama-gqa"))
    _, tgt = ids_for(loaded.config, 30)
    _, plain = run_with_trace(loaded.model, None, tgt)
    ran = len(blocks_from_16)
    _, edited = run_with_trace(loaded.model, None, tgt, edits=[zero("decoder.layers.1.self_attn.pattern", head=0)])
    assert ran == loaded.config.n_decoder_layers and len(blocks_from_16) == ran + loaded.config.n_decoder_layers - 1
    assert np.all(edited["decoder.layers.1.self_attn.pattern"][0, 0] == 0)
    assert not np.allclose(edited["logits"], plain["logits"])
