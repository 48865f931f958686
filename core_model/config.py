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
POSITIONALS = ("sinusoidal", "learned", "rope", "alibi", "none")
# Where the sinusoid's sines and cosines sit: interleaved as in the paper (sin at 2i, cos at 2i+1), or in halves,
# every sine first and every cosine after (Marian's table, as fairseq and Marian's C++ lay it out).
SINUSOIDAL_LAYOUTS = ("interleaved", "halves")
# Which dimensions of a head RoPE rotates together: interleaved pairs (2i, 2i+1) as in RoFormer, or halves, i with
# d_head/2 + i (GPT-NeoX's and Llama's rotate_half).
ROPE_LAYOUTS = ("interleaved", "halves")
# The position-wise FFN: plain linear2(act(linear1(x))), or gated linear2(act(gate(x)) * linear1(x)) (Llama's SwiGLU).
FFNS = ("plain", "gated")
# Fields added after configs were first saved: a config.json without them takes the default.
OPTIONAL = ("max_positions", "output_bias", "mask_padding", "sinusoidal_layout", "n_kv_heads", "rope_layout", "ffn",
            "ffn_bias", "attn_out_bias", "scale_scores", "d_embed", "mlm_head")


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
    n_encoder_layers: int = 2
    n_decoder_layers: int = 2
    d_ff: int = 256
    ffn: str = "plain"  # "gated": linear2(act(gate(x)) * linear1(x)) (FFNS)
    ffn_bias: bool = True  # biases in the FFN's linear layers (Llama has none)
    dropout: float = 0.1
    activation: str = "relu"
    norm: str = "layernorm"
    norm_placement: str = "post"  # "post" as in the paper, "pre" as in GPT-2
    norm_eps: float = 1e-5
    positional: str = "sinusoidal"
    positional_base: float = 10000.0  # the 10000 of the sinusoid and of RoPE
    sinusoidal_layout: str = "interleaved"  # a sinusoidal model's order of sines and cosines (SINUSOIDAL_LAYOUTS)
    rope_layout: str = "interleaved"  # which dimensions RoPE rotates together (ROPE_LAYOUTS)
    max_len: int = 512  # the longest sequence training used, and what decoding and the app offer
    # How many positions a forward pass accepts; 0 = max_len. Only a model with no table per position
    # (ALiBi, RoPE, none) can read past max_len: lm-en, trained at 512, reads 2,048 (see its card).
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
    scale_scores: bool = True  # attention's 1/√d_k; false for a model trained without it (T5, GPT-Neo)
    output_bias: bool = True  # a bias in the output layer (GPT-2's output, tied to its embedding, has none)
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

    def __post_init__(self):
        for problem in self._problems():
            raise ValueError(problem)

    def _problems(self):
        """Every reason this config cannot build a model, in the order they are reported."""
        yield from self._choice_problems()
        yield from self._count_problems()
        yield from self._shape_problems()
        yield from self._position_problems()
        yield from self._number_problems()
        yield from self._stack_problems()
        yield from self._switch_problems()
        yield from self._special_id_problems()

    def _choice_problems(self):
        for name, options in (("architecture", ARCHITECTURES), ("activation", ACTIVATIONS), ("norm", NORMS),
                              ("norm_placement", NORM_PLACEMENTS), ("positional", POSITIONALS),
                              ("sinusoidal_layout", SINUSOIDAL_LAYOUTS), ("rope_layout", ROPE_LAYOUTS),
                              ("ffn", FFNS)):
            value = getattr(self, name)
            if value not in options:
                yield f"{name} is {value!r}, but must be one of: {', '.join(options)}."
        if self.sinusoidal_layout == "halves" and self.positional != "sinusoidal":
            yield f"sinusoidal_layout is 'halves', but positional is {self.positional!r}: only a sinusoid has a layout."
        if self.rope_layout == "halves" and self.positional != "rope":
            yield f"rope_layout is 'halves', but positional is {self.positional!r}: only RoPE has a rotation layout."

    def _count_problems(self):
        """Sizes are whole numbers of at least 1; layer counts, type vocabulary and ids of at least 0."""
        positive = ["d_model", "n_heads", "d_ff", "max_len"]
        positive += [f"{side}_vocab_size" for side in self.sides]
        for name in positive:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                yield f"{name} is {value!r}, but must be a whole number of at least 1."
        for name in ("n_kv_heads", "d_embed", "n_encoder_layers", "n_decoder_layers", "type_vocab_size", "max_positions",
                     "pad_id", "unk_id", "bos_id", "eos_id"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                yield f"{name} is {value!r}, but must be a whole number of at least 0."

    def _shape_problems(self):
        """Widths that heads, RoPE's pairs and the sinusoid's sine/cosine pairs must divide."""
        if isinstance(self.d_model, int) and isinstance(self.n_heads, int) and self.n_heads > 0 \
                and self.d_model % self.n_heads:
            yield f"d_model ({self.d_model}) must be divisible by n_heads ({self.n_heads})."
        elif self.positional == "rope" and self.d_head % 2:
            yield f"RoPE rotates pairs of dimensions, so d_model / n_heads ({self.d_head}) must be even."
        kv, heads = self.n_kv_heads, self.n_heads
        if isinstance(kv, int) and kv > 0 and isinstance(heads, int) and heads > 0 and heads % kv:
            yield (f"n_kv_heads ({kv}) must divide n_heads ({heads}): each key/value head serves the same number "
                   "of query heads.")
        width, name = (self.d_embed, "d_embed") if self.d_embed else (self.d_model, "d_model")
        if self.positional == "sinusoidal" and isinstance(width, int) and width % 2:
            yield f"the sinusoidal encoding pairs sines and cosines, so {name} ({width}) must be even."

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

    def _number_problems(self):
        if not (isinstance(self.dropout, (int, float)) and 0 <= self.dropout < 1):
            yield f"dropout is {self.dropout!r}, but must be a number from 0 up to (not including) 1."
        if not (isinstance(self.norm_eps, (int, float)) and 0 < self.norm_eps < 1):
            yield f"norm_eps is {self.norm_eps!r}, but must be a small positive number."
        if not (isinstance(self.positional_base, (int, float)) and self.positional_base > 1
                and self.positional_base <= sys.float_info.max):  # it is raised to float powers
            yield f"positional_base is {shortened(repr(self.positional_base), 40)}, but must be a number above 1."

    def _stack_problems(self):
        for name, stack, needed in (("n_encoder_layers", "encoder", self.has_encoder),
                                    ("n_decoder_layers", "decoder", self.has_decoder)):
            value = getattr(self, name)
            if needed and value < 1:
                yield f"{name} is {value}, but architecture {self.architecture!r} needs at least one {stack} layer."

    def _switch_problems(self):
        for name in ("scale_embedding", "tie_embeddings", "embed_norm", "bias", "attn_out_bias", "output_bias",
                     "mask_padding", "ffn_bias", "scale_scores", "mlm_head"):
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

    def _special_id_problems(self):
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
    def d_head(self) -> int:
        return self.d_model // self.n_heads

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
