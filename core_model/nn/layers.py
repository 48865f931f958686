"""Building blocks: norms, the position-wise FFN, embeddings, one Transformer layer, a stack."""
from __future__ import annotations

import math

import torch
from torch import nn

from .attention import MultiHeadAttention
from ..config import ModelConfig
from ..trace.hook_points import record, record_as, record_call, remember
from ..trace.pace import between
from ..trace.names import EMBED_LEAVES, FFN_LEAVES, LAYER_LEAVES, STACK_LEAVES
from .positional import LearnedPositions, RelativePositionBias, RopeScaling, SinusoidalPositions, as_given


class RMSNorm(nn.Module):
    """x / sqrt(mean(x²) + eps) × g: LayerNorm without centring or bias."""

    def __init__(self, d_model: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def make_norm(cfg: ModelConfig, width: int = 0) -> nn.Module:
    """The config's norm over `width` features (0: d_model)."""
    if cfg.norm == "rmsnorm":
        return RMSNorm(width or cfg.d_model, cfg.norm_eps)
    return nn.LayerNorm(width or cfg.d_model, eps=cfg.norm_eps)


def make_activation(name: str) -> nn.Module:
    """The FFN's nonlinearity: ReLU, GELU, GELU's tanh approximation (GPT-2's "gelu_new") or SiLU (x·sigmoid(x),
    Marian's "swish")."""
    if name == "gelu_tanh":
        return nn.GELU(approximate="tanh")
    if name == "silu":
        return nn.SiLU()
    return nn.GELU() if name == "gelu" else nn.ReLU()


def activate(activation: nn.Module, x: torch.Tensor, in_place: bool) -> torch.Tensor:
    """activation(x) (a make_activation module); `in_place`: written over x, by the same kernel (the same bits), for
    a fresh product no one else holds, when no gradient is taken (the backward would read x)."""
    if in_place and isinstance(activation, nn.GELU):
        return torch.ops.aten.gelu_(x, approximate=activation.approximate)
    if in_place and isinstance(activation, (nn.SiLU, nn.ReLU)):
        return nn.functional.silu(x, inplace=True) if isinstance(activation, nn.SiLU) else nn.functional.relu_(x)
    return activation(x)


class FeedForward(nn.Module):
    """linear2(act(linear1(x))), applied to every position alike; gated (cfg.ffn, Llama's SwiGLU):
    linear2(act(gate(x)) * linear1(x)), transformers' down_proj(act(gate_proj(x)) * up_proj(x))."""
    LEAVES = FFN_LEAVES

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.linear1 = nn.Linear(cfg.d_model, cfg.d_ff, bias=cfg.ffn_bias)
        self.gate = nn.Linear(cfg.d_model, cfg.d_ff, bias=cfg.ffn_bias) if cfg.ffn == "gated" else None
        self.linear2 = nn.Linear(cfg.d_ff, cfg.d_model, bias=cfg.ffn_bias)
        self.activation = make_activation(cfg.activation)
        self.dropout = nn.Dropout(cfg.dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = self.hidden(x)  # [b, pos, d_ff]
        record_call(self, "hidden", hidden, self.hidden, x)  # both computed again from what they read, when read
        out = self.linear2(self.dropout(hidden) if self.training else hidden)  # [b, pos, d_model]
        record_call(self, "out", out, self.linear2, hidden)
        return out

    def hidden(self, x: torch.Tensor) -> torch.Tensor:
        """act(linear1(x)), or act(gate(x)) × linear1(x): what linear2 reads. Without gradients the activation and the
        gate's product are written over the first product's output: the [b, pos, d_ff] arrays are a layer's largest,
        and each new one is memory the cache does not hold (two fewer a layer). The same arithmetic, the same bits."""
        in_place = not torch.is_grad_enabled()
        if self.gate is None:
            return activate(self.activation, self.linear1(x), in_place)
        hidden = activate(self.activation, self.gate(x), in_place)  # act(gate(x)) ...
        return hidden.mul_(self.linear1(x)) if in_place else hidden * self.linear1(x)  # ... × linear1(x)




class Embeddings(nn.Module):
    """Token vector (× √d_model if configured) + position vector (+ token type), then dropout; a factorised
    embedding (cfg.d_embed) sums d_embed-wide vectors and projects them to d_model."""
    LEAVES = EMBED_LEAVES

    def __init__(self, cfg: ModelConfig, vocab_size: int):
        super().__init__()
        self.cfg = cfg
        width = cfg.d_embed or cfg.d_model
        self.tok = nn.Embedding(vocab_size, width)
        self.pos = None  # RoPE and ALiBi act inside attention instead
        if cfg.positional == "sinusoidal":
            self.pos = SinusoidalPositions(cfg.max_len, width, cfg.positional_base, cfg.sinusoidal_layout)
        elif cfg.positional == "learned":
            self.pos = LearnedPositions(cfg.max_len, width)
        self.token_type = nn.Embedding(cfg.type_vocab_size, width) if cfg.type_vocab_size else None
        self.norm = make_norm(cfg, width) if cfg.embed_norm else None
        self.project = nn.Linear(width, cfg.d_model) if cfg.d_embed else None  # d_embed -> d_model
        self.dropout = nn.Dropout(cfg.dropout)

    def forward(self, ids: torch.Tensor, start: int = 0, token_types: torch.Tensor | None = None):
        if start + ids.shape[1] > self.cfg.positions:
            raise ValueError(f"{start + ids.shape[1]} tokens exceed the model's maximum length of {self.cfg.positions}.")
        tok = self.tok(ids)  # [b, pos, d_model]
        record(self, "tok", tok)
        x = tok * math.sqrt(self.cfg.d_model) if self.cfg.scale_embedding else tok
        record(self, "scaled", x)
        if self.pos is not None:
            pos = self.pos(torch.arange(start, start + ids.shape[1], device=ids.device))[None]  # [1, pos, d_model]
            record(self, "pos", pos)
            x = x + pos
        if self.token_type is not None:
            types = self.token_type(torch.zeros_like(ids) if token_types is None else token_types)
            record(self, "type", types)
            x = x + types
        if self.norm is not None:
            x = self.norm(x)
        if self.training:  # nn.Dropout is the identity in eval mode; skipping its call spares the overhead
            x = self.dropout(x)
        if self.project is not None:
            x = self.project(x)  # [b, pos, d_model]
        record(self, "out", x)
        return x




class MaskedLMTransform(nn.Module):
    """A masked-LM head's transform before the output layer (BERT's cls.predictions.transform): norm(act(dense(h))),
    [b, pos, d_model] -> [b, pos, d_embed or d_model], the token embedding's width (the output layer is tied to it)."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        width = cfg.d_embed or cfg.d_model
        self.dense = nn.Linear(cfg.d_model, width)
        self.activation = make_activation(cfg.activation)
        self.norm = make_norm(cfg, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(self.activation(self.dense(x)))




class Layer(nn.Module):
    """Self-attention, optional cross-attention, FFN; each wrapped in residual + norm.

    Post-norm (the paper): x = norm(x + sublayer(x)). Pre-norm: x = x + sublayer(norm(x)).
    Names follow nn.TransformerEncoderLayer / nn.TransformerDecoderLayer. A parallel block (cfg.block) is `parallel`.
    """
    LEAVES = LAYER_LEAVES

    def __init__(self, cfg: ModelConfig, cross: bool):
        super().__init__()
        self.pre_norm = cfg.norm_placement == "pre"
        bias, out_bias = cfg.bias and cfg.qkv_bias, cfg.bias and cfg.attn_out_bias
        self.self_attn = MultiHeadAttention(cfg.d_model, cfg.n_heads, cfg.dropout, bias, cfg.positional,
                                            cfg.positional_base, cfg.n_kv_heads, out_bias, cfg.rope_layout,
                                            cfg.scale_scores, cfg.head_dim, RopeScaling.of(cfg), cfg.rope_dims)
        self.cross_attn = MultiHeadAttention(cfg.d_model, cfg.n_heads, cfg.dropout, bias, out_bias=out_bias,
                                             scaled=cfg.scale_scores, d_head=cfg.head_dim) if cross else None
        self.ffn = FeedForward(cfg)
        self.block = cfg.block
        self.norm1 = make_norm(cfg)
        self.norm2 = None if cfg.block == "parallel_shared" else make_norm(cfg)  # one norm feeds both blocks
        self.norm3 = make_norm(cfg) if cross else None
        self.dropout = nn.Dropout(cfg.dropout)

    def drop(self, x: torch.Tensor) -> torch.Tensor:
        """Dropout while training; in eval mode the identity, without the module call (decoding runs
        hundreds of small steps, where such calls add up)."""
        return self.dropout(x) if self.training else x

    def sublayer(self, x, entry: str, fn, added: str, norm, norm_name, resid_name):
        """One block with its residual and norm: x + fn(norm(x)) (pre-norm) or norm(x + fn(x)); → (x, what the trace
        calls it). `entry` names x as the trace keeps it and `added` the block's output, the residual's two terms."""
        if self.pre_norm:
            y = norm(x)
            self.keep(norm_name, y, ("norm", (entry,), norm))
            x = x + self.drop(fn(y))
            self.keep(resid_name, x, ("sum", (entry, added)))
            return x, resid_name
        x = x + self.drop(fn(x))
        self.keep(resid_name, x, ("sum", (entry, added)))
        x = norm(x)
        self.keep(norm_name, x, ("norm", (resid_name,), norm))
        return x, norm_name

    def keep(self, leaf: str, value: torch.Tensor, recipe: tuple) -> None:
        """Record a residual as the sum of its terms, a norm's output as the norm of its input: the trace computes
        them again when read (the same bits), and keeps fewer [b, pos, d_model] arrays (the norms' outputs, and a
        residual no later block reads). While training, as themselves: dropout comes between a residual's terms, and
        the weights change after the call."""
        if self.training:
            record(self, leaf, value)
        else:
            record_as(self, leaf, value, recipe)

    def forward(self, x, mask=None, memory=None, memory_mask=None, start=0, cache=None, position_bias=None):
        """x [b, q, d_model] → [b, q, d_model]; `cache` is this layer's dict of per-block caches; `position_bias`
        the stack's bias for self-attention, if it has one (MultiHeadAttention.forward)."""
        def self_block(y):
            block_cache = None if cache is None else cache.setdefault("self_attn", {})
            return self.self_attn(y, mask=mask, start=start, cache=block_cache, position_bias=position_bias)[0]

        def cross_block(y):
            return self.cross_attn(y, memory, memory_mask, cache=None if cache is None else cache.setdefault("cross_attn", {}))[0]

        record(self, "resid_pre", x)  # [b, q, d_model] what enters, so no reader re-derives it
        if self.block != "sequential":
            return self.parallel(x, self_block)
        x, name = self.sublayer(x, "resid_pre", self_block, "self_attn.out", self.norm1, "norm1", "resid_mid")
        if self.cross_attn is not None:
            x, name = self.sublayer(x, name, cross_block, "cross_attn.out", self.norm2, "norm2", "resid_cross")
            return self.sublayer(x, name, self.ffn, "ffn.out", self.norm3, "norm3", "resid_post")[0]
        return self.sublayer(x, name, self.ffn, "ffn.out", self.norm2, "norm2", "resid_post")[0]

    def parallel(self, x, self_block):
        """Both blocks read the layer's input: x + attn(norm1(x)) + ffn(norm2(x)) (GPT-NeoX's parallel residual);
        with one shared norm, x + attn(norm1(x)) + ffn(norm1(x)) (Phi). resid_mid is x + attn, what the FFN adds to."""
        y = self.norm1(x)
        self.keep("norm1", y, ("norm", ("resid_pre",), self.norm1))
        mid = x + self.drop(self_block(y))
        self.keep("resid_mid", mid, ("sum", ("resid_pre", "self_attn.out")))
        norm2 = self.norm1 if self.norm2 is None else self.norm2  # one norm shared: the same vectors as norm1
        y = y if self.norm2 is None else norm2(x)
        self.keep("norm2", y, ("norm", ("resid_pre",), norm2))  # what the FFN reads
        x = mid + self.drop(self.ffn(y))
        self.keep("resid_post", x, ("sum", ("resid_mid", "ffn.out")))
        return x




class Stack(nn.Module):
    """N layers, and a final norm for pre-norm stacks (post-norm layers already end in one); with positional
    "relative" (T5), the bias table every layer's self-attention shares, by offset buckets of both directions
    unless the stack is `causal`."""
    LEAVES = STACK_LEAVES

    def __init__(self, cfg: ModelConfig, n_layers: int, cross: bool, causal: bool = False,
                 local: tuple[int, ...] = ()):
        """causal: the relative bias of a decoder (keys before the query only); local: the layers whose
        self-attention reads `local_mask` (ModelConfig.window_layers), not `mask`."""
        super().__init__()
        self.relative_bias = RelativePositionBias(cfg.relative_buckets, cfg.n_heads, cfg.relative_max_distance,
                                                  bidirectional=not causal) if cfg.positional == "relative" else None
        self.layers = nn.ModuleList(Layer(cfg, cross) for _ in range(n_layers))
        self.final_norm = make_norm(cfg) if cfg.norm_placement == "pre" else None
        self.local = frozenset(local)

    def position_bias(self, start: int, n: int) -> tuple | None:
        """The relative bias [1, h, n, start + n] of queries start … start + n - 1, once for every layer, with
        its recipe for the trace (MultiHeadAttention.forward); None without a table."""
        if self.relative_bias is None:
            return None
        bias = self.relative_bias(start, n, start + n)
        record(self, "position_bias", bias)
        return bias, (as_given, (bias.detach(),))

    def forward(self, x, mask=None, memory=None, memory_mask=None, start=0, caches=None, local_mask=None):
        bias = self.position_bias(start, x.shape[1])
        remember(self, mask=mask, local_mask=local_mask, memory=memory, memory_mask=memory_mask, start=start, bias=bias)
        for i, layer in enumerate(self.layers):
            between()  # where a long run may let others go first (trace/pace.py)
            here = local_mask if i in self.local else mask
            x = layer(x, here, memory, memory_mask, start, None if caches is None else caches[i], bias)
        if self.final_norm is not None:
            x = self.final_norm(x)
            record(self, "final_norm", x)
        return x
