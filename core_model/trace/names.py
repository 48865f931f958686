"""The trace's names: what each recording module of the network records, in order.

A recorded value is named `<module path>.<leaf>`: `encoder.layers.2.self_attn.pattern` is the leaf
`pattern` of the attention block at that path. Each module of nn/ declares its leaves as `LEAVES`, one of
the tuples below; they live here, with the recorder, so that the Trace's typed views are built on them
without the trace knowing the network (nn imports trace, never the other way round).
"""

# What an attention block records, in order: `<block path>.<leaf>`. attention() records the middle five.
ATTN_LEAVES = (
    "q",  # [b, h, q, d_head] queries (rotated, with RoPE)
    "k",  # [b, kv, k, d_head] keys (rotated, with RoPE; every cached step's, when decoding with a cache); kv is
    # n_kv_heads with grouped-query attention (query head h reads key head ModelConfig.kv_head(h)), else h
    "v",  # [b, kv, k, d_head] values, one per key/value head as the keys
    "scores",  # [b, h, q, k] Q Kᵀ
    "scores_scaled",  # [b, h, q, k] / √d_head (unless switched off), + the ALiBi or T5 bias
    "scores_masked",  # [b, h, q, k] -inf where a query may not attend
    "pattern",  # [b, h, q, k] softmax weights: rows sum to 1 (0 for a fully blocked row)
    "z",  # [b, h, q, d_head] pattern @ V: each head's output
    "out",  # [b, q, d_model] the heads side by side, through W_O
)


# What a feed-forward block records, in order: `<layer path>.ffn.<leaf>`.
FFN_LEAVES = (
    "hidden",  # [b, pos, d_ff] after the activation (gated FFN: act(gate(x)) × linear1(x)), what linear2 reads
    "out",  # [b, pos, d_model]
)


# What an embedding stage records, in order: `src_embed.<leaf>` (encoder input), `tgt_embed.<leaf>` (decoder input).
# A factorised embedding (ModelConfig.d_embed: ALBERT, ELECTRA) has tok, scaled, pos and type d_embed wide.
EMBED_LEAVES = (
    "tok",  # [b, pos, d_model] the token vectors
    "scaled",  # [b, pos, d_model] × √d_model if the config scales embeddings, else tok itself
    "pos",  # [1, pos, d_model] sinusoidal or learned positions only (RoPE and ALiBi act inside attention)
    "type",  # [b, pos, d_model] token-type vectors, only if the config has them (BERT)
    "out",  # [b, pos, d_model] the sum (normalized, with embed_norm; projected, with d_embed), what layer 0 reads
)


# What a layer records itself: `encoder.layers.{i}.<leaf>`, `decoder.layers.{i}.<leaf>`; its blocks
# record under self_attn., cross_attn. (ATTN_LEAVES) and ffn. (FFN_LEAVES). Each sublayer records its
# norm and its residual sum: norm first in a pre-norm layer, the sum first in a post-norm one.
LAYER_LEAVES = (
    "resid_pre",  # [b, pos, d_model] what enters the layer: the embedding or the previous layer's output
    "norm1",  # [b, pos, d_model] the norm around self-attention
    "resid_mid",  # [b, pos, d_model] input + self-attention output
    "norm2",  # [b, pos, d_model] the norm around cross-attention if the layer has it, else around the FFN
    "resid_cross",  # [b, pos, d_model] + cross-attention output; layers with cross-attention only
    "norm3",  # [b, pos, d_model] the norm around the FFN; layers with cross-attention only
    "resid_post",  # [b, pos, d_model] + FFN output
)


# What a stack records itself: `encoder.<leaf>`, `decoder.<leaf>`.
STACK_LEAVES = (
    "position_bias",  # [1, h, q, k] positional "relative" only (T5): the bias every layer's self-attention adds
    "final_norm",  # [b, pos, d_model] pre-norm stacks only: the last layer's output, normalized
)


# What the model records at the top level, under these bare names; models with a decoder only.
MODEL_LEAVES = (
    "logits",  # [b, t, vocab] next-token scores
    "probs",  # [b, t, vocab] their softmax
)
