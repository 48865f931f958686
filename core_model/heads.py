"""One attention head taken apart: a trained head's weights as matrices, and a hand-set head's every stage.

Both feed the pages that show a head's arithmetic step by step, so the numbers are exactly the network's:
the weights are the model's own rows, the stages come from nn.attention's own attention(), through its hook.
"""
from __future__ import annotations

import numpy as np
import torch

from .nn.attention import attention
from .nn.masks import causal_mask


def head_weights(block: torch.nn.Module, head: int) -> dict[str, np.ndarray]:
    """W_Q, W_K, W_V of one head of an attention block as [d_model, d_head] (so Q = X W_Q + b_Q), their biases,
    and W_O, b_O.

    A model without biases gets zero biases, so the formulas hold as written. Under grouped-query attention W_K and
    W_V are those of the key/value head the query head reads.
    """
    d_head = block.d_head
    kv = head // (block.n_heads // block.n_kv_heads)
    out = {}
    for name, linear, h in (("q", block.q_proj, head), ("k", block.k_proj, kv), ("v", block.v_proj, kv)):
        rows = slice(h * d_head, (h + 1) * d_head)  # nn.Linear keeps W as [out, in]: a head owns out rows
        # [d_model, d_head] on the host, never a view of the model (.cpu() is no copy for a model on the CPU)
        out[f"w_{name}"] = linear.weight.detach()[rows].T.cpu().numpy().copy()
        bias = torch.zeros(linear.out_features) if linear.bias is None else linear.bias.detach()
        out[f"b_{name}"] = bias[rows].cpu().numpy().copy()
    out["w_o"] = block.out_proj.weight.detach().T.cpu().numpy().copy()  # [h·d_head, d_model]
    b_o = block.out_proj.bias
    out["b_o"] = np.zeros(out["w_o"].shape[1], np.float32) if b_o is None else b_o.detach().cpu().numpy().copy()
    return out


def worked_attention(x, w_q, w_k, w_v, causal: bool) -> dict[str, np.ndarray]:
    """Q, K, V, the mask and every attention stage of a hand-set example (float64), through attention()."""
    def tensor(a):
        return torch.as_tensor(np.asarray(a, dtype=np.float64))

    x = tensor(x)
    q, k, v = x @ tensor(w_q), x @ tensor(w_k), x @ tensor(w_v)  # [n, d_k]
    n = x.shape[0]
    mask = causal_mask(n) if causal else None  # [1, 1, n, n]
    stages = {"q": q.numpy(), "k": k.numpy(), "v": v.numpy(),
              "mask": np.ones((n, n)) if mask is None else mask[0, 0].numpy().astype(np.float64)}

    def keep(leaf, value):  # attention()'s hook: every step, as one head of a batch of one (a copy: attention()
        stages[leaf] = value[0, 0].numpy().copy()  # goes on in place over the scores)
        return value

    with torch.no_grad():
        attention(q[None, None], k[None, None], v[None, None], mask=mask, hook=keep)
    return stages
