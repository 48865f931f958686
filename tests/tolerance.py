"""One tolerance for float32 activations, shared by the numeric tests.

Float32 sums taken in another order (transformers' kernels and ours, torch's and numpy's, a cached
step and a full recompute, AVX-512 on an Intel Xeon and AVX2 on an AMD EPYC, one thread count and
another, a padded batch and a short one) differ in their last bits, and the difference grows with the
size of the values summed: MiniLM's hidden states reach about 10, where layer 4 differed from
transformers' by 6e-6 on an AMD EPYC and by 1.04e-5 on an Intel Xeon (about 1e-6 of the layer's
largest value). So activations are held to 4e-6 of their largest value plus 1e-5 of each value, about
four times the worst seen, not to a fixed absolute bound. Real mistakes sit far above that: GELU's tanh
approximation is off by 5e-4 of the largest value, LayerNorm eps 1e-5 instead of 1e-12 by 2e-4, one
FFN bias scaled by 1.001 by 3e-5. Attention weights and probabilities lie in 0..1, where a fixed
absolute bound suits, and keep one.
"""
from __future__ import annotations

import numpy as np
import torch

ACT_RTOL, ACT_ATOL_PER_MAX = 1e-5, 4e-6


def as_numpy(x) -> np.ndarray:
    return x.detach().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)


def assert_activations_close(got, want, err_msg: str = "", size: float | None = None) -> None:
    """float32 activations, held to a bound that grows with their size (by default the largest |want|)."""
    got, want = as_numpy(got), as_numpy(want)
    size = float(np.abs(want).max()) if size is None else size
    np.testing.assert_allclose(got, want, rtol=ACT_RTOL, atol=ACT_ATOL_PER_MAX * size, err_msg=err_msg)
