"""Interventions (core_model/trace/edits.py): a run that knocks out heads, mean-ablates or patches named values, each
checked against what the test computes on its own (a block's output replaced by hand, a mean taken by hand)."""
from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from core_model import ModelConfig, Transformer, run_with_trace
from core_model.trace.edits import mean, patch, zero
from tests.tolerance import assert_activations_close

SRC, TGT = [5, 17, 40, 9, 61, 3], [2, 30, 12, 44, 3]  # ids of the translator's vocabularies
LM_A, LM_B = [2, 260, 262, 291, 502, 88], [2, 260, 601, 476, 261, 344]  # lm-en: two texts of one length


def layers_of(model, stack: str):
    return getattr(model, stack).layers


@pytest.mark.parametrize("stack, kind, layer", [("encoder", "self_attn", 1), ("decoder", "cross_attn", 0),
                                                ("decoder", "self_attn", 2)])
def test_zeroing_every_head_of_a_block_is_that_block_giving_only_its_output_bias(translator, stack, kind, layer):
    """With every head's z zero, W_O has nothing to read: the block adds only W_O's bias. The test builds that
    model by hand (the block's forward replaced on a copy) and compares the logits."""
    heads = getattr(layers_of(translator, stack)[layer], kind).n_heads
    edits = [zero(f"{stack}.layers.{layer}.{kind}.z", head=h) for h in range(heads)]
    edited, trace = run_with_trace(translator, SRC, TGT, edits=edits)
    by_hand = copy.deepcopy(translator)
    block = getattr(layers_of(by_hand, stack)[layer], kind)
    block.forward = lambda x, *args, **kwargs: (block.out_proj.bias.expand_as(x).clone(), None)
    with torch.no_grad():
        expected = by_hand(torch.tensor([SRC]), torch.tensor([TGT]))
    assert_activations_close(edited, expected)
    assert not trace[f"{stack}.layers.{layer}.{kind}.z"].any()  # the trace holds the edited value
    plain, _ = run_with_trace(translator, SRC, TGT)
    assert not torch.allclose(edited, plain)  # the block mattered


def test_without_a_bias_in_w_o_every_head_zeroed_is_the_block_removed():
    """A model whose W_O has no bias (Qwen2's, Llama's): every head zeroed adds nothing to the stream, as if the block
    were not there (the block's forward replaced by hand with zeros)."""
    torch.manual_seed(0)
    model = Transformer(ModelConfig(architecture="decoder", tgt_vocab_size=40, d_model=16, n_heads=2,
                                    n_decoder_layers=2, d_ff=32, dropout=0.0, norm_placement="pre",
                                    attn_out_bias=False)).eval()
    edited, _ = run_with_trace(model, None, LM_A[:1] + [5, 6, 7, 8], edits=[zero("decoder.layers.1.self_attn.z", h)
                                                                             for h in range(2)])
    by_hand = copy.deepcopy(model)
    block = by_hand.decoder.layers[1].self_attn
    block.forward = lambda x, *args, **kwargs: (torch.zeros_like(x), None)
    with torch.no_grad():
        assert torch.equal(edited, by_hand(None, torch.tensor([LM_A[:1] + [5, 6, 7, 8]])))


def test_one_head_knocked_out_changes_that_heads_output_only(translator):
    name = "decoder.layers.1.cross_attn.z"
    _, plain = run_with_trace(translator, SRC, TGT)
    _, edited = run_with_trace(translator, SRC, TGT, edits=[zero(name, head=2)])
    z, before = edited[name], plain[name]
    assert not z[:, 2].any()
    np.testing.assert_array_equal(np.delete(z, 2, axis=1), np.delete(before, 2, axis=1))  # same inputs, same bits
    assert not np.array_equal(edited["decoder.layers.1.resid_post"], plain["decoder.layers.1.resid_post"])
    np.testing.assert_array_equal(edited["encoder.layers.2.resid_post"], plain["encoder.layers.2.resid_post"])


def test_patching_a_run_with_itself_changes_nothing_bit_for_bit(translator):
    out, trace = run_with_trace(translator, SRC, TGT)
    names = [n for n in trace.names if n.split(".")[-1] in ("z", "pattern", "out", "resid_post", "hidden", "q", "v")]
    assert len(names) > 40
    again, patched = run_with_trace(translator, SRC, TGT, edits=[patch(n, trace) for n in names])
    assert torch.equal(again, out)
    for name in names:
        np.testing.assert_array_equal(patched[name], trace[name], err_msg=name)


def test_mean_ablation_puts_the_reference_batchs_mean_of_that_head_at_every_position(lm):
    name, head = "decoder.layers.0.self_attn.z", 1
    reference = [run_with_trace(lm, None, ids)[1] for ids in (LM_A, LM_B, LM_A[:4])]  # three texts, 16 positions
    by_hand = np.concatenate([t[name][0, head] for t in reference]).astype(np.float64).mean(axis=0)  # [d_head]
    _, plain = run_with_trace(lm, None, LM_B)
    _, edited = run_with_trace(lm, None, LM_B, edits=[mean(name, reference, head=head)])
    z = edited[name]
    np.testing.assert_allclose(z[0, head], np.broadcast_to(by_hand, z[0, head].shape), rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(np.delete(z, head, axis=1), np.delete(plain[name], head, axis=1))
    every = mean(name, reference).value  # every head its own mean: [heads, 1, d_head]
    assert every.shape == (z.shape[1], 1, z.shape[3])
    np.testing.assert_allclose(every[head, 0], by_hand, rtol=1e-6, atol=1e-7)


def test_patching_all_of_a_runs_last_residual_stream_into_another_gives_its_logits(lm):
    last = f"decoder.layers.{len(layers_of(lm, 'decoder')) - 1}.resid_post"
    logits_a, trace_a = run_with_trace(lm, None, LM_A)
    logits_b, _ = run_with_trace(lm, None, LM_B)
    patched, _ = run_with_trace(lm, None, LM_B, edits=[patch(last, trace_a)])
    assert not torch.allclose(logits_a, logits_b)
    assert torch.equal(patched, logits_a)  # the same vectors through the same final norm and unembedding


def test_patching_one_position_moves_only_what_reads_it(lm):
    """Position 3 of layer 0's output patched from text A: earlier positions cannot see it (the causal mask)."""
    _, trace_a = run_with_trace(lm, None, LM_A)
    logits_b, _ = run_with_trace(lm, None, LM_B)
    patched, _ = run_with_trace(lm, None, LM_B, edits=[patch("decoder.layers.0.resid_post", trace_a, position=3)])
    torch.testing.assert_close(patched[:, :3], logits_b[:, :3], rtol=0, atol=0)
    assert not torch.allclose(patched[:, 3:], logits_b[:, 3:])


def test_a_value_kept_before_the_edit_keeps_what_it_was(lm):
    """A layer's input is the very tensor the last layer put out: editing it leaves that output as computed."""
    _, plain = run_with_trace(lm, None, LM_A)
    _, edited = run_with_trace(lm, None, LM_A, edits=[zero("decoder.layers.1.resid_pre")])
    assert not edited["decoder.layers.1.resid_pre"].any()
    np.testing.assert_array_equal(edited["decoder.layers.0.resid_post"], plain["decoder.layers.0.resid_post"])


def test_an_edited_run_leaves_nothing_behind_on_the_shared_model(lm):
    before, _ = run_with_trace(lm, None, LM_A)
    run_with_trace(lm, None, LM_A, edits=[zero("decoder.layers.2.self_attn.pattern")])
    with torch.no_grad():
        assert torch.equal(lm(None, torch.tensor([LM_A])), before)
    assert torch.equal(run_with_trace(lm, None, LM_A)[0], before)


def test_the_weights_edited_are_the_weights_used_in_float16_traces_too(lm):
    name = "decoder.layers.1.self_attn.pattern"
    full, _ = run_with_trace(lm, None, LM_A, edits=[zero(name, head=0)])
    half, trace = run_with_trace(lm, None, LM_A, edits=[zero(name, head=0)], half=True)
    assert torch.equal(full, half) and not trace[name][:, 0].any()


def test_edits_that_cannot_be_made_are_refused_in_a_sentence(lm):
    with pytest.raises(ValueError, match="computed no value named 'decoder.layers.9.self_attn.z'"):
        run_with_trace(lm, None, LM_A, edits=[zero("decoder.layers.9.self_attn.z")])
    with pytest.raises(ValueError, match="not split by head"):
        zero("decoder.layers.0.resid_post", head=1)
    with pytest.raises(ValueError, match="asks for head 9"):
        run_with_trace(lm, None, LM_A, edits=[zero("decoder.layers.0.self_attn.z", head=9)])
    with pytest.raises(ValueError, match="derived from other values"):
        zero("decoder.layers.0.self_attn.scores")
    _, short = run_with_trace(lm, None, LM_A[:4])
    with pytest.raises(ValueError, match="patch from a run of the same shape"):
        run_with_trace(lm, None, LM_A, edits=[patch("decoder.layers.0.resid_post", short)])
    with pytest.raises(ValueError, match="takes no edits"):
        run_with_trace(lm, None, LM_A, on_demand=True, edits=[zero("decoder.layers.0.resid_post")])
    with pytest.raises(TypeError, match="must be Edit objects"):
        run_with_trace(lm, None, LM_A, edits=["decoder.layers.0.resid_post"])
