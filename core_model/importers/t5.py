"""Import a pretrained T5 (T5 v1.0, T5 v1.1, Flan-T5; a Hugging Face folder) into core_model's encoder-decoder, traced
under the same names as ours, cross-attention included.

The folder holds `config.json` (model_type "t5"), `model.safetensors` and its tokenizer (a sentencepiece-style
Unigram `tokenizer.json`, or `spiece.model` alone: tokenizers.folder.read) as `save_pretrained` writes them; a folder with only `pytorch_model.bin` is refused before this
module is reached (checkpoints.check_files: a pickle can run code). T5 is our encoder-decoder with:
  - pre-norm layers and a final norm in each stack, all T5LayerNorm: weight × x / √(mean(x²) + eps), our "rmsnorm";
  - no position vector, but a learned bias per head on the self-attention scores, read by the bucket of each key's
    offset from its query (our positional "relative", nn/positional.py's relative_buckets): the table is stored in
    layer 0 of each stack (relative_attention_bias) and every layer of the stack adds it; bidirectional buckets in the
    encoder, causal ones in the decoder; cross-attention has none;
  - scores without 1/√d_k (ModelConfig.scale_scores false), no bias anywhere, no embedding scaling;
  - the FFN wo(act(wi(x))) (feed_forward_proj "relu", v1.0) or gated wo(act(wi_0(x)) × wi_1(x)) ("gated-gelu", v1.1,
    GELU's tanh form): our ffn "gated" with gate <- wi_0, linear1 <- wi_1;
  - one token embedding (`shared`) for both stacks; the output layer is it (tied) unless the file stores its own
    lm_head.weight (v1.1 saved by transformers 4: tie_word_embeddings false), which transformers 5 reads untied too;
  - the decoder's output × d_model^-0.5 before the output layer (ModelConfig.scale_output) where transformers does:
    config.json's scale_decoder_outputs (transformers 5) or, in older files, tie_word_embeddings (default true).
Its decoder starts from <pad> (decoder_start_token_id 0), as Marian's, so it never masks its first position
(ModelConfig.mask_padding); the encoder reads the text and then </s>.
Heads of their own width (d_kv other than d_model / num_heads: t5-v1_1-small's 6 × 64 over 512) are our head_dim. An
embedding rounded up past the tokenizer (t5-small's 32,128 rows for 32,100 tokens) names the extra ids <unused_k>.
What the core cannot reproduce is refused naming the field: a feed_forward_proj with an activation the core lacks.
"""
from __future__ import annotations

from pathlib import Path

import torch

from ..checkpoints import hub
from ..checkpoints import hub_encoder_decoder as seq2seq
from ..checkpoints.hub import NUMBER, SWITCH, TEXT, TOKEN_ID, Field
from ..checkpoints.safe_load import Loaded, check_size, read_hf_config, tensor_names
from ..config import ModelConfig
from ..nn.model import Transformer
from ..tokenizers import TokenizerLike
from ..tokenizers import folder as tokenizer_folder

# What the registry reads (checkpoints/registry.py).
MODEL_TYPES, FAMILY, FILES = ("t5",), "T5", tokenizer_folder.FILES  # tokenizer.json, or spiece.model alone

# feed_forward_proj: "{act}" or "gated-{act}", the activation by transformers' name -> ours ("gated-gelu" is GELU's
# tanh form, as transformers reads it for the checkpoints trained so)
ACTIVATIONS = {"relu": "relu", "gelu": "gelu", "gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh",
               "silu": "silu", "swish": "silu"}
FEED_FORWARD = {**{act: ("plain", ours) for act, ours in ACTIVATIONS.items()},
                **{f"gated-{act}": ("gated", ours) for act, ours in ACTIVATIONS.items()},
                "gated-gelu": ("gated", "gelu_tanh")}
CONFIG = hub.HubConfig(
    FAMILY,
    fields={  # our field <- its key
        "src_vocab_size": Field("vocab_size"), "tgt_vocab_size": Field("vocab_size"), "d_model": Field("d_model"),
        "n_heads": Field("num_heads"), "head_dim": Field("d_kv", default=64), "n_encoder_layers": Field("num_layers"),
        "n_decoder_layers": Field("num_decoder_layers", default=None), "d_ff": Field("d_ff"),
        "ffn": Field("feed_forward_proj", TEXT, "relu", {k: v[0] for k, v in FEED_FORWARD.items()}),
        "activation": Field("feed_forward_proj", TEXT, "relu", {k: v[1] for k, v in FEED_FORWARD.items()}),
        "relative_buckets": Field("relative_attention_num_buckets", default=32),
        "relative_max_distance": Field("relative_attention_max_distance", default=128),
        "norm_eps": Field("layer_norm_epsilon", NUMBER, 1e-6), "max_len": Field("n_positions", default=512),
        "pad_id": Field("pad_token_id", TOKEN_ID, 0), "eos_id": Field("eos_token_id", TOKEN_ID, 1),
        "bos_id": Field("decoder_start_token_id", TOKEN_ID),  # the decoder's first token: <pad>
        "scale_output": Field("tie_word_embeddings", SWITCH, True),  # older files; scale_decoder_outputs: `config`
    },
    needs={"is_encoder_decoder": True},
    architectures=("T5ForConditionalGeneration", "T5WithLMHeadModel"),
    fixed=dict(architecture="encoder-decoder", dropout=0.0, norm="rmsnorm", norm_placement="pre",
               positional="relative", scale_scores=False, bias=False, ffn_bias=False, scale_embedding=False,
               embed_norm=False, output_bias=False, mask_padding=True))
SCALE_OUTPUT = Field("scale_decoder_outputs", SWITCH, None)  # transformers 5 writes it, and a true tie beside it

# our name <- its name, in every layer (each with .weight only: T5 has no biases)
ATTENTION = {"q_proj": "q", "k_proj": "k", "v_proj": "v", "out_proj": "o"}
FFN = {"plain": {"ffn.linear1": "wi", "ffn.linear2": "wo"},
       "gated": {"ffn.gate": "wi_0", "ffn.linear1": "wi_1", "ffn.linear2": "wo"}}
# each stack's blocks: our attention block, norm after it <- its sublayer (layer.i), and what that sublayer holds
BLOCKS = {"encoder": (("self_attn", "norm1", "SelfAttention"), ("ffn", "norm2", "DenseReluDense")),
          "decoder": (("self_attn", "norm1", "SelfAttention"), ("cross_attn", "norm2", "EncDecAttention"),
                      ("ffn", "norm3", "DenseReluDense"))}
BIAS_TABLE = "block.0.layer.0.SelfAttention.relative_attention_bias.weight"  # under each stack's name
COPIES = ("encoder.embed_tokens.weight", "decoder.embed_tokens.weight")  # shared.weight's, in older files


def load(path, name: str = "") -> Loaded:
    """Load a T5 folder as an encoder-decoder core_model with its sentencepiece-style tokenizer."""
    path = Path(path)
    untied = "lm_head.weight" in tensor_names(path)
    values = read_config(read_hf_config(path))  # before the tokenizer file: the config's fault is named first
    tokenizers = read_tokenizers(path, values)
    cfg = CONFIG.model_config(values, tie_embeddings=not untied, unk_id=tokenizers["src"].unk_id)
    for tokenizer in tokenizers.values():  # the hub's t5-small: 32,128 rows for 32,100 tokens
        hub.fit_vocab(tokenizer, cfg.src_vocab_size, FILES[0])
    check_size(cfg)  # a config asking for a huge model is refused before the model is built
    expected = shapes(cfg)
    theirs = hub.read_shaped(path, expected, {n: n for n in expected}, COPIES + (() if untied else ("lm_head.weight",)))
    model = Transformer.empty(cfg)
    model.fill(state_dict(theirs, cfg))
    card = seq2seq.card(path, name or path.name, cfg, FAMILY, "a text-to-text model: relative position buckets, a "
                        "sentencepiece vocabulary", "<pad>")
    return Loaded(model.eval(), cfg, tokenizers, card, path)


def read_config(hf: dict) -> dict:
    """Our fields' values from config.json (CONFIG, then T5's own arithmetic)."""
    values = CONFIG.read(hf)
    d_kv = values["head_dim"]  # each head's width: our head_dim (0 where it is d_model / num_heads)
    values["head_dim"] = 0 if d_kv * values["n_heads"] == values["d_model"] else d_kv
    if values["n_decoder_layers"] is None:
        values["n_decoder_layers"] = values["n_encoder_layers"]  # transformers' default: as many as the encoder
    scale = SCALE_OUTPUT.read(hf, FAMILY)
    values["scale_output"] = values["scale_output"] if scale is None else scale
    return values


def layer_names(cfg: ModelConfig) -> dict[str, str]:
    """Every layer's weight: our name <- its name (sublayer j of block i: our j-th block and the norm before it)."""
    out = {}
    for stack, blocks in BLOCKS.items():
        for i in range(getattr(cfg, f"n_{stack}_layers")):
            for j, (block, norm, part) in enumerate(blocks):
                table = FFN[cfg.ffn] if block == "ffn" else {f"{block}.{p}": its for p, its in ATTENTION.items()}
                theirs = f"{stack}.block.{i}.layer.{j}"
                out.update({f"{stack}.layers.{i}.{mine}.weight": f"{theirs}.{part}.{its}.weight"
                            for mine, its in table.items()})
                out[f"{stack}.layers.{i}.{norm}.weight"] = f"{theirs}.layer_norm.weight"
    return out


def shapes(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """Every tensor the import reads, by its name in the file, with its shape (nn.Linear's [out, in])."""
    d, ff, vocab, inner = cfg.d_model, cfg.d_ff, cfg.tgt_vocab_size, cfg.n_heads * cfg.d_head
    out = {"shared.weight": (vocab, d)}
    sizes = {"layer_norm": (d,), "wo": (d, ff), "wi": (ff, d), "wi_0": (ff, d), "wi_1": (ff, d), "o": (d, inner)}
    for theirs in layer_names(cfg).values():
        out[theirs] = sizes.get(theirs.split(".")[-2], (inner, d))  # q, k, v: [heads × d_kv, d_model]
    for stack in BLOCKS:
        out[f"{stack}.final_layer_norm.weight"] = (d,)
        out[f"{stack}.{BIAS_TABLE}"] = (cfg.relative_buckets, cfg.n_heads)
    if not cfg.tie_embeddings:
        out["lm_head.weight"] = (vocab, d)
    return out


def state_dict(theirs: dict[str, torch.Tensor], cfg: ModelConfig) -> dict[str, torch.Tensor]:
    """Our model's tensors from the file's (named as in `shapes`)."""
    shared = theirs["shared.weight"]
    ours = {"src_embed.tok.weight": shared, "tgt_embed.tok.weight": shared,
            "generator.weight": shared if cfg.tie_embeddings else theirs["lm_head.weight"]}
    ours.update({mine: theirs[its] for mine, its in layer_names(cfg).items()})
    for stack in BLOCKS:
        ours[f"{stack}.final_norm.weight"] = theirs[f"{stack}.final_layer_norm.weight"]
        ours[f"{stack}.relative_bias.weight"] = theirs[f"{stack}.{BIAS_TABLE}"]
    return ours


def read_tokenizers(path: Path, values: dict) -> dict[str, TokenizerLike]:
    """The folder's tokenizer twice (tokenizers.folder.read: the sentencepiece-style tokenizer.json, else
    spiece.model): the encoder's frames the text as T5's does (… </s>), the decoder's reads it as it is and starts
    from decoder_start_token_id (<pad>); <unk> is the token the tokenizer files name."""
    roles = {"pad": values["pad_id"], "unk": None, "bos": values["bos_id"], "eos": values["eos_id"]}
    file = next((f for f in FILES if (path / f).is_file()), FILES[0])  # the file a refusal names
    # the encoder's … </s>: tokenizer.json's post-processor writes it (frames_input); a spiece.model read alone
    # frames [bos] … [eos] where frames_input, so there it ends with eos only
    json = (path / tokenizer_folder.JSON).is_file()
    return {side: hub.read_tokenizer(file, tokenizer_folder.read, path, roles, side == "src" and json,
                                     ends_with_eos=side == "src") for side in ("src", "tgt")}
