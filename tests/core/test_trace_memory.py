"""Issue 14: what a trace keeps. Derived scores equal the forward's and torch's bit for bit, the names filter keeps
only what it names, lm-en reads 2,048 tokens, and cached decoding still equals a recompute."""
from __future__ import annotations

import ctypes
import ctypes.util
import dataclasses
import math
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from torch.overrides import TorchFunctionMode

from core_model import ModelConfig, Transformer, checkpoints, run_with_trace
from core_model.importers import bert
from core_model.nn.attention import ATTN_LEAVES
from core_model.decoding import greedy
from core_model.nn.masks import causal_mask, combine, padding_mask
from core_model.nn.positional import alibi_bias
from core_model.trace import NotRecorded, heap

from tests.tolerance import assert_activations_close
from .conftest import MODELS

PAD = 0
SRC = [[5, 6, 7, 8, 9, 10], [5, 6, 7, PAD, PAD, PAD]]  # the second sentence is padded
TGT = [[2, 11, 12, 13, 14], [2, 14, 15, PAD, PAD]]


def make_model(**overrides) -> Transformer:
    fields = dict(src_vocab_size=40, tgt_vocab_size=40, d_model=32, n_heads=4, d_ff=32, n_encoder_layers=2,
                  n_decoder_layers=2, dropout=0.0)
    torch.manual_seed(0)
    return Transformer(ModelConfig(**{**fields, **overrides})).eval()


def inputs(model):
    return (SRC if model.cfg.has_encoder else None), (TGT if model.cfg.has_decoder else None)


def torch_masks(model, pad_mask: bool) -> dict[str, torch.Tensor | None]:
    """The mask each kind of block receives, built as the model builds it: [b, 1, q or 1, k]."""
    src, tgt = (None if x is None else torch.tensor(x) for x in inputs(model))
    enc = padding_mask(src, PAD) if src is not None and pad_mask else None
    dec = None
    if tgt is not None:
        dec = causal_mask(tgt.shape[1])
        dec = combine(dec, padding_mask(tgt, PAD)) if pad_mask else dec
    return {"encoder.self_attn": enc, "decoder.self_attn": dec, "decoder.cross_attn": enc}


def torch_derived(trace, stack, i, kind, mask, scale, alibi):
    """scores_scaled and scores_masked computed in torch from the trace's scores, as the model did."""
    scores = torch.from_numpy(trace[f"{stack}.layers.{i}.{kind}.scores"].copy())
    d_head = trace[f"{stack}.layers.{i}.{kind}.q"].shape[-1]
    scaled = scores / math.sqrt(d_head) if scale else scores
    if alibi and kind == "self_attn":
        n = scores.shape[-1]
        scaled = scaled + alibi_bias(scores.shape[1], torch.arange(n), torch.arange(n))
    masked = scaled if mask is None or mask.all() else scaled.masked_fill(~mask, float("-inf"))
    return scaled.numpy(), masked.numpy()


CASES = {
    "sinusoidal, padded, causal, cross": dict(),
    "alibi decoder": dict(architecture="decoder", positional="alibi", norm_placement="pre"),
    "alibi encoder-decoder": dict(positional="alibi"),
    "rope": dict(positional="rope"),
    "learned encoder, d_head 6": dict(architecture="encoder", positional="learned", d_model=24),
    # grouped-query attention: the trace keeps 2 key heads for 4 query heads, and derives the scores repeating them
    "grouped-query rope decoder": dict(architecture="decoder", positional="rope", rope_layout="halves", n_kv_heads=2,
                                       norm_placement="pre", norm="rmsnorm", ffn="gated", activation="silu"),
    "multi-query encoder-decoder": dict(n_kv_heads=1),
}


@pytest.mark.parametrize("overrides", CASES.values(), ids=CASES.keys())
@pytest.mark.parametrize("scale", [True, False])
@pytest.mark.parametrize("pad_mask", [True, False])
def test_derived_scores_are_torchs_bit_for_bit(overrides, scale, pad_mask):
    model = make_model(**overrides)
    _, trace = run_with_trace(model, *inputs(model), scale=scale, pad_mask=pad_mask)
    masks = torch_masks(model, pad_mask)
    blocks = [(s, k) for s, k in (("encoder", "self_attn"), ("decoder", "self_attn"), ("decoder", "cross_attn"))
              if f"{s}.layers.0.{k}.scores" in trace]
    assert blocks
    for stack, kind in blocks:
        for i in range(trace.n_layers(stack)):
            want_scaled, want_masked = torch_derived(trace, stack, i, kind, masks[f"{stack}.{kind}"], scale,
                                                     model.cfg.positional == "alibi")
            view = trace.attn(stack, i, kind)
            assert np.array_equal(view.scores_scaled, want_scaled), (stack, i, kind)
            assert np.array_equal(view.scores_masked, want_masked), (stack, i, kind)  # -inf where blocked
            assert not view.scores_masked.flags.writeable


class Products(TorchFunctionMode):
    """A copy of every 4-D product the forward takes, as it is made: per attention block, Q Kᵀ and then pattern V."""

    def __init__(self):
        super().__init__()
        self.made: list[torch.Tensor] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func in (torch.matmul, torch.Tensor.matmul, torch.Tensor.__matmul__) and out.dim() == 4:  # `@` calls matmul
            self.made.append(out.detach().clone())  # before attention() scales it in place
        return out


def assert_scores_are_the_forwards(model, *args, **kwargs):
    """The scores a trace derives on reading are the very Q Kᵀ its forward computed: the same bits, also
    once the trace has been pickled (st.cache_data) and its q and k are plain contiguous arrays."""
    with Products() as products:
        _, trace = run_with_trace(model, *args, **kwargs)
    names = [n for n in trace.names if n.endswith(".scores")]
    assert names and len(products.made) == 2 * len(names)
    assert not any(n.endswith(".scores") for n in trace._recorder.values)  # derived, not stored
    again = pickle.loads(pickle.dumps(trace))
    for name, made in zip(names, products.made[0::2]):
        assert np.array_equal(trace[name], made.numpy()), name
        assert np.array_equal(again[name], made.numpy()), name


@pytest.mark.parametrize("overrides", CASES.values(), ids=CASES.keys())
def test_derived_scores_are_the_forwards_q_k_product_bit_for_bit(overrides):
    model = make_model(**overrides)
    assert_scores_are_the_forwards(model, *inputs(model))


def test_grouped_query_attention_keeps_its_key_value_heads_and_scores_every_query_head():
    model = make_model(**CASES["grouped-query rope decoder"])
    _, trace = run_with_trace(model, None, TGT)
    view, cfg = trace.attn("decoder", 0), model.cfg
    assert view.q.shape == (2, 4, 5, 8) and view.k.shape == view.v.shape == (2, 2, 5, 8)
    assert view.scores.shape == view.pattern.shape == (2, 4, 5, 5) and view.z.shape == (2, 4, 5, 8)
    assert [cfg.kv_head(h) for h in range(4)] == [0, 0, 1, 1] and list(cfg.query_heads(1)) == [2, 3]
    for h in range(4):  # each query head's scores are its q against the keys of the head it shares
        want = torch.from_numpy(view.q[:, h].copy()) @ torch.from_numpy(view.k[:, cfg.kv_head(h)].copy()).mT
        np.testing.assert_allclose(view.scores[:, h], want.numpy(), rtol=1e-6, atol=1e-6)


@pytest.fixture(scope="module")
def minilm():
    return checkpoints.load(bert.minilm_path())


@pytest.mark.parametrize("threads", [1, 2])
def test_minilms_derived_scores_are_its_forwards_at_any_thread_count(minilm, threads):
    ids = minilm.tokenizers["src"].encode(" ".join(["attention heads read every word of it"] * 16), add_bos=True,
                                          add_eos=True)
    assert 100 < len(ids) <= 512
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        assert_scores_are_the_forwards(minilm.model, ids)
    finally:
        torch.set_num_threads(before)


def test_derived_values_are_listed_but_not_stored():
    model = make_model()
    _, trace = run_with_trace(model, SRC, TGT)
    name = "encoder.layers.0.self_attn.scores_scaled"
    assert name in trace and name in trace.names and "decoder.layers.1.cross_attn.scores_masked" in trace
    derived_names = [n for n in trace.names if n.endswith((".scores", ".scores_scaled", ".scores_masked"))]
    kept = sum(trace[n].nbytes for n in trace.names if n not in derived_names)
    scores = sum(trace[n].nbytes for n in trace.names if n.endswith(".scores"))
    assert sum(trace[n].nbytes for n in derived_names) == 3 * scores  # as large as the scores, three times over
    assert trace.nbytes <= kept + 200  # + the masks, a few bytes each; nothing derived is counted
    # Read twice while held: the same array; a trace pickles (st.cache_data) and reads alike afterwards.
    assert trace[name] is trace[name]
    again = pickle.loads(pickle.dumps(trace))
    assert again.names == trace.names
    assert all(np.array_equal(again[n], trace[n]) for n in trace.names)


def test_the_ffn_and_everything_else_is_unchanged_by_derivation():
    # The whole forward output is the same bits as a call that records nothing.
    model = make_model(positional="alibi")
    with torch.no_grad():
        plain = model(torch.tensor(SRC), torch.tensor(TGT))
    traced, _ = run_with_trace(model, SRC, TGT)
    filtered, _ = run_with_trace(model, SRC, TGT, names="*.pattern")
    assert torch.equal(traced, plain) and torch.equal(filtered, plain)


# --- a block's output computed again from what it read --------------------------------------------------------

OUTPUTS = (".q", ".k", ".v", ".self_attn.z", ".cross_attn.z", ".self_attn.out", ".cross_attn.out", ".ffn.hidden",
           ".ffn.out", ".resid_post")
BLOCK_CASES = {**CASES,
               "parallel, shared norm": dict(architecture="decoder", positional="rope", block="parallel_shared",
                                             norm_placement="pre"),
               "parallel, gelu": dict(architecture="decoder", positional="learned", block="parallel",
                                      norm_placement="pre", activation="gelu"),
               "t5 relative": dict(positional="relative", scale_scores=False, norm="rmsnorm", norm_placement="pre",
                                   relative_buckets=8, relative_max_distance=16),
               "window": dict(architecture="decoder", positional="learned", window=2, window_layers=(0,))}


def kept_alone(model, leaf: str, **kwargs):
    """A trace keeping only the values named …`leaf`: what they derive from is not kept, so they are kept as the
    forward computed them."""
    return run_with_trace(model, *inputs(model), names=lambda name: name.endswith(leaf), **kwargs)[1]


@pytest.mark.parametrize("overrides", BLOCK_CASES.values(), ids=BLOCK_CASES.keys())
def test_block_outputs_are_derived_and_are_the_forwards_bit_for_bit(overrides):
    model = make_model(**overrides)
    _, full = run_with_trace(model, *inputs(model))
    names = [n for n in full.names if n.endswith(OUTPUTS)]
    recipes = full._recorder.recipes
    assert names and all(n in recipes and n not in full._recorder.values for n in names)  # none kept
    for leaf in OUTPUTS:
        alone = kept_alone(model, leaf)
        for name in [n for n in names if n.endswith(leaf)]:
            assert name in alone._recorder.values, name
            np.testing.assert_array_equal(full[name], alone[name], err_msg=name)


@pytest.mark.parametrize("forward_threads, read_threads", [(1, 2), (2, 1)])
def test_minilms_block_outputs_read_at_another_thread_count_are_its_forwards(minilm, forward_threads, read_threads):
    # a server reads a trace while another session's large run has torch on every core (viz_app.serving.large_run)
    ids = minilm.tokenizers["src"].encode(" ".join(["attention heads read every word of it"] * 16), add_bos=True,
                                          add_eos=True)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(forward_threads)
        _, full = run_with_trace(minilm.model, ids)
        kept = {leaf: kept_alone_of(minilm.model, ids, leaf) for leaf in OUTPUTS}
        torch.set_num_threads(read_threads)
        names = [n for n in full.names if n.endswith(OUTPUTS)]
        assert len(names) == 8 * minilm.config.n_encoder_layers and not any(n in full._recorder.values for n in names)
        for name in names:
            np.testing.assert_array_equal(full[name], kept[next(x for x in OUTPUTS if name.endswith(x))][name],
                                          err_msg=name)
    finally:
        torch.set_num_threads(before)


def kept_alone_of(model, ids, leaf: str):
    return run_with_trace(model, ids, names=lambda name: name.endswith(leaf))[1]


def test_a_layers_output_is_read_where_the_next_layer_keeps_it_and_keeps_what_it_was_when_that_is_edited():
    from core_model.trace import zero
    model = make_model(architecture="decoder", positional="rope", norm_placement="pre")
    _, full = run_with_trace(model, None, TGT)
    recipes = full._recorder.recipes
    assert recipes["decoder.layers.0.resid_post"] == ("alias", ("decoder.layers.1.resid_pre",))
    assert recipes["decoder.layers.1.resid_post"][0] == "sum"  # the last layer's: the final norm reads it, unkept
    edit = zero("decoder.layers.1.resid_pre", position=2)
    _, edited = run_with_trace(model, None, TGT, edits=[edit])
    assert edited._recorder.recipes["decoder.layers.0.resid_post"][0] == "sum"  # not the edited input's
    np.testing.assert_array_equal(edited["decoder.layers.0.resid_post"], full["decoder.layers.0.resid_post"])
    assert not edited["decoder.layers.1.resid_pre"][:, 2].any()


@pytest.mark.parametrize("half", [False, True])
def test_the_heads_output_under_an_edited_or_half_pattern_is_what_the_forward_mixed(half):
    from core_model.trace import zero
    model = make_model(architecture="decoder", positional="rope", norm_placement="pre")
    edits = [zero("decoder.layers.0.self_attn.pattern", head=1)]
    _, full = run_with_trace(model, None, TGT, edits=edits, half=half)
    alone = kept_alone(model, ".z", edits=edits, half=half)
    name = "decoder.layers.0.self_attn.z"
    assert (name in full._recorder.values) == half  # float16 weights are a copy: z is kept as the forward made it
    np.testing.assert_array_equal(full[name], alone[name])
    assert not full[name][0, 1].any()  # the knocked-out head mixed nothing


def test_block_outputs_by_blocks_of_queries_are_the_forwards(monkeypatch):
    from core_model.nn import masks
    monkeypatch.setattr(masks, "BLOCKS_FROM", 4)
    model = make_model(architecture="decoder", positional="rope", norm_placement="pre", n_kv_heads=2)
    ids = [[2] + list(range(5, 30))]
    _, full = run_with_trace(model, None, ids)
    recipe = full._recorder.recipes["decoder.layers.1.self_attn.z"]
    assert recipe[0] == "call" and recipe[2].keywords["blocks"]  # derived by the same blocks
    alone = run_with_trace(model, None, ids, names="*.z")[1]
    for i in (0, 1):
        np.testing.assert_array_equal(full[f"decoder.layers.{i}.self_attn.z"], alone[f"decoder.layers.{i}.self_attn.z"])


def test_an_on_demand_traces_layer_keeps_what_its_blocks_compute():
    # computed again to be read: a page reads it, so it holds every value rather than computing them once more
    model = make_model(architecture="decoder", positional="rope", norm_placement="pre")
    _, lazy = run_with_trace(model, None, TGT, on_demand=True)
    _, full = run_with_trace(model, None, TGT)
    layer = lazy._recorder.layer("decoder", 1)
    assert "decoder.layers.1.ffn.hidden" in layer.values and "decoder.layers.1.self_attn.z" in layer.values
    assert not [recipe for recipe in layer.recipes.values() if recipe[0] == "call"]
    np.testing.assert_array_equal(lazy["decoder.layers.1.ffn.hidden"], full["decoder.layers.1.ffn.hidden"])


def test_a_pickled_trace_holds_its_block_outputs_made_and_no_module():
    model = make_model()
    _, trace = run_with_trace(model, SRC, TGT)
    names = [n for n in trace.names if n.endswith(OUTPUTS)]
    expected = {n: trace[n].copy() for n in names}
    data = pickle.dumps(trace)
    assert b"Linear" not in data and b"FeedForward" not in data
    again = pickle.loads(data)
    for name in names:
        np.testing.assert_array_equal(again[name], expected[name])


# --- the names filter ------------------------------------------------------------------------------

def full_and(names):
    model = make_model()
    _, full = run_with_trace(model, SRC, TGT)
    _, part = run_with_trace(model, SRC, TGT, names=names)
    return full, part


@pytest.mark.parametrize("names, expected", [
    ("logits", ["logits", "probs"]),  # the probabilities are derived from the logits: they come with them
    ("probs", ["logits", "probs"]),  # and keep the logits they derive from
    (["encoder.layers.1.norm2", "logits"], ["encoder.layers.1.norm2", "logits", "probs"]),
    ("*.pattern", [f"{s}.layers.{i}.{k}.pattern" for s, k in (("encoder", "self_attn"), ("decoder", "self_attn"),
                                                                ("decoder", "cross_attn")) for i in (0, 1)]),
    (lambda name: name.startswith("src_embed."), ["src_embed.tok", "src_embed.scaled", "src_embed.pos", "src_embed.out"]),
    ("decoder.layers.[1].cross_attn.?", ["decoder.layers.1.cross_attn.q", "decoder.layers.1.cross_attn.k",
                                         "decoder.layers.1.cross_attn.v", "decoder.layers.1.cross_attn.z"]),
])
def test_filter_keeps_exactly_what_it_names_with_the_same_values(names, expected):
    full, part = full_and(names)
    assert sorted(part.names) == sorted(expected)
    assert part.names == [n for n in full.names if n in set(expected)]  # in the order the model reached them
    for name in part.names:
        assert np.array_equal(part[name], full[name]), name
    assert part.nbytes < full.nbytes


def test_derived_values_come_with_what_they_derive_from():
    block = "encoder.layers.0.self_attn."
    _, only_scores = full_and(block + "scores")
    assert only_scores.names == [block + leaf for leaf in ("q", "k", "scores", "scores_scaled", "scores_masked")]
    full, only_masked = full_and("*.self_attn.scores_masked")
    for leaf in ("q", "k", "scores"):  # kept (or derived) because what was asked derives from them
        assert f"decoder.layers.1.self_attn.{leaf}" in only_masked
    assert np.array_equal(only_masked["decoder.layers.1.self_attn.scores_masked"],
                          full["decoder.layers.1.self_attn.scores_masked"])
    assert "decoder.layers.1.self_attn.pattern" not in only_masked and "decoder.layers.1.self_attn.v" not in only_masked
    _, only_qk = full_and(["*.q", "*.k"])  # q and k alone: nothing is derived from them unasked
    assert not [n for n in only_qk.names if ".scores" in n]


def test_asking_a_filtered_trace_for_what_it_left_out_names_the_value_and_the_filter():
    _, part = full_and("*.pattern")
    with pytest.raises(KeyError, match=r"'encoder.layers.0.self_attn.scores' was not recorded.*names='\*.pattern'"):
        part["encoder.layers.0.self_attn.scores"]
    with pytest.raises(NotRecorded, match="'logits' was not recorded"):
        part["logits"]
    view = part.attn("encoder", 1)  # the view still gives what was kept ...
    assert view.pattern is part["encoder.layers.1.self_attn.pattern"]
    with pytest.raises(NotRecorded, match="self_attn.scores_scaled"):  # ... and names what was not
        view.scores_scaled
    with pytest.raises(NotRecorded, match="src_embed.tok"):
        part.embed("src")
    with pytest.raises(NotRecorded, match="encoder.layers.1.norm2"):
        part.layer_output("encoder", 1)
    assert part.n_layers("encoder") == 2
    with pytest.raises(KeyError) as missing:  # a name the model never had is a plain KeyError
        part["decoder.layers.7.self_attn.pattern"]
    assert not isinstance(missing.value, NotRecorded)
    _, by_callable = full_and(lambda name: name == "encoder.layers.0.norm1")
    with pytest.raises(NotRecorded, match="names=.*<lambda>"):
        by_callable["probs"]


def test_filter_must_be_names_patterns_or_a_callable():
    with pytest.raises(TypeError, match="names must be"):
        full_and([3])


# --- stop_after ------------------------------------------------------------------------------------

@pytest.mark.parametrize("last", ["encoder.layers.0.self_attn.pattern", "decoder.layers.1.cross_attn.pattern",
                                  "encoder.layers.1.self_attn.k"])
def test_stop_after_ends_the_forward_once_its_value_is_recorded(last):
    model = make_model()
    _, full = run_with_trace(model, SRC, TGT)
    out, part = run_with_trace(model, SRC, TGT, names=["*.pattern", "*.k"], stop_after=last)
    assert out is None  # nothing after `last` was computed, the output neither
    reached = full._recorder.order[:full._recorder.order.index(last) + 1]
    assert part._recorder.order == reached  # the model went exactly as far as `last`
    assert part.names == [n for n in reached if n.endswith((".pattern", ".k"))]
    for name in part.names:
        assert np.array_equal(part[name], full[name]), name
    with torch.no_grad():  # the model is left as it was: a plain call after the stop gives the same output
        assert torch.equal(model(torch.tensor(SRC), torch.tensor(TGT)), run_with_trace(model, SRC, TGT)[0])


def test_stop_after_a_value_derived_on_reading_stops_there_too():
    _, full = full_and(None)
    out, part = run_with_trace(make_model(), SRC, TGT, names="*.scores_masked",
                               stop_after="encoder.layers.0.self_attn.scores_masked")
    assert out is None and part._recorder.order[-1] == "encoder.layers.0.self_attn.scores_masked"
    assert np.array_equal(part["encoder.layers.0.self_attn.scores_masked"],
                          full["encoder.layers.0.self_attn.scores_masked"])


def test_stop_after_must_be_kept_and_reached():
    model = make_model()
    with pytest.raises(ValueError, match="would not keep"):
        run_with_trace(model, SRC, TGT, names="*.pattern", stop_after="encoder.layers.0.self_attn.k")
    with pytest.raises(ValueError, match="computed no value of that name"):  # a typo runs the whole model, then says so
        run_with_trace(model, SRC, TGT, stop_after="encoder.layers.9.self_attn.pattern")
    from core_model.trace.hook_points import active
    assert active() is None  # no recorder is left active after a stop or a failure


# --- lm-en at 2,048 tokens -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def lm_en():
    return checkpoints.load(MODELS / "lm-en")


def test_lm_en_reads_2048_tokens_and_its_patterns_are_distributions(lm_en):
    cfg = lm_en.config
    assert (cfg.max_len, cfg.positions) == (512, 2048)  # trained at 512; ALiBi reads four times as far
    ids = torch.randint(4, cfg.tgt_vocab_size, (1, 2048), generator=torch.Generator().manual_seed(0))
    ids[0, 0] = cfg.bos_id
    logits, trace = run_with_trace(lm_en.model, None, ids, names="*.pattern")
    assert logits.shape == (1, 2048, cfg.tgt_vocab_size) and torch.isfinite(logits).all()
    for i in range(cfg.n_decoder_layers):
        pattern = trace.attn("decoder", i).pattern  # [1, h, 2048, 2048]
        assert pattern.shape == (1, cfg.n_heads, 2048, 2048)
        np.testing.assert_allclose(pattern.sum(-1), 1.0, atol=1e-5)
        assert not np.triu(pattern[0, 0], 1).any()  # causal: nothing from the future
    with pytest.raises(ValueError, match="2049 tokens exceed the model's maximum length of 2048"):
        lm_en.model(None, torch.cat([ids, ids[:, :1]], 1))


def test_max_positions_extends_only_a_model_without_a_position_table():
    assert ModelConfig(positional="alibi", max_len=64, max_positions=256).positions == 256
    assert ModelConfig(max_len=64).positions == 64
    with pytest.raises(ValueError, match="table of max_len"):
        ModelConfig(positional="learned", max_len=64, max_positions=256)
    with pytest.raises(ValueError, match="at least max_len"):
        ModelConfig(positional="rope", max_len=64, max_positions=32)
    old = {k: v for k, v in ModelConfig().to_dict().items() if k != "max_positions"}  # a config.json from before
    assert ModelConfig.from_dict(old).max_positions == 0


# --- cached decoding over 256 steps ----------------------------------------------------------------

def test_cached_and_recomputed_decoding_agree_over_256_steps(lm_en):
    cfg = lm_en.config
    never = next(i for i in range(cfg.tgt_vocab_size - 1, 0, -1) if i not in (cfg.pad_id, cfg.unk_id, cfg.bos_id))
    model = Transformer(dataclasses.replace(cfg, eos_id=never, dropout=0.0))  # runs all 256 steps
    model.load_state_dict(lm_en.model.state_dict())
    model.eval()
    prompt = lm_en.tokenizers["tgt"].encode("the old man")
    cached = greedy(model, prompt, max_len=256, use_cache=True, n_top=1)
    full = greedy(model, prompt, max_len=256, use_cache=False, n_top=1)
    assert len(cached.ids) == 256 and cached.ids == full.ids
    last = cached.steps[-1].self_attn  # [layers, heads, prefix]: the cached step's rows are the recompute's
    assert_activations_close(last, full.steps[-1].self_attn, size=1.0)  # weights in 0..1: the shared bound
    assert last.shape == (cfg.n_decoder_layers, cfg.n_heads, len(prompt) + 1 + 255)


def test_every_attention_leaf_is_still_readable_from_a_view():
    model = make_model()
    _, trace = run_with_trace(model, SRC, TGT)
    view = trace.attn("decoder", 1, "cross_attn")
    for leaf in ATTN_LEAVES:
        assert getattr(view, leaf) is trace[f"decoder.layers.1.cross_attn.{leaf}"]
    _, decoder_only = run_with_trace(make_model(architecture="decoder"), None, TGT)
    with pytest.raises(KeyError):  # a block the model has not got
        decoder_only.attn("decoder", 0, "cross_attn")


# --- the heap's free pages handed back while a trace grows (trace/heap.py) ----------------------------

def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not heap.give_back(), reason="this C library has no malloc_trim")
def test_give_back_returns_the_pages_of_blocks_freed_between_kept_ones():
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.malloc.restype, libc.malloc.argtypes, libc.free.argtypes = ctypes.c_void_p, [ctypes.c_size_t], [ctypes.c_void_p]
    size, count = 64 * 1024, 2048  # 128 MiB in blocks under malloc's mmap threshold: they come from its heap
    blocks = [libc.malloc(size) for _ in range(count)]
    for b in blocks:
        ctypes.memset(b, 1, size)  # touched: resident
    for b in blocks[::2]:
        libc.free(b)  # a hole between two kept blocks: free to malloc, still resident
    before = rss_bytes()
    assert heap.give_back()
    dropped = before - rss_bytes()
    for b in blocks[1::2]:
        libc.free(b)
    assert dropped > 0.75 * size * count / 2, f"{dropped / 2**20:.1f} MiB handed back of 64 MiB freed"


def test_a_trace_gives_back_the_heap_each_time_its_kept_values_grow_by_the_step(lm_en, monkeypatch):
    calls = []
    monkeypatch.setattr(heap, "TRIM_EVERY", 2**20)
    monkeypatch.setattr(heap, "TRIM_FROM", 2 * 2**20)
    monkeypatch.setattr(heap, "give_back", lambda: calls.append(1) or True)
    ids = lm_en.tokenizers["tgt"].encode("the old man sees the small dog . " * 30)
    _, trace = run_with_trace(lm_en.model, None, ids)
    total, since, trims = 0, 0, 0
    for value in trace._recorder.values.values():  # in the order kept: from 2 MiB on, a trim each 1 MiB more kept
        total, since = total + value.nbytes, since + value.nbytes
        trims, since = (trims + 1, 0) if total >= 2 * 2**20 and since >= 2**20 else (trims, since)
    assert total > 4 * 2**20 and trims >= 2 and len(calls) == trims


FRESH_PROCESS = """
import ctypes, ctypes.util, sys
from core_model import ModelConfig, Transformer, run_with_trace

libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.malloc.restype, libc.malloc.argtypes, libc.free.argtypes = ctypes.c_void_p, [ctypes.c_size_t], [ctypes.c_void_p]

def mapped(mib):  # glibc marks a block it mapped on its own by bit 2 (IS_MMAPPED) of the size word before it
    block = libc.malloc(mib * 2**20)
    flag = bool(ctypes.c_size_t.from_address(block - ctypes.sizeof(ctypes.c_size_t)).value & 2)
    libc.free(block)
    return flag

if sys.argv[1] == "trace":
    model = Transformer(ModelConfig(architecture="decoder", tgt_vocab_size=50, d_model=16, n_heads=2,
                                    n_decoder_layers=1, d_ff=32, dropout=0.0)).eval()
    run_with_trace(model, None, [1, 2, 3])  # frees nothing over a few KiB: glibc's own threshold stays low
print(mapped(20), mapped(40))
"""


@pytest.mark.skipif(heap._libc() is None, reason="the C library is not glibc: no mallopt")
@pytest.mark.parametrize("env, trace, mapped", [
    ({}, "trace", ["False", "True"]),  # a trace sets the thresholds: 20 MiB from the heap, 40 MiB mapped
    (heap.SETTLED_ENV, "none", ["False", "True"]),  # the environment a process that never traces is given
    ({}, "none", ["True", "True"]),  # neither: glibc's threshold has not moved, both mapped
    ({"MALLOC_MMAP_THRESHOLD_": str(2**20)}, "trace", ["True", "True"]),  # an operator's own setting stands
])
def test_malloc_maps_only_arrays_over_32_mib_after_a_trace_unless_the_environment_says(env, trace, mapped):
    """In a fresh process (nothing large freed yet, so glibc's moving threshold is still low) that has traced a tiny
    model, a 20 MiB array comes from the heap, where a freed one is reused with its pages, and a 40 MiB one is mapped,
    and unmapped when freed (heap.steady)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
    out = subprocess.run([sys.executable, "-c", FRESH_PROCESS, trace], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).parents[2], env={**clean, **env}, check=True).stdout.split()
    assert out == mapped
