"""The trace: a golden list of names, the recorded values' arithmetic, and the model's properties
(causality, padding invariance, thread safety) seen through it."""
from __future__ import annotations

import math
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import torch

from core_model import ModelConfig, Transformer, run_with_trace
from core_model.nn.attention import ATTN_LEAVES, MultiHeadAttention
from core_model.nn.layers import EMBED_LEAVES, FFN_LEAVES, LAYER_LEAVES, STACK_LEAVES, Embeddings, FeedForward, Layer, Stack
from core_model.nn.model import MODEL_LEAVES
from core_model.nn.positional import sinusoidal_table
from core_model.trace import Trace, recording
from tests.tolerance import assert_activations_close

PAD = 0
SRC = [[5, 6, 7, 8, 9], [5, 6, 7, PAD, PAD]]  # the second sentence is padded
TGT = [[2, 11, 12, 13], [2, 14, PAD, PAD]]
D_MODEL, N_HEADS = 16, 2
D_HEAD = D_MODEL // N_HEADS


def make_model(**overrides) -> Transformer:
    """A tiny model in eval mode (its dropout of 0.1 must then do nothing)."""
    fields = dict(src_vocab_size=40, tgt_vocab_size=40, d_model=D_MODEL, n_heads=N_HEADS, d_ff=32,
                  n_encoder_layers=1, n_decoder_layers=1)
    return Transformer(ModelConfig(**{**fields, **overrides})).eval()


def trace_of(model, src=SRC, tgt=TGT, **options) -> Trace:
    if not model.cfg.has_encoder:
        src = None
    if not model.cfg.has_decoder:
        tgt = None
    return run_with_trace(model, src, tgt, **options)[1]


# --- names -----------------------------------------------------------------------------------

# From DESIGN.md's "Trace names", for one encoder layer and one decoder layer, sinusoidal
# positions, post-norm (so no final norms). Every layer first records what enters it (resid_pre).
# The decoder layer's third sublayer follows nn.TransformerDecoderLayer: cross-attention is
# wrapped by norm2, the FFN by norm3.
GOLDEN_NAMES = [
    "src_embed.tok", "src_embed.scaled", "src_embed.pos", "src_embed.out",
    "encoder.layers.0.resid_pre",
    "encoder.layers.0.self_attn.q", "encoder.layers.0.self_attn.k", "encoder.layers.0.self_attn.v",
    "encoder.layers.0.self_attn.scores", "encoder.layers.0.self_attn.scores_scaled",
    "encoder.layers.0.self_attn.scores_masked", "encoder.layers.0.self_attn.pattern",
    "encoder.layers.0.self_attn.z", "encoder.layers.0.self_attn.out",
    "encoder.layers.0.resid_mid", "encoder.layers.0.norm1",
    "encoder.layers.0.ffn.hidden", "encoder.layers.0.ffn.out",
    "encoder.layers.0.resid_post", "encoder.layers.0.norm2",
    "tgt_embed.tok", "tgt_embed.scaled", "tgt_embed.pos", "tgt_embed.out",
    "decoder.layers.0.resid_pre",
    "decoder.layers.0.self_attn.q", "decoder.layers.0.self_attn.k", "decoder.layers.0.self_attn.v",
    "decoder.layers.0.self_attn.scores", "decoder.layers.0.self_attn.scores_scaled",
    "decoder.layers.0.self_attn.scores_masked", "decoder.layers.0.self_attn.pattern",
    "decoder.layers.0.self_attn.z", "decoder.layers.0.self_attn.out",
    "decoder.layers.0.resid_mid", "decoder.layers.0.norm1",
    "decoder.layers.0.cross_attn.q", "decoder.layers.0.cross_attn.k", "decoder.layers.0.cross_attn.v",
    "decoder.layers.0.cross_attn.scores", "decoder.layers.0.cross_attn.scores_scaled",
    "decoder.layers.0.cross_attn.scores_masked", "decoder.layers.0.cross_attn.pattern",
    "decoder.layers.0.cross_attn.z", "decoder.layers.0.cross_attn.out",
    "decoder.layers.0.resid_cross", "decoder.layers.0.norm2",
    "decoder.layers.0.ffn.hidden", "decoder.layers.0.ffn.out",
    "decoder.layers.0.resid_post", "decoder.layers.0.norm3",
    "logits", "probs",
]


def test_golden_names_of_a_one_layer_encoder_decoder():
    assert trace_of(make_model()).names == GOLDEN_NAMES


def test_pre_norm_adds_final_norms_and_normalizes_before_each_sublayer():
    names = trace_of(make_model(norm_placement="pre")).names
    assert set(names) == set(GOLDEN_NAMES) | {"encoder.final_norm", "decoder.final_norm"}
    # The encoder's final norm closes the encoder; the decoder's feeds the output layer.
    assert names[names.index("encoder.final_norm") + 1] == "tgt_embed.tok"
    assert names[-3:] == ["decoder.final_norm", "logits", "probs"]
    # Pre-norm: norm1 is computed before the attention it feeds, the residual sum after.
    layer = "encoder.layers.0."
    order = [layer + leaf for leaf in ("resid_pre", "norm1", "self_attn.q", "self_attn.out", "resid_mid",
                                       "norm2", "ffn.hidden", "ffn.out", "resid_post")]
    assert [n for n in names if n in order] == order


@pytest.mark.parametrize("positional", ["rope", "alibi", "none"])
def test_positions_inside_attention_record_no_position_vector(positional):
    trace = trace_of(make_model(positional=positional))
    assert not [n for n in trace.names if n.endswith("_embed.pos")]
    assert trace.embed("src").pos is None and trace.embed("tgt").pos is None
    # Without a position vector the sum is just the scaled token vector.
    np.testing.assert_array_equal(trace.embed("src").out, trace.embed("src").scaled)


def test_decoder_only_model_records_no_encoder_and_no_cross_attention():
    names = trace_of(make_model(architecture="decoder")).names
    assert names[:5] == ["tgt_embed.tok", "tgt_embed.scaled", "tgt_embed.pos", "tgt_embed.out",
                         "decoder.layers.0.resid_pre"]
    assert not [n for n in names if n.startswith(("src_embed", "encoder")) or "cross_attn" in n]
    assert names[-6:] == ["decoder.layers.0.ffn.hidden", "decoder.layers.0.ffn.out",
                          "decoder.layers.0.resid_post", "decoder.layers.0.norm2", "logits", "probs"]


def test_recorded_shapes_follow_the_design():
    trace = trace_of(make_model())
    b, s, t, vocab = 2, 5, 4, 40
    assert trace["encoder.layers.0.self_attn.pattern"].shape == (b, N_HEADS, s, s)  # [b, h, q, k]
    assert trace["decoder.layers.0.self_attn.scores"].shape == (b, N_HEADS, t, t)
    assert trace["decoder.layers.0.cross_attn.pattern"].shape == (b, N_HEADS, t, s)
    assert trace["decoder.layers.0.cross_attn.k"].shape == (b, N_HEADS, s, D_HEAD)  # [b, h, pos, d_head]
    assert trace["decoder.layers.0.cross_attn.z"].shape == (b, N_HEADS, t, D_HEAD)
    assert trace["encoder.layers.0.norm2"].shape == (b, s, D_MODEL)  # [b, pos, d_model]
    assert trace["decoder.layers.0.resid_pre"].shape == (b, t, D_MODEL)
    assert trace["encoder.layers.0.ffn.hidden"].shape == (b, s, 32)
    assert trace["src_embed.pos"].shape == (1, s, D_MODEL)  # shared by the batch
    assert trace["logits"].shape == trace["probs"].shape == (b, t, vocab)
    assert all(trace[n].dtype == np.float32 for n in trace.names)


# Each recording module declares its leaves beside it; every configuration between them records
# each declared leaf somewhere, and nothing undeclared.
LEAVES_OF = {Embeddings: EMBED_LEAVES, Layer: LAYER_LEAVES, MultiHeadAttention: ATTN_LEAVES,
             FeedForward: FFN_LEAVES, Stack: STACK_LEAVES, Transformer: MODEL_LEAVES}
CONFIGS = [dict(), dict(norm_placement="pre"), dict(architecture="decoder", positional="rope"),
           dict(architecture="encoder", type_vocab_size=2, embed_norm=True, positional="learned"),
           dict(norm_placement="pre", positional="relative", scale_scores=False)]


def test_every_recorded_name_is_a_leaf_its_module_declares():
    seen = set()
    for overrides in CONFIGS:
        model = make_model(**overrides)
        for name in trace_of(model).names:
            path, _, leaf = name.rpartition(".")
            module = model.get_submodule(path)
            assert module.LEAVES is LEAVES_OF[type(module)]
            assert leaf in module.LEAVES, f"{name}: {leaf!r} is not among {type(module).__name__}.LEAVES"
            seen.add((type(module), leaf))
    declared = {(cls, leaf) for cls, leaves in LEAVES_OF.items() for leaf in leaves}
    assert declared == seen, f"declared but never recorded: {sorted((c.__name__, l) for c, l in declared - seen)}"


@pytest.mark.parametrize("placement", ["post", "pre"])
def test_what_enters_a_layer_is_the_embedding_or_the_previous_layers_output(placement):
    trace = trace_of(make_model(n_encoder_layers=3, n_decoder_layers=3, norm_placement=placement))
    for stack, side in (("encoder", "src"), ("decoder", "tgt")):
        for i in range(3):
            before = trace.embed(side).out if i == 0 else trace.layer_output(stack, i - 1)
            np.testing.assert_array_equal(trace.layer(stack, i, "resid_pre"), before)  # exactly: the same tensor
            assert trace.layer_input(stack, i) is trace[f"{stack}.layers.{i}.resid_pre"]
            assert trace.layer_input(stack, i).shape == (2, len(SRC[0] if side == "src" else TGT[0]), D_MODEL)


def test_recording_the_same_name_twice_is_refused():
    # Two calls in one trace would silently overwrite values; a golden list relies on one each.
    model = make_model(architecture="encoder")
    with torch.no_grad(), recording(), pytest.raises(RuntimeError, match="src_embed.tok was recorded twice"):
        model(torch.tensor(SRC))
        model(torch.tensor(SRC))


# --- the arithmetic of every attention block ---------------------------------------------------

BLOCKS = [("encoder", "self_attn"), ("decoder", "self_attn"), ("decoder", "cross_attn")]


def expected_mask(stack: str, kind: str) -> np.ndarray:
    """Which keys each query may see in the SRC/TGT batch: [b, 1, q, k] booleans."""
    src, tgt = np.array(SRC) != PAD, np.array(TGT) != PAD
    if kind == "cross_attn":
        return src[:, None, None, :].repeat(tgt.shape[1], axis=2)
    if stack == "encoder":
        return src[:, None, None, :].repeat(src.shape[1], axis=2)
    causal = np.tril(np.ones((tgt.shape[1],) * 2, dtype=bool))
    return causal[None, None] & tgt[:, None, None, :]


@pytest.mark.parametrize("stack, kind", BLOCKS)
def test_pattern_is_the_softmax_of_the_masked_scores(stack, kind):
    view = trace_of(make_model()).attn(stack, 0, kind)
    allowed = np.broadcast_to(expected_mask(stack, kind), view.scores.shape)
    # Blocked cells are -inf before softmax and exactly 0 after; the rest are the scaled scores.
    assert np.all(np.isneginf(view.scores_masked) == ~allowed)
    np.testing.assert_array_equal(view.scores_masked[allowed], view.scores_scaled[allowed])
    assert np.all(view.pattern[~allowed] == 0.0)
    np.testing.assert_allclose(view.pattern.sum(-1), 1.0, atol=1e-6)
    scores = view.scores_masked.astype(np.float64)
    softmax = np.exp(scores - scores.max(-1, keepdims=True))
    np.testing.assert_allclose(view.pattern, softmax / softmax.sum(-1, keepdims=True), atol=1e-6)


@pytest.mark.parametrize("stack, kind", BLOCKS)
def test_scores_are_divided_by_root_d_head_unless_switched_off(stack, kind):
    model = make_model()
    scaled = trace_of(model).attn(stack, 0, kind)
    np.testing.assert_allclose(scaled.scores_scaled, scaled.scores / math.sqrt(D_HEAD), rtol=1e-6)
    unscaled = trace_of(model, scale=False).attn(stack, 0, kind)
    np.testing.assert_array_equal(unscaled.scores_scaled, unscaled.scores)
    # Layer 0 of the encoder sees the same inputs either way, so its raw scores agree.
    if stack == "encoder":
        np.testing.assert_array_equal(unscaled.scores, scaled.scores)


def test_unscaled_trace_leaves_the_model_as_it_was():
    model = make_model()
    before, _ = run_with_trace(model, SRC, TGT)
    unscaled, _ = run_with_trace(model, SRC, TGT, scale=False)
    after, _ = run_with_trace(model, SRC, TGT)
    assert not torch.allclose(unscaled, before, atol=1e-4)
    assert torch.equal(after, before)


@pytest.mark.parametrize("stack, kind", BLOCKS)
def test_heads_outputs_are_pattern_times_values_then_w_o(stack, kind):
    model = make_model()
    view = trace_of(model).attn(stack, 0, kind)
    assert_activations_close(view.z, view.pattern @ view.v)
    out_proj = getattr(getattr(model, stack).layers[0], kind).out_proj
    w, b = out_proj.weight.detach().numpy(), out_proj.bias.detach().numpy()
    assert_activations_close(view.out, view.concat @ w.T + b)


def split_heads(x: np.ndarray) -> np.ndarray:
    b, n, _ = x.shape  # [b, n, d_model]
    return x.reshape(b, n, N_HEADS, D_HEAD).transpose(0, 2, 1, 3)  # [b, h, n, d_head]


def test_queries_keys_values_are_the_projected_layer_input():
    model = make_model()
    trace = trace_of(model)
    view, x = trace.attn("encoder", 0), trace.embed("src").out  # post-norm: layer 0 reads the embedding
    attn = model.encoder.layers[0].self_attn
    for leaf, proj in (("q", attn.q_proj), ("k", attn.k_proj), ("v", attn.v_proj)):
        expected = split_heads(x @ proj.weight.detach().numpy().T + proj.bias.detach().numpy())
        assert_activations_close(getattr(view, leaf), expected)


def test_probs_are_the_softmax_of_the_logits():
    model = make_model()
    logits, trace = run_with_trace(model, SRC, TGT)
    np.testing.assert_array_equal(trace["logits"], logits.numpy())
    np.testing.assert_allclose(trace["probs"], torch.softmax(logits, -1).numpy(), atol=1e-7)


# --- tracing changes nothing ---------------------------------------------------------------------

@pytest.mark.parametrize("architecture", ["encoder-decoder", "encoder", "decoder"])
def test_traced_output_is_bit_identical_to_an_untraced_call(architecture):
    model = make_model(architecture=architecture, n_encoder_layers=2, n_decoder_layers=2)
    src = torch.tensor(SRC) if model.cfg.has_encoder else None
    tgt = torch.tensor(TGT) if model.cfg.has_decoder else None
    with torch.no_grad():
        plain = model(src, tgt)
    traced, trace = run_with_trace(model, src, tgt)
    assert torch.equal(traced, plain)
    assert len(trace) > 0


# --- properties of the model, seen through run_with_trace ----------------------------------------

@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder"])
@pytest.mark.parametrize("positional", ["sinusoidal", "rope", "alibi"])
def test_later_target_tokens_do_not_change_earlier_logits(architecture, positional):
    model = make_model(architecture=architecture, positional=positional, n_decoder_layers=2)
    src = [SRC[0]] if model.cfg.has_encoder else None
    first, _ = run_with_trace(model, src, [2, 11, 12, 13, 14, 15])
    second, _ = run_with_trace(model, src, [2, 11, 12, 30, 31, 32])  # changed from position 3 on
    assert_activations_close(second[:, :3], first[:, :3])
    assert not torch.allclose(second[:, 3:], first[:, 3:], atol=1e-3)


@pytest.mark.parametrize("positional", ["sinusoidal", "rope", "alibi"])
def test_padding_the_source_leaves_real_outputs_unchanged(positional):
    model = make_model(positional=positional, n_encoder_layers=2, n_decoder_layers=2)
    short, short_trace = run_with_trace(model, [5, 6, 7], [2, 11, 12])
    padded, padded_trace = run_with_trace(model, [5, 6, 7, PAD, PAD, PAD], [2, 11, 12])
    assert_activations_close(padded, short)
    name = "encoder.layers.1.norm2"  # the memory the decoder reads, at the real positions
    assert_activations_close(padded_trace[name][:, :3], short_trace[name])


def test_switching_off_the_padding_mask_lets_attention_leak_onto_padding():
    model = make_model()
    pad_keys = np.array(SRC[1]) == PAD
    masked = trace_of(model).attn("encoder", 0).pattern[1][..., pad_keys]  # [h, q, pad keys]
    leaking = trace_of(model, pad_mask=False).attn("encoder", 0).pattern[1][..., pad_keys]
    assert np.all(masked == 0.0)
    assert np.all(leaking > 0.0)
    cross = trace_of(model, pad_mask=False).attn("decoder", 0, "cross_attn").pattern[1][..., pad_keys]
    assert np.all(cross > 0.0)


def test_concurrent_traces_on_one_shared_model_do_not_mix():
    # One model shared by every session (st.cache_resource): eight people trace at once, each
    # must see exactly their own sentence's values.
    model = make_model(n_encoder_layers=2, n_decoder_layers=2)
    sentences = [([5, 6, 7], [2, 11]), ([8], [2]), ([5, 6, 7, 8, 9, 10], [2, 12, 13, 14]),
                 ([9, 9, 9, 9], [2, 15, 16]), ([10, 11], [2, 11, 11, 11, 11]), ([12, 13, 14, 15, 16], [2]),
                 ([17, 18, 19], [2, 20, 21]), ([5, 20, 6, 21, 7, 22, 8], [2, 30])]
    alone = [trace_of(model, src, tgt) for src, tgt in sentences]
    start = threading.Barrier(len(sentences), timeout=30)

    def traced_together(pair):
        start.wait()  # all eight calls really overlap
        return trace_of(model, *pair)

    with ThreadPoolExecutor(max_workers=len(sentences)) as pool:
        for _ in range(4):
            for expected, got in zip(alone, pool.map(traced_together, sentences)):
                assert got.names == expected.names
                for name in expected.names:
                    np.testing.assert_array_equal(got[name], expected[name], err_msg=name)


# --- typed views ---------------------------------------------------------------------------------

def test_attn_view_holds_the_named_arrays_and_concatenates_heads():
    trace = trace_of(make_model())
    view = trace.attn("decoder", 0, "cross_attn")
    for leaf in ATTN_LEAVES:
        assert getattr(view, leaf) is trace[f"decoder.layers.0.cross_attn.{leaf}"]
    assert trace.attn("decoder", 0).pattern is trace["decoder.layers.0.self_attn.pattern"]
    # Head h's output occupies columns h·d_head … (h+1)·d_head of the concatenation.
    assert view.concat.shape == (2, 4, D_MODEL)
    for h in range(N_HEADS):
        np.testing.assert_array_equal(view.concat[..., h * D_HEAD:(h + 1) * D_HEAD], view.z[:, h])


def test_embed_view_shows_scaling_and_the_sinusoid():
    trace = trace_of(make_model())
    src = trace.embed("src")
    np.testing.assert_allclose(src.scaled, src.tok * math.sqrt(D_MODEL), rtol=1e-6)
    np.testing.assert_allclose(src.pos[0], sinusoidal_table(5, D_MODEL).numpy(), atol=1e-7)
    assert_activations_close(src.out, src.scaled + src.pos)  # eval: dropout is off
    assert trace.embed("tgt").tok is trace["tgt_embed.tok"]


def test_layer_views_name_per_layer_values():
    trace = trace_of(make_model(n_encoder_layers=3))
    assert trace.n_layers("encoder") == 3 and trace.n_layers("decoder") == 1
    assert trace.layer("encoder", 2, "ffn.hidden") is trace["encoder.layers.2.ffn.hidden"]
    assert np.all(trace.layer("encoder", 2, "ffn.hidden") >= 0)  # after the ReLU


@pytest.mark.parametrize("placement", ["post", "pre"])
def test_layer_output_is_what_the_next_layer_reads(placement):
    model = make_model(architecture="encoder", n_encoder_layers=2, norm_placement=placement)
    memory, trace = run_with_trace(model, SRC)
    first, last = trace.layer_output("encoder", 0), trace.layer_output("encoder", 1)
    layer1 = model.encoder.layers[1]
    if placement == "post":  # layer 1's queries are projected straight from layer 0's output
        q_proj = layer1.self_attn.q_proj
        q = split_heads(first @ q_proj.weight.detach().numpy().T + q_proj.bias.detach().numpy())
        assert_activations_close(trace.attn("encoder", 1).q, q)
        np.testing.assert_array_equal(last, memory.numpy())
    else:  # layer 1 first normalizes it; the stack's final norm turns the last output into memory
        assert_activations_close(layer1.norm1(torch.tensor(first)), trace.layer("encoder", 1, "norm1"))
        assert_activations_close(model.encoder.final_norm(torch.tensor(last)), memory)
        np.testing.assert_array_equal(trace["encoder.final_norm"], memory.numpy())


def test_a_value_is_converted_to_numpy_on_its_first_read_only():
    import pickle

    trace = trace_of(make_model())
    kept = trace._recorder.values  # what the call kept: the tensors themselves, none converted yet
    name = "encoder.layers.0.self_attn.pattern"
    assert all(isinstance(v, torch.Tensor) for v in kept.values())
    size = trace.nbytes  # sized where they are: asking converts nothing
    assert all(isinstance(v, torch.Tensor) for v in kept.values())
    first = trace[name]
    assert isinstance(first, np.ndarray) and first.dtype == np.float32 and trace[name] is first  # converted once
    assert trace.nbytes == size  # the same bytes, read or not
    assert sum(isinstance(v, np.ndarray) for v in kept.values()) == 1  # the others still wait for a reader
    again = pickle.loads(pickle.dumps(trace))  # st.cache_data pickles a trace: every value goes as an array
    assert all(isinstance(v, np.ndarray) for v in again._recorder.values.values())
    assert all(np.array_equal(again[n], trace[n]) for n in trace.names)


def test_a_value_recorded_with_gradients_on_keeps_no_graph():
    model = make_model()
    with recording() as values:  # gradients on, as when attribution runs the model
        model(torch.tensor(SRC), torch.tensor(TGT))
    kept = values.values["encoder.layers.0.self_attn.pattern"]
    assert not kept.requires_grad and kept.grad_fn is None  # the graph (and what it holds) is not kept alive
    assert isinstance(values["encoder.layers.0.self_attn.pattern"], np.ndarray)


def test_recorded_values_are_read_only_and_outlive_the_call():
    model = make_model()
    first = trace_of(model)
    kept = {name: first[name].copy() for name in first.names}
    trace_of(model, src=[[9, 8, 7]], tgt=[[2, 30]])  # a second call must not touch the first's values
    assert all(np.array_equal(first[name], kept[name]) for name in kept)
    pattern = first.attn("encoder", 0).pattern
    assert not pattern.flags.writeable  # it shares the tensor's memory, so no reader may write to it
    with pytest.raises(ValueError):
        pattern[...] = 0


# --- residuals and norms: computed again when read ---------------------------------------------------------------

DERIVED_LEAVES = ("resid_mid", "resid_cross", "resid_post", "norm1", "norm2", "norm3")


@pytest.mark.parametrize("overrides", [dict(), dict(norm_placement="pre", norm="rmsnorm"),
                                       dict(block="parallel", architecture="decoder", n_encoder_layers=0,
                                            norm_placement="pre")],
                         ids=["post-norm", "pre-norm RMSNorm", "parallel"])
def test_residuals_and_norms_are_kept_as_recipes_and_read_as_the_forward_computed_them(overrides):
    """A full trace keeps each residual as the sum of its two terms and each norm's output as the norm of its input;
    read, they are the forward's own bits: each traced alone (a filter that keeps nothing they derive from, so the
    value itself is kept) gives the same array."""
    model = make_model(**overrides)
    full = trace_of(model)
    derived = [n for n in full.names if n.rsplit(".", 1)[-1] in DERIVED_LEAVES]
    assert derived and all(n in full._recorder.recipes and n not in full._recorder.values for n in derived)
    for name in derived:
        alone = trace_of(model, names=name)
        assert name in alone._recorder.values  # its sources are not kept: the value itself is
        np.testing.assert_array_equal(full[name], alone[name])


def test_while_training_and_under_an_edit_the_value_itself_is_kept():
    from core_model.trace.edits import Edit

    model = make_model(dropout=0.5).train()
    torch.manual_seed(0)
    trace = trace_of(model)
    assert "decoder.layers.0.resid_mid" in trace._recorder.values  # dropout came between its terms
    model.eval()
    edited = run_with_trace(model, SRC, TGT, edits=[Edit("decoder.layers.0.resid_mid", 0.0)])[1]
    assert "decoder.layers.0.resid_mid" in edited._recorder.values and not edited["decoder.layers.0.resid_mid"].any()
