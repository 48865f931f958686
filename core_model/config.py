"""The model's configuration: one frozen, validated dataclass, saved as config.json."""
from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass

from .messages import CodedError, listed, listed_fields, shortened

ARCHITECTURES = ("encoder-decoder", "encoder", "decoder")
# gelu_tanh: GELU's tanh approximation (GPT-2's "gelu_new"); silu: x·sigmoid(x) (Marian's "swish")
ACTIVATIONS = ("relu", "gelu", "gelu_tanh", "silu")
NORMS = ("layernorm", "rmsnorm")
NORM_PLACEMENTS = ("post", "pre")
# relative: T5's learned bias per head on the self-attention scores, read from a table by the bucket of the key's
# offset from the query (relative_buckets, relative_max_distance); no position vector is added to the tokens.
POSITIONALS = ("sinusoidal", "learned", "rope", "alibi", "relative", "none")
# Where the sinusoid's sines and cosines sit: interleaved as in the paper (sin at 2i, cos at 2i+1), or in halves,
# every sine first and every cosine after (Marian's table, as fairseq and Marian's C++ lay it out).
SINUSOIDAL_LAYOUTS = ("interleaved", "halves")
# Which dimensions of a head RoPE rotates together: interleaved pairs (2i, 2i+1) as in RoFormer, or halves, i with
# d_head/2 + i (GPT-NeoX's and Llama's rotate_half).
ROPE_LAYOUTS = ("interleaved", "halves")
# How a layer arranges its two blocks: "sequential" as in the paper (the FFN reads the sum after self-attention);
# "parallel": both read the layer's input, each through its own norm, x + attn(norm1(x)) + ffn(norm2(x)) (GPT-NeoX's
# use_parallel_residual); "parallel_shared": both read one norm, x + attn(norm1(x)) + ffn(norm1(x)) (Phi, GPT-J).
BLOCKS = ("sequential", "parallel", "parallel_shared")
# How RoPE's frequencies are stretched for a context longer than pretraining's (transformers' rope_type): none; linear
# (every frequency / rope_factor, i.e. positions / rope_factor); llama3 (Llama 3.1's: pairs whose wavelength is above
# rope_original_max_len / rope_low_freq_factor turn rope_factor times slower, those below rope_original_max_len /
# rope_high_freq_factor are kept, those between blend the two; nn.positional.RopeScaling).
ROPE_SCALINGS = ("none", "linear", "llama3")
# The position-wise FFN: plain linear2(act(linear1(x))), or gated linear2(act(gate(x)) * linear1(x)) (Llama's SwiGLU).
FFNS = ("plain", "gated")
# Fields added after configs were first saved: a config.json without them takes the default.
OPTIONAL = ("max_positions", "output_bias", "mask_padding", "sinusoidal_layout", "n_kv_heads", "rope_layout", "ffn",
            "ffn_bias", "attn_out_bias", "scale_scores", "rope_dims", "block", "qkv_bias", "window", "window_layers",
            "head_dim", "rope_scaling", "rope_factor", "rope_low_freq_factor", "rope_high_freq_factor",
            "rope_original_max_len", "forced_bos_id", "relative_buckets", "relative_max_distance", "scale_output",
            "d_embed", "mlm_head")


@dataclass(frozen=True)
class ModelConfig:
    architecture: str = "encoder-decoder"
    src_vocab_size: int = 1000  # ignored by a decoder-only model
    tgt_vocab_size: int = 1000  # ignored by an encoder-only model
    d_model: int = 64
    n_heads: int = 4
    # Key/value heads of self-attention; 0 = n_heads (plain multi-head). Fewer is grouped-query attention (1: multi-
    # query): each K/V head serves n_heads / n_kv_heads consecutive query heads (kv_head). Cross-attention keeps n_heads.
    n_kv_heads: int = 0
    # The width of each head (d_k); 0 = d_model / n_heads. Another (Gemma: 3072 wide, 16 heads of 256) makes W_Q
    # [d_model, n_heads·head_dim], W_K and W_V [d_model, kv_heads·head_dim] and W_O [n_heads·head_dim, d_model].
    head_dim: int = 0
    n_encoder_layers: int = 2
    n_decoder_layers: int = 2
    d_ff: int = 256
    ffn: str = "plain"  # "gated": linear2(act(gate(x)) * linear1(x)) (FFNS)
    ffn_bias: bool = True  # biases in the FFN's linear layers (Llama has none)
    dropout: float = 0.1
    activation: str = "relu"
    norm: str = "layernorm"
    norm_placement: str = "post"  # "post" as in the paper, "pre" as in GPT-2
    block: str = "sequential"  # "parallel", "parallel_shared": both blocks read the layer's input (BLOCKS); pre-norm
    norm_eps: float = 1e-5
    positional: str = "sinusoidal"
    positional_base: float = 10000.0  # the 10000 of the sinusoid and of RoPE
    sinusoidal_layout: str = "interleaved"  # a sinusoidal model's order of sines and cosines (SINUSOIDAL_LAYOUTS)
    rope_layout: str = "interleaved"  # which dimensions RoPE rotates together (ROPE_LAYOUTS)
    # How many of each head's dimensions RoPE turns, the first ones (partial rotary: GPT-NeoX's rotary_pct, Phi's
    # partial_rotary_factor); the rest pass unturned. 0 = all d_head of them (rotary_dims).
    rope_dims: int = 0
    rope_scaling: str = "none"  # RoPE's frequencies stretched for a longer context (ROPE_SCALINGS), with:
    rope_factor: float = 1.0  # linear and llama3: how many times longer the context (the slow pairs turn so slower)
    rope_low_freq_factor: float = 1.0  # llama3: pairs with wavelength above original / low are divided by rope_factor
    rope_high_freq_factor: float = 4.0  # llama3: pairs with wavelength below original / high are kept
    rope_original_max_len: int = 8192  # llama3: the context length of pretraining, before the scaling
    # positional "relative" (T5): how many buckets of key-minus-query offsets each stack's bias table has (half for
    # keys before the query, half after, in the encoder; all before, in the causal decoder), and the offset from
    # which on every offset shares the last bucket. Offsets below half a side's buckets have a bucket each, longer
    # ones share buckets that widen logarithmically up to relative_max_distance.
    relative_buckets: int = 32
    relative_max_distance: int = 128
    max_len: int = 512  # the longest sequence training used, and what decoding and the app offer
    # How many positions a forward pass accepts; 0 = max_len. Only a model with no table per position
    # (ALiBi, RoPE, T5's relative, none) can read past max_len: lm-en, trained at 512, reads 2,048 (see its card).
    max_positions: int = 0
    scale_embedding: bool = True  # multiply token embeddings by sqrt(d_model), as in the paper
    tie_embeddings: bool = False  # output projection shares the target embedding matrix
    embed_norm: bool = False  # a norm right after the embedding sum (BERT)
    # A factorised embedding: 0 = none, the embeddings are d_model wide. Else the token, position and token-type
    # vectors (and embed_norm) are d_embed wide, and a linear layer with a bias (Embeddings.project) maps their
    # (normalized) sum to d_model before layer 0 (ALBERT's embedding_hidden_mapping_in, ELECTRA's embeddings_project).
    d_embed: int = 0
    type_vocab_size: int = 0  # token-type (segment) embeddings; 0 = none (BERT uses 2)
    bias: bool = True  # biases in the attention projections: Q, K, V, and W_O unless attn_out_bias is false
    attn_out_bias: bool = True  # false: no bias in W_O even where `bias` gives Q, K and V theirs (Qwen2)
    qkv_bias: bool = True  # false: no bias in Q, K and V even where `bias` gives W_O its own (GPT-Neo)
    scale_scores: bool = True  # attention's 1/√d_k; false for a model trained without it (T5, GPT-Neo)
    # Local (sliding-window) attention in the decoder's self-attention: in the layers listed in window_layers a query
    # sees only itself and the window - 1 tokens before it (GPT-Neo's local layers, Mistral's sliding_window); the
    # other layers see every earlier token. window 0 = no window, and then window_layers is empty.
    window: int = 0
    window_layers: tuple[int, ...] = ()  # decoder layer indices, ascending (a JSON list reads as a tuple)
    output_bias: bool = True  # a bias in the output layer (GPT-2's output, tied to its embedding, has none)
    scale_output: bool = False  # the decoder's output × 1/√d_model before the output layer (T5 v1.0, tied)
    # An encoder's masked-LM head (BERT's cls.predictions): the encoder's output is then its logits over the vocabulary,
    # generator(norm(act(dense(h)))) (MaskedLMTransform: dense is d_model -> d_embed or d_model), the generator tied to
    # the token embedding, with a bias; false: the encoder's output is its last hidden state.
    mlm_head: bool = False
    # Whether keys holding pad_id are blocked. False for a vocabulary with no token kept for padding alone:
    # GPT-2 pads with <|endoftext|>, its bos and eos too, which a padding mask would hide from every query.
    # Decoder-only models only: their batches are padded on the right, where the causal mask already keeps
    # every real token from the padding after it (what the padding's own rows attend to changes no real token).
    # A decoder whose start token is pad_id (Marian starts decoding from <pad>: bos_id == pad_id) keeps masking its
    # padding, but never its first position, which holds that start token (Transformer.decode).
    mask_padding: bool = True
    pad_id: int = 0
    unk_id: int = 1
    bos_id: int = 2
    eos_id: int = 3
    # An encoder-decoder's second start token, after bos_id, or None: the target language's code an mBART-50 is made
    # to write first (transformers' forced_bos_token_id). Its decoder reads decoder_start = (bos_id, forced_bos_id).
    forced_bos_id: int | None = None

    def __post_init__(self):
        if isinstance(self.window_layers, list):  # as config.json holds it
            object.__setattr__(self, "window_layers", tuple(self.window_layers))
        for problem in self._problems():
            raise ValueError(problem)

    def _problems(self):
        """Every reason this config cannot build a model, in the order they are reported."""
        yield from self._choice_problems()
        yield from self._count_problems()
        yield from self._shape_problems()
        yield from self._position_problems()
        yield from self._relative_problems()
        yield from self._number_problems()
        yield from self._stack_problems()
        yield from self._switch_problems()
        yield from self._window_problems()
        yield from self._special_id_problems()

    def _choice_problems(self):
        for name, options in (("architecture", ARCHITECTURES), ("activation", ACTIVATIONS), ("norm", NORMS),
                              ("norm_placement", NORM_PLACEMENTS), ("positional", POSITIONALS),
                              ("sinusoidal_layout", SINUSOIDAL_LAYOUTS), ("rope_layout", ROPE_LAYOUTS),
                              ("ffn", FFNS), ("block", BLOCKS), ("rope_scaling", ROPE_SCALINGS)):
            value = getattr(self, name)
            if value not in options:
                yield f"{name} is {value!r}, but must be one of: {', '.join(options)}."
        if self.sinusoidal_layout == "halves" and self.positional != "sinusoidal":
            yield f"sinusoidal_layout is 'halves', but positional is {self.positional!r}: only a sinusoid has a layout."
        if self.rope_layout == "halves" and self.positional != "rope":
            yield f"rope_layout is 'halves', but positional is {self.positional!r}: only RoPE has a rotation layout."
        if self.block != "sequential" and (self.norm_placement != "pre" or self.architecture == "encoder-decoder"):
            yield (f"block is {self.block!r}, but a parallel block is pre-norm and has no cross-attention: it needs "
                   "norm_placement 'pre' and no encoder-decoder architecture.")
        if self.rope_scaling != "none" and self.positional != "rope":
            yield f"rope_scaling is {self.rope_scaling!r}, but positional is {self.positional!r}: only RoPE is scaled."

    def _count_problems(self):
        """Sizes are whole numbers of at least 1; layer counts, type vocabulary and ids of at least 0."""
        positive = ["d_model", "n_heads", "d_ff", "max_len", "rope_original_max_len"]
        positive += [f"{side}_vocab_size" for side in self.sides]
        for name in positive:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                yield f"{name} is {value!r}, but must be a whole number of at least 1."
        for name in ("n_kv_heads", "head_dim", "rope_dims", "d_embed", "n_encoder_layers", "n_decoder_layers",
                     "type_vocab_size", "max_positions", "window", "pad_id", "unk_id", "bos_id", "eos_id"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                yield f"{name} is {value!r}, but must be a whole number of at least 0."

    def _shape_problems(self):
        """Widths that heads, RoPE's pairs and the sinusoid's sine/cosine pairs must divide."""
        if isinstance(self.d_model, int) and isinstance(self.n_heads, int) and self.n_heads > 0 \
                and self.d_model % self.n_heads and not self.head_dim:
            yield f"d_model ({self.d_model}) must be divisible by n_heads ({self.n_heads}), or head_dim set."
        elif self.positional == "rope" and self.d_head % 2:
            yield (f"RoPE rotates pairs of dimensions, so each head's width ({self.d_head}: head_dim, or d_model / "
                   "n_heads) must be even.")
        yield from self._rope_dims_problems()
        kv, heads = self.n_kv_heads, self.n_heads
        if isinstance(kv, int) and kv > 0 and isinstance(heads, int) and heads > 0 and heads % kv:
            yield (f"n_kv_heads ({kv}) must divide n_heads ({heads}): each key/value head serves the same number "
                   "of query heads.")
        width, name = (self.d_embed, "d_embed") if self.d_embed else (self.d_model, "d_model")
        if self.positional == "sinusoidal" and isinstance(width, int) and width % 2:
            yield f"the sinusoidal encoding pairs sines and cosines, so {name} ({width}) must be even."

    def _rope_dims_problems(self):
        """RoPE turns pairs among the head's dimensions: rope_dims is even, at most d_head, and only RoPE has it."""
        dims = self.rope_dims
        if not dims or isinstance(dims, bool) or not isinstance(dims, int) or dims < 0:
            return  # 0, or no count (_count_problems names it)
        if self.positional != "rope":
            yield f"rope_dims is {dims}, but positional is {self.positional!r}: only RoPE turns a part of each head."
        elif dims % 2 or dims > self.d_head:
            yield f"rope_dims ({dims}) must be even and at most the head's width ({self.d_head})."

    def _position_problems(self):
        """max_positions may only extend max_len, and only where no per-position table ends at max_len."""
        n, length = self.max_positions, self.max_len
        if not (isinstance(n, int) and isinstance(length, int)) or isinstance(n, bool) or not n:
            return
        if self.positional in ("sinusoidal", "learned"):
            yield (f"max_positions is {n}, but a {self.positional} model has a table of max_len ({length}) "
                   "positions and reads no further: max_positions must be 0.")
        elif n < length:
            yield f"max_positions ({n}) must be 0 or at least max_len ({length})."

    def _relative_problems(self):
        """T5's buckets: a side's exact half must hold at least one offset, and the widening half must reach past it."""
        buckets, distance = self.relative_buckets, self.relative_max_distance
        for name, value in (("relative_buckets", buckets), ("relative_max_distance", distance)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 4:
                yield f"{name} is {value!r}, but must be a whole number of at least 4."
                return
        if distance <= buckets // 2:
            yield (f"relative_max_distance ({distance}) must be above relative_buckets / 2 ({buckets // 2}): the "
                   "offsets with a bucket each end there.")

    def _number_problems(self):
        if not (isinstance(self.dropout, (int, float)) and 0 <= self.dropout < 1):
            yield f"dropout is {self.dropout!r}, but must be a number from 0 up to (not including) 1."
        if not (isinstance(self.norm_eps, (int, float)) and 0 < self.norm_eps < 1):
            yield f"norm_eps is {self.norm_eps!r}, but must be a small positive number."
        if not (isinstance(self.positional_base, (int, float)) and self.positional_base > 1
                and self.positional_base <= sys.float_info.max):  # it is raised to float powers
            yield f"positional_base is {shortened(repr(self.positional_base), 40)}, but must be a number above 1."
        yield from self._rope_scaling_problems()

    def _rope_scaling_problems(self):
        for name in ("rope_factor", "rope_low_freq_factor", "rope_high_freq_factor"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < 1e6):
                yield f"{name} is {shortened(repr(value), 40)}, but must be a positive number."
        if self.rope_scaling == "llama3" and not self.rope_low_freq_factor < self.rope_high_freq_factor:
            yield (f"rope_high_freq_factor ({self.rope_high_freq_factor}) must be above rope_low_freq_factor "
                   f"({self.rope_low_freq_factor}): llama3's blend lies between the two.")

    def _stack_problems(self):
        for name, stack, needed in (("n_encoder_layers", "encoder", self.has_encoder),
                                    ("n_decoder_layers", "decoder", self.has_decoder)):
            value = getattr(self, name)
            if needed and value < 1:
                yield f"{name} is {value}, but architecture {self.architecture!r} needs at least one {stack} layer."

    def _switch_problems(self):
        for name in ("scale_embedding", "tie_embeddings", "embed_norm", "bias", "attn_out_bias", "output_bias",
                     "mask_padding", "ffn_bias", "scale_scores", "qkv_bias", "scale_output", "mlm_head"):
            value = getattr(self, name)
            if not isinstance(value, bool):  # a "false" string would be truthy
                yield f"{name} is {value!r}, but must be true or false."
        if self.tie_embeddings and self.architecture == "encoder":
            yield "tie_embeddings shares the target embedding with the output layer, which an encoder model has not got."
        if self.mlm_head is True and self.architecture != "encoder":
            yield f"mlm_head is an encoder's output layer, but architecture is {self.architecture!r}."
        if self.mask_padding is False and self.has_encoder:
            yield ("mask_padding is false, but an encoder would then read its padding: only a decoder-only model, "
                   "padded on the right, may leave it unmasked.")

    def _window_problems(self):
        """window_layers: distinct decoder layers in ascending order, listed exactly when there is a window."""
        layers, n = self.window_layers, self.n_decoder_layers
        if not isinstance(layers, tuple) or not all(isinstance(i, int) and not isinstance(i, bool) for i in layers):
            yield f"window_layers is {shortened(repr(layers), 60)}, but must be a list of decoder layer indices."
        elif list(layers) != sorted(set(layers)) or (layers and not 0 <= layers[0] <= layers[-1] < n):
            yield (f"window_layers is {shortened(repr(list(layers)), 60)}, but must list distinct decoder layers "
                   f"from 0 to n_decoder_layers - 1 ({n} - 1) in ascending order.")
        elif isinstance(self.window, int) and bool(self.window) != bool(layers):
            yield (f"window is {self.window} and window_layers is {list(layers)}: a window needs the layers that use "
                   "it, and layers need a window.")

    def _special_id_problems(self):
        forced = self.forced_bos_id
        if forced is not None and (isinstance(forced, bool) or not isinstance(forced, int) or forced < 0):
            yield f"forced_bos_id is {forced!r}, but must be null or a whole number of at least 0."
        elif forced is not None and self.architecture != "encoder-decoder":
            yield "forced_bos_id is an encoder-decoder's second start token; a decoder-only model continues its prompt."
        elif forced is not None and isinstance(self.tgt_vocab_size, int) and forced >= self.tgt_vocab_size:
            yield f"forced_bos_id ({forced}) must be below tgt_vocab_size ({self.tgt_vocab_size})."
        for side in self.sides:
            size = getattr(self, f"{side}_vocab_size")
            for name in ("pad_id", "unk_id", "bos_id", "eos_id"):
                ident = getattr(self, name)
                if isinstance(size, int) and isinstance(ident, int) and ident >= size:
                    yield f"{name} ({ident}) must be below {side}_vocab_size ({size})."

    @property
    def sides(self) -> tuple[str, ...]:
        """Which vocabularies the model uses: 'src' (encoder input), 'tgt' (decoder input and output)."""
        return {"encoder-decoder": ("src", "tgt"), "encoder": ("src",), "decoder": ("tgt",)}[self.architecture]

    @property
    def positions(self) -> int:
        """How many positions a forward pass accepts: max_positions if set, else max_len."""
        return self.max_positions or self.max_len

    @property
    def decoder_start(self) -> tuple[int, ...]:
        """The ids a decoder reads before its first output: bos_id, then forced_bos_id if set."""
        return (self.bos_id,) if self.forced_bos_id is None else (self.bos_id, self.forced_bos_id)

    @property
    def d_head(self) -> int:
        """Each head's width d_k: head_dim, or d_model / n_heads when it is 0."""
        return self.head_dim or self.d_model // self.n_heads

    @property
    def rotary_dims(self) -> int:
        """How many dimensions of each head RoPE turns (the first ones): rope_dims, or d_head when it is 0."""
        return self.rope_dims or self.d_head

    @property
    def kv_heads(self) -> int:
        """How many key/value heads self-attention has: n_kv_heads, or n_heads when it is 0."""
        return self.n_kv_heads or self.n_heads

    def kv_head(self, head: int) -> int:
        """The key/value head that query head `head` reads (itself, without grouped-query attention)."""
        return head // (self.n_heads // self.kv_heads)

    def query_heads(self, kv_head: int) -> range:
        """The query heads that share key/value head `kv_head`."""
        group = self.n_heads // self.kv_heads
        return range(kv_head * group, (kv_head + 1) * group)

    @property
    def has_encoder(self) -> bool:
        return self.architecture in ("encoder-decoder", "encoder")

    @property
    def has_decoder(self) -> bool:
        return self.architecture in ("encoder-decoder", "decoder")

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "ModelConfig":
        """Build from a parsed config.json; an unknown or missing field is named."""
        if not isinstance(data, dict):
            raise CodedError("config.json must hold a JSON object of field names and values.", "config_not_object",
                             {"file": "config.json"})
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise CodedError(f"config.json has unknown field(s): {listed(unknown)}.", "config_unknown",
                             {"file": "config.json", **listed_fields(unknown)})
        missing = sorted(known - set(data) - set(OPTIONAL))
        if missing:
            raise CodedError(f"config.json is missing field(s): {listed(missing)}.", "config_missing",
                             {"file": "config.json", **listed_fields(missing)})
        return cls(**data)
