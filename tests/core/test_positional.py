"""Positional encodings against their papers' formulas, written out here independently."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from core_model.nn.positional import (LearnedPositions, SinusoidalPositions, alibi_bias, alibi_slopes,
                                   rope_angles, rope_rotate, sinusoidal_table)


def paper_sinusoid(length: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """Vaswani et al. §3.5: PE(pos, 2i) = sin(pos / base^(2i/d)), PE(pos, 2i+1) = cos(same angle)."""
    pe = np.zeros((length, d_model), dtype=np.float64)
    for pos in range(length):
        for i in range(d_model // 2):
            angle = pos / base ** (2 * i / d_model)
            pe[pos, 2 * i] = math.sin(angle)
            pe[pos, 2 * i + 1] = math.cos(angle)
    return pe


@pytest.mark.parametrize("length, d_model, base", [(64, 16, 10000.0), (20, 6, 100.0), (512, 64, 10000.0)])
def test_sinusoidal_table_matches_the_paper(length, d_model, base):
    table = sinusoidal_table(length, d_model, base)
    assert table.dtype == torch.float32
    # Computed in float64, stored in float32: only the final rounding may differ.
    np.testing.assert_allclose(table.numpy(), paper_sinusoid(length, d_model, base), rtol=0, atol=1e-7)


def test_sinusoidal_module_looks_up_rows_and_is_not_saved():
    module = SinusoidalPositions(32, 8, 10000.0)
    positions = torch.tensor([5, 0, 31])
    np.testing.assert_allclose(module(positions).numpy(), paper_sinusoid(32, 8)[[5, 0, 31]], atol=1e-7)
    assert module.state_dict() == {}  # a buffer rebuilt from the config, not a checkpoint weight


def test_learned_positions_look_up_their_own_rows():
    module = LearnedPositions(10, 4)
    assert torch.equal(module(torch.tensor([3, 7])), module.weight[[3, 7]])


# --- RoPE ------------------------------------------------------------------------------------

D_HEAD = 16


def rotated_at(vector: torch.Tensor, positions: list[int]) -> torch.Tensor:
    """One vector placed at each of `positions` and rotated there: [pos, d_head]."""
    x = vector.expand(1, 1, len(positions), D_HEAD)  # [b=1, h=1, pos, d_head]
    return rope_rotate(x, torch.tensor(positions), 10000.0)[0, 0]


def test_rope_rotates_each_pair_by_position_times_frequency():
    # A unit vector on pair i at position p lands on (cos θ, sin θ) with θ = p / 10000^(2i/d).
    p, i = 7, 3
    unit = torch.zeros(D_HEAD)
    unit[2 * i] = 1.0
    out = rotated_at(unit, [p])[0]
    theta = p / 10000 ** (2 * i / D_HEAD)
    expected = torch.zeros(D_HEAD)
    expected[2 * i], expected[2 * i + 1] = math.cos(theta), math.sin(theta)
    assert torch.allclose(out, expected, atol=1e-6)


def test_rope_dot_product_depends_only_on_the_offset():
    q, k = torch.randn(D_HEAD), torch.randn(D_HEAD)
    positions = list(range(0, 200, 7))
    scores = rotated_at(q, positions) @ rotated_at(k, positions).T  # [m, n]: q at m, k at n
    # Same offset at different absolute positions: every diagonal of the score matrix is constant.
    for offset in range(-5, 6):
        diagonal = torch.diagonal(scores, offset)
        assert torch.allclose(diagonal, diagonal[0].expand_as(diagonal), atol=1e-4), offset
    # Offset 0 is no rotation at all, relative to each other.
    assert torch.allclose(scores.diagonal(), (q @ k).expand(len(positions)), atol=1e-4)
    # Different offsets give different scores: the position information is really there.
    first_row = scores[0, :8]
    assert (first_row[1:] - first_row[:-1]).abs().min() > 1e-3


def test_rope_preserves_norms():
    x = torch.randn(2, 3, 50, D_HEAD)  # [b, h, pos, d_head]
    rotated = rope_rotate(x, torch.arange(100, 150), 10000.0)
    assert torch.allclose(rotated.norm(dim=-1), x.norm(dim=-1), atol=1e-5)
    assert not torch.allclose(rotated, x, atol=1e-2)  # and did rotate


def test_rope_at_position_zero_is_the_identity():
    x = torch.randn(1, 2, 1, D_HEAD)
    assert torch.equal(rope_rotate(x, torch.tensor([0]), 10000.0), x)


# --- ALiBi -----------------------------------------------------------------------------------

def reference_alibi_slopes(n: int) -> list[float]:
    """The recipe of Press et al.'s released code: a geometric sequence starting at
    2^(-8/n) for n a power of two; otherwise the closest lower power of two, topped up with
    every other slope of the next power of two."""
    def geometric(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start ** i for i in range(n)]

    if math.log2(n).is_integer():
        return geometric(n)
    closest = 2 ** math.floor(math.log2(n))
    return geometric(closest) + reference_alibi_slopes(2 * closest)[0::2][: n - closest]


EIGHT_HEAD_SLOPES = [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256]


def test_alibi_slopes_for_eight_heads_are_halvings():
    assert alibi_slopes(8).tolist() == EIGHT_HEAD_SLOPES  # powers of two are exact in float32


@pytest.mark.parametrize("n_heads", [1, 2, 3, 6, 12, 16])
def test_alibi_slopes_match_the_reference_recipe(n_heads):
    np.testing.assert_allclose(alibi_slopes(n_heads).numpy(), reference_alibi_slopes(n_heads), rtol=1e-6)


def test_alibi_slopes_for_six_heads():
    # Written out: 4 heads' slopes (1/4 … 1/256), then 8 heads' odd ones (1/2, 1/8).
    assert alibi_slopes(6).tolist() == [1 / 4, 1 / 16, 1 / 64, 1 / 256, 1 / 2, 1 / 8]


def test_alibi_bias_is_minus_slope_times_distance():
    q_pos, k_pos = torch.arange(3, 5), torch.arange(5)  # two queries after three cached keys
    bias = alibi_bias(8, q_pos, k_pos)
    assert bias.shape == (1, 8, 2, 5)
    for h, slope in enumerate(EIGHT_HEAD_SLOPES):
        for qi, qp in enumerate([3, 4]):
            for kp in range(5):
                assert bias[0, h, qi, kp].item() == -slope * abs(qp - kp)


def test_an_integer_base_past_int64_is_taken_as_the_number_it_is():
    # A config may hold any JSON number a config check lets through (above 1, at most the largest float); the
    # fuzz test found 2**64, which torch cannot raise to a tensor as an int64 (OverflowError before this).
    base = 2**64
    assert torch.equal(sinusoidal_table(6, 8, base), sinusoidal_table(6, 8, float(base)))
    assert torch.equal(rope_angles(torch.arange(6), 8, base), rope_angles(torch.arange(6), 8, float(base)))
