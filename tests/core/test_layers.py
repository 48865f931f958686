"""Layers against torch's nn.TransformerEncoderLayer / nn.TransformerDecoderLayer, with copied weights.

Both sides run with dropout 0 in eval mode, so any difference is a difference in the arithmetic:
norm placement, which norm wraps which sublayer, the activation, or a mask read the wrong way.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch import nn

from core_model import ModelConfig, Transformer
from core_model.nn.layers import Embeddings, Layer, RMSNorm
from core_model.nn.masks import causal_mask, combine, padding_mask
from core_model.nn.positional import sinusoidal_table
from tests.tolerance import assert_activations_close

D, H, D_FF, PAD = 16, 4, 32, 0
SRC = torch.tensor([[5, 6, 7, 8, 9, 10], [5, 6, 7, 8, PAD, PAD]])
TGT = torch.tensor([[2, 11, 12, 13], [2, 11, PAD, PAD]])


def small_config(**overrides) -> ModelConfig:
    fields = dict(d_model=D, n_heads=H, d_ff=D_FF, dropout=0.0, src_vocab_size=30, tgt_vocab_size=30,
                  n_encoder_layers=2, n_decoder_layers=2)
    return ModelConfig(**{**fields, **overrides})


def layer_pair(cross: bool, placement: str, activation: str, norm: str, copy) -> tuple[Layer, nn.Module]:
    """Our layer and torch's, holding the same random weights."""
    ours = Layer(small_config(norm_placement=placement, activation=activation, norm=norm), cross)
    ref_class = nn.TransformerDecoderLayer if cross else nn.TransformerEncoderLayer
    ref = ref_class(D, H, D_FF, dropout=0.0, activation=activation, batch_first=True,
                    norm_first=placement == "pre")
    if norm == "rmsnorm":  # torch's layers take no norm argument, but their norms can be swapped
        for name in ("norm1", "norm2", "norm3"):
            if hasattr(ref, name):
                setattr(ref, name, nn.RMSNorm(D, eps=1e-5))
    copy(ours, ref)
    if norm == "rmsnorm":
        # Dropout is 0, so training mode computes the same thing; in eval mode torch's encoder
        # layer probes norm1.bias for its fused kernel, which nn.RMSNorm has not got.
        ref.train()
    return ours, ref


VARIANTS = [(placement, activation, norm) for placement in ("post", "pre")
            for activation in ("relu", "gelu") for norm in ("layernorm", "rmsnorm")]


@pytest.mark.parametrize("placement, activation, norm", VARIANTS)
def test_encoder_layer_matches_torch(placement, activation, norm, copy_from_torch):
    ours, ref = layer_pair(False, placement, activation, norm, copy_from_torch)
    x = torch.randn(2, SRC.shape[1], D)
    # Gradients stay on so torch takes its reference path, not the fused inference kernel.
    expected = ref(x, src_key_padding_mask=SRC == PAD)
    got = ours(x, mask=padding_mask(SRC, PAD))
    assert_activations_close(got, expected)


@pytest.mark.parametrize("placement, activation, norm", VARIANTS)
def test_decoder_layer_matches_torch(placement, activation, norm, copy_from_torch):
    ours, ref = layer_pair(True, placement, activation, norm, copy_from_torch)
    x, memory = torch.randn(2, TGT.shape[1], D), torch.randn(2, SRC.shape[1], D)
    t = TGT.shape[1]
    expected = ref(x, memory, tgt_mask=~causal_mask(t)[0, 0], tgt_key_padding_mask=TGT == PAD,
                   memory_key_padding_mask=SRC == PAD)
    got = ours(x, mask=combine(causal_mask(t), padding_mask(TGT, PAD)), memory=memory,
               memory_mask=padding_mask(SRC, PAD))
    assert_activations_close(got, expected)


@pytest.mark.parametrize("placement", ["post", "pre"])
def test_whole_encoder_decoder_matches_torch_stacks(placement, copy_from_torch):
    # Two layers each way, plus the final norms torch adds only when asked (pre-norm stacks).
    model = Transformer(small_config(norm_placement=placement)).eval()
    pre = placement == "pre"

    def final_norm():
        return nn.LayerNorm(D) if pre else None

    encoder = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(D, H, D_FF, 0.0, batch_first=True, norm_first=pre), 2,
        norm=final_norm(), enable_nested_tensor=False)
    decoder = nn.TransformerDecoder(
        nn.TransformerDecoderLayer(D, H, D_FF, 0.0, batch_first=True, norm_first=pre), 2, norm=final_norm())
    copy_from_torch(model.encoder, encoder)
    copy_from_torch(model.decoder, decoder)
    memory = encoder(model.src_embed(SRC), src_key_padding_mask=SRC == PAD)
    hidden = decoder(model.tgt_embed(TGT), memory, tgt_mask=~causal_mask(TGT.shape[1])[0, 0],
                     tgt_key_padding_mask=TGT == PAD, memory_key_padding_mask=SRC == PAD)
    assert_activations_close(model(SRC, TGT), model.generator(hidden))


@pytest.mark.parametrize("ffn", ["plain", "gated"])
@pytest.mark.parametrize("activation", ["relu", "gelu", "gelu_tanh", "silu"])
def test_the_ffn_without_gradients_writes_over_its_first_product_with_the_same_bits(ffn, activation):
    from core_model.trace import run_with_trace

    model = Transformer(small_config(ffn=ffn, activation=activation, norm_placement="pre"))
    block = model.decoder.layers[0].ffn
    first = block.linear1 if ffn == "plain" else block.gate
    made = []
    handle = first.register_forward_hook(lambda module, args, out: made.append(out.data_ptr()))
    try:
        _, trace = run_with_trace(model, SRC, TGT)
    finally:
        handle.remove()
    kept = trace["decoder.layers.0.ffn.hidden"].__array_interface__["data"][0]
    assert kept == made[0]  # the activation, and the gate's product, in the first product's own memory
    x = torch.randn(2, 5, D)
    with torch.no_grad():
        written_over = block(x)
    with torch.enable_grad():
        with_gradients = block(x)  # out of place: the backward reads what the activation was given
    with_gradients.sum().backward()
    assert torch.equal(written_over, with_gradients.detach())
    assert first.weight.grad is not None


@pytest.mark.parametrize("eps", [1e-5, 0.5])
def test_rms_norm_matches_its_formula(eps):
    # A large eps makes "inside the square root" and "added afterwards" visibly different.
    norm = RMSNorm(D, eps)
    with torch.no_grad():
        norm.weight.normal_()
    x = torch.randn(3, 5, D) * 0.3
    x64, g = x.double().numpy(), norm.weight.detach().double().numpy()
    expected = x64 / np.sqrt((x64 ** 2).mean(-1, keepdims=True) + eps) * g
    got = norm(x).detach().numpy()
    assert_activations_close(got, expected)
    torch_norm = nn.RMSNorm(D, eps=eps)
    torch_norm.load_state_dict(norm.state_dict())
    assert_activations_close(norm(x), torch_norm(x))


def test_embeddings_scale_tokens_and_add_positions_from_start():
    cfg = small_config()
    embed = Embeddings(cfg, cfg.src_vocab_size).eval()
    ids = torch.tensor([[4, 9, 4]])
    # Three new tokens after three cached ones sit at positions 3, 4, 5.
    out = embed(ids, start=3)
    tok = embed.tok.weight[ids]  # [1, 3, d]
    expected = tok * math.sqrt(D) + sinusoidal_table(cfg.max_len, D)[3:6]
    assert torch.allclose(out, expected, atol=1e-6)
    # The same token at two positions differs only by their position vectors.
    table = sinusoidal_table(6, D)
    assert torch.allclose(out[0, 0] - out[0, 2], table[3] - table[5], atol=1e-5)


def test_unscaled_learned_embeddings_with_token_types():
    cfg = small_config(positional="learned", scale_embedding=False, type_vocab_size=2)
    embed = Embeddings(cfg, cfg.src_vocab_size).eval()
    ids, types = torch.tensor([[4, 9, 7]]), torch.tensor([[0, 1, 1]])
    expected = embed.tok.weight[ids] + embed.pos.weight[:3] + embed.token_type.weight[types]
    assert torch.allclose(embed(ids, token_types=types), expected, atol=1e-6)


def test_a_factorised_embedding_projects_the_normalized_narrow_sum_to_d_model():
    cfg = small_config(positional="learned", scale_embedding=False, type_vocab_size=2, embed_norm=True, d_embed=6,
                       max_len=8)
    embed = Embeddings(cfg, cfg.src_vocab_size).eval()
    assert (embed.tok.weight.shape, embed.pos.weight.shape, embed.norm.normalized_shape) == ((30, 6), (8, 6), (6,))
    ids = torch.tensor([[4, 9, 7]])
    narrow = embed.tok.weight[ids] + embed.pos.weight[:3] + embed.token_type.weight[0]  # [1, 3, 6]
    expected = embed.project(embed.norm(narrow))  # [1, 3, d_model]
    assert expected.shape == (1, 3, D) and torch.allclose(embed(ids), expected, atol=1e-6)


def test_embeddings_refuse_positions_beyond_max_len():
    embed = Embeddings(small_config(max_len=8), 30)
    with pytest.raises(ValueError, match="9 tokens exceed the model's maximum length of 8"):
        embed(torch.ones(1, 4, dtype=torch.long), start=5)
