"""The on-demand trace (core_model/trace/on_demand.py): what it keeps, and a layer computed when read equal to a full
trace's, bit for bit, for every value of every layer, in every family's layout (sequential and parallel blocks,
pre- and post-norm, grouped-query attention, sliding windows, ALiBi, RoPE, T5's relative bias, cross-attention)."""
from __future__ import annotations

import gc

import numpy as np
import pytest
import torch

from core_model import checkpoints
from core_model.trace import on_demand, run_with_trace
from tests.tolerance import assert_activations_close

# one folder per layout the network has (tests/families), each checked whole
LAYOUTS = ["gpt2", "llama-gqa", "pythia", "phi", "gpt-neo", "mistral", "opt-post", "bart", "t5-gated", "bert-base"]


def ids_for(cfg, n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    ids = rng.integers(5, min(cfg.src_vocab_size if cfg.has_encoder else cfg.tgt_vocab_size, 200), n).tolist()
    src = ids if cfg.has_encoder else None
    tgt = ([cfg.bos_id, *ids[: n // 2]] if cfg.has_encoder else [cfg.bos_id, *ids]) if cfg.has_decoder else None
    return src, tgt


def both(model, src, tgt, **on):
    _, full = run_with_trace(model, src, tgt)
    _, lazy = run_with_trace(model, src, tgt, on_demand=on_demand.OnDemand(**on) if on else True)
    return full, lazy


@pytest.mark.parametrize("family", LAYOUTS)
def test_every_value_of_every_layer_equals_a_full_trace_bit_for_bit(hub_folder, family):
    loaded = checkpoints.load(hub_folder(family))
    src, tgt = ids_for(loaded.config, 24)
    full, lazy = both(loaded.model, src, tgt)
    assert lazy.names == full.names  # the same names, in the same order
    unequal = [n for n in full.names if not np.array_equal(full[n], lazy[n])]
    assert unequal == []


def test_it_keeps_each_layers_input_and_pooled_weights_not_the_layers_values(hub_folder):
    loaded = checkpoints.load(hub_folder("llama-gqa"))
    src, tgt = ids_for(loaded.config, 40)
    full, lazy = both(loaded.model, src, tgt, side=8)
    kept = set(lazy._recorder.values)
    assert "decoder.layers.1.resid_pre" in kept and "decoder.layers.1.self_attn.pattern" not in kept
    assert not [n for n in kept if ".layers." in n and not n.endswith(".resid_pre")]
    assert lazy.nbytes < full.nbytes / 3
    pooled, block = lazy.pooled_pattern("decoder", 1)
    assert block == 6  # 41 positions into at most 8 cells a side
    weights = torch.from_numpy(full["decoder.layers.1.self_attn.pattern"].copy())
    expected = np.zeros(weights.shape[:2] + (7, 7), np.float32)
    for i in range(7):
        for j in range(7):  # the largest weight of each 6 × 6 square (the last ones cut short by the edge)
            expected[..., i, j] = weights[..., i * 6:(i + 1) * 6, j * 6:(j + 1) * 6].amax(dim=(-2, -1)).numpy()
    np.testing.assert_array_equal(pooled, expected)


def test_a_digest_sees_each_blocks_full_weights(hub_folder):
    loaded = checkpoints.load(hub_folder("bart"))
    src, tgt = ids_for(loaded.config, 20)
    full, lazy = both(loaded.model, src, tgt, digest=lambda name, w: (name, w.sum(-1)))
    for stack, kind in (("encoder", "self_attn"), ("decoder", "self_attn"), ("decoder", "cross_attn")):
        name, row_sums = lazy.digest(stack, 1, kind)
        assert name == f"{stack}.layers.1.{kind}.pattern"
        np.testing.assert_array_equal(row_sums, full[name].sum(-1))


def test_layer_output_reads_the_next_layers_input_and_the_logits_are_made_when_read(hub_folder):
    loaded = checkpoints.load(hub_folder("gpt2"))
    src, tgt = ids_for(loaded.config, 16)
    on_demand.LAYERS.clear()
    full, lazy = both(loaded.model, src, tgt)
    out, _ = run_with_trace(loaded.model, src, tgt, on_demand=True)
    assert out.shape == (1, 1, full["logits"].shape[-1])  # the call's output: the next token's logits only
    assert_activations_close(out[0, 0], full["logits"][0, -1])
    np.testing.assert_array_equal(lazy.layer_output("decoder", 0), full.layer_output("decoder", 0))
    np.testing.assert_array_equal(lazy["logits"], full["logits"])
    np.testing.assert_array_equal(lazy["probs"], full["probs"])
    assert on_demand.LAYERS.nbytes == 0  # none of that ran a layer again
    assert "logits" not in lazy._recorder.values


def test_the_layer_cache_keeps_within_its_bytes(hub_folder, monkeypatch):
    loaded = checkpoints.load(hub_folder("llama-gqa"))
    src, tgt = ids_for(loaded.config, 30)
    _, lazy = run_with_trace(loaded.model, src, tgt, on_demand=True)
    one = lazy._recorder.layer("decoder", 0).nbytes()
    cache = on_demand.LayerCache(max_bytes=int(one * 1.5))
    monkeypatch.setattr(on_demand, "LAYERS", cache)
    for layer in range(lazy.n_layers("decoder")):
        lazy.attn("decoder", layer).pattern
        assert cache.nbytes <= cache.max_bytes
    assert len(cache._items) == 1  # only the latest layer fits
    small = on_demand.LayerCache(max_bytes=one // 2)  # a layer alone over the bound is computed, never kept
    monkeypatch.setattr(on_demand, "LAYERS", small)
    assert lazy.attn("decoder", 0).z.shape[2] == len(tgt)
    assert small.nbytes == 0


def test_a_traces_layers_leave_the_cache_with_it(hub_folder, monkeypatch):
    cache = on_demand.LayerCache()
    monkeypatch.setattr(on_demand, "LAYERS", cache)
    loaded = checkpoints.load(hub_folder("llama-gqa"))
    src, tgt = ids_for(loaded.config, 30)
    (_, kept), (_, gone) = (run_with_trace(loaded.model, src, tgt, on_demand=True) for _ in range(2))
    read = [kept.attn("decoder", 0).pattern, gone.attn("decoder", 1).pattern]  # arrays read from each stay readable
    assert sorted(k[0] for k in cache._items) == sorted([kept._recorder.key, gone._recorder.key])
    del gone
    gc.collect()
    assert [k[0] for k in cache._items] == [kept._recorder.key] and read[1].shape[-1] == len(tgt)


def test_an_on_demand_trace_takes_no_names_filter_and_is_never_pickled(hub_folder):
    import pickle

    loaded = checkpoints.load(hub_folder("gpt2"))
    src, tgt = ids_for(loaded.config, 8)
    with pytest.raises(ValueError, match="no names filter"):
        run_with_trace(loaded.model, src, tgt, names="*.pattern", on_demand=True)
    _, lazy = run_with_trace(loaded.model, src, tgt, on_demand=True)
    with pytest.raises(TypeError, match="never pickled"):
        pickle.dumps(lazy)


@pytest.mark.parametrize("lazy", [False, True])
def test_half_keeps_the_weights_in_float16_and_reads_them_as_float32(hub_folder, lazy):
    loaded = checkpoints.load(hub_folder("bart"))
    src, tgt = ids_for(loaded.config, 40)
    _, full = run_with_trace(loaded.model, src, tgt, on_demand=lazy or None)
    _, half = run_with_trace(loaded.model, src, tgt, on_demand=lazy or None, half=True)
    assert half.half and not full.half
    for name in [n for n in full.names if n.endswith(".pattern")]:
        read = half[name]
        assert read.dtype == np.float32
        np.testing.assert_array_equal(read, full[name].astype(np.float16).astype(np.float32))  # rounded once, no more
        assert np.abs(read - full[name]).max() <= 2**-11  # weights in 0..1: within float16's half a step at 1
    unequal = [n for n in full.names if not n.endswith(".pattern") and not np.array_equal(full[n], half[n])]
    assert unequal == []  # only the weights are rounded: every other value is the same
    if lazy:
        pooled, block = half.pooled_pattern("encoder", 1)
        assert pooled.dtype == np.float16
        np.testing.assert_array_equal(pooled, full.pooled_pattern("encoder", 1)[0].astype(np.float16))
    else:
        patterns = sum(full[n].nbytes for n in full.names if n.endswith(".pattern"))
        heads = sum(full[n].nbytes for n in full.names if n.endswith(".z"))  # kept by half: not derived from float16
        assert full.nbytes - half.nbytes == patterns // 2 - heads  # the weights take half their bytes
