"""Import a pretrained encoder-decoder of the Marian or BART family (a Hugging Face folder) into core_model's
encoder-decoder Transformer, traced under the same names as ours, cross-attention included.

The folder holds `config.json` (model_type "marian" or "bart") and `model.safetensors` as `save_pretrained`
writes them, and the tokenizer files beside them; a folder with only `pytorch_model.bin` is refused before this
module is reached (checkpoints.check_files: a pickle can run code). Both families are the paper's post-norm
encoder-decoder: each layer is self-attention (and in the decoder cross-attention), then the FFN, each followed
by residual + LayerNorm, with no final norm; the output layer is tied to the token embedding (or not, as the
config says) and adds `final_logits_bias`, a bias on the logits that becomes our generator's bias
(ModelConfig.output_bias). Only the tensor names change; every shape is checked, nothing is unpickled.

- Marian (opus-mt): sinusoidal positions whose sines fill the first half of the dimensions and the cosines the
  second (ModelConfig.sinusoidal_layout "halves"), token embeddings × √d_model if `scale_embedding`, SiLU for
  "swish". Tokenizer: source.spm and target.spm (sentencepiece) with vocab.json (tokenizers/marian.py);
  the encoder reads the text and then </s>.
- BART: learned positions with an offset of 2 (position p reads row p + 2 of the stored table; rows 0 and 1
  are never read, so the import keeps rows 2 … as our rows 0 …), a LayerNorm after the embedding sum
  (ModelConfig.embed_norm, BERT's too), exact GELU. Tokenizer: byte-level BPE (tokenizer.json); the encoder
  reads <s> … </s> (`frames_input`).

The decoder's first token: core_model's decoder always starts from bos_id, transformers' from the config's
`decoder_start_token_id` — <pad> for Marian, </s> for BART. So the import sets bos_id to that start token (the
decoder's <s>, whatever its text), and for BART eos_id is the same </s>; the encoder's <s> of BART is the source
tokenizer's own bos. Marian's start token is its pad token, so the decoder never masks its first position
(ModelConfig.mask_padding). What the core cannot reproduce is refused naming the field: a pre-norm or final-norm
variant (mBART's normalize_before, add_final_layer_norm), add_bias_logits, other attention heads or FFN widths
in the decoder than in the encoder, separate source and target vocabularies, an activation the core lacks.
Generation settings (forced_bos_token_id, forced_eos_token_id, bad_words_ids, num_beams, in config.json or
generation_config.json) are not read here.
"""
from __future__ import annotations

from pathlib import Path

import torch

from ..config import ModelConfig
from ..messages import coded, shortened
from ..nn.model import Transformer
from ..nn.positional import sinusoidal_table
from ..checkpoints.safe_load import (CheckpointError, Loaded, check_size, hf_model_type, read_hf_config, read_json_file,
                        read_tensors, required, tensor_names, within_limit)
from ..tokenizers import ByteLevelBPETokenizer, MarianTokenizer

FAMILIES = ("marian", "bart")
NAMES = {"marian": "Marian", "bart": "BART"}
# transformers' name of the activation -> ours
ACTIVATIONS = {"swish": "silu", "silu": "silu", "gelu": "gelu", "relu": "relu", "gelu_new": "gelu_tanh",
               "gelu_pytorch_tanh": "gelu_tanh"}
# Settings our layers cannot reproduce, some from configs older transformers wrote: a model must have each at
# this value (what transformers' own code does) to be imported.
NEEDS = {
    "marian": {"normalize_before": False, "add_final_layer_norm": False, "add_bias_logits": False,
               "normalize_embedding": False, "static_position_embeddings": True,
               "share_encoder_decoder_embeddings": True, "is_encoder_decoder": True},
    "bart": {"normalize_before": False, "add_final_layer_norm": False, "add_bias_logits": False,
             "normalize_embedding": True, "static_position_embeddings": False, "extra_pos_embeddings": 2,
             "is_encoder_decoder": True},
}
# One number our config holds once, which a config.json gives per stack: (encoder's field, decoder's field).
SAME = (("encoder_attention_heads", "decoder_attention_heads"), ("encoder_ffn_dim", "decoder_ffn_dim"))
BART_OFFSET = 2  # BartLearnedPositionalEmbedding reads row position + 2
MARIAN_FILES = ("source.spm", "target.spm", "vocab.json")
# What the registry reads (checkpoints/registry.py): BART reads tokenizer.json, Marian the three above.
MODEL_TYPES, FAMILY, FILES = FAMILIES, "Marian, BART", ("tokenizer.json", *MARIAN_FILES)

# our name <- its name, per layer ({i}); each with .weight and .bias
ATTENTION = ("q_proj", "k_proj", "v_proj", "out_proj")
ENCODER_LAYER = {**{f"self_attn.{p}": f"self_attn.{p}" for p in ATTENTION}, "norm1": "self_attn_layer_norm",
                 "ffn.linear1": "fc1", "ffn.linear2": "fc2", "norm2": "final_layer_norm"}
DECODER_LAYER = {**{f"self_attn.{p}": f"self_attn.{p}" for p in ATTENTION}, "norm1": "self_attn_layer_norm",
                 **{f"cross_attn.{p}": f"encoder_attn.{p}" for p in ATTENTION}, "norm2": "encoder_attn_layer_norm",
                 "ffn.linear1": "fc1", "ffn.linear2": "fc2", "norm3": "final_layer_norm"}
# Where the token embedding may be stored: tied, transformers keeps one of these copies, older files all three.
EMBEDDING = ("shared.weight", "encoder.embed_tokens.weight", "decoder.embed_tokens.weight")


def family(path: Path) -> str | None:
    """"marian" or "bart" if `path` looks like such a Hugging Face folder (rather than one of our checkpoints)."""
    kind = hf_model_type(path)
    return kind if kind in FAMILIES else None


def refuse(kind: str, name: str, want: str, got) -> CheckpointError:
    """The error for a setting of config.json that the import cannot reproduce."""
    got = shortened(repr(got), 60)
    return CheckpointError(f"config.json has {name} = {got}; only {want} can be imported.", code=f"{kind}_setting",
                           fields={"file": "config.json", "name": name, "want": want, "got": got})


def lacks(kind: str, name: str) -> CheckpointError:
    return CheckpointError(f"config.json lacks {name}, which a {NAMES[kind]} config has.", code=f"{kind}_lacks",
                           fields={"file": "config.json", "name": name})


def check_settings(hf: dict, kind: str) -> str:
    """Refuse what the core cannot reproduce, naming the field; return our activation's name."""
    for key, value in NEEDS[kind].items():
        if key in hf and (hf[key] != value or type(hf[key]) is not type(value)):
            raise refuse(kind, key, repr(value), hf[key])
    for ours, theirs in SAME:
        if ours in hf and theirs in hf and hf[ours] != hf[theirs]:
            raise refuse(kind, theirs, f"{ours} ({hf[ours]!r})", hf[theirs])
    if kind == "marian" and hf.get("decoder_vocab_size") not in (None, hf.get("vocab_size")):
        raise refuse(kind, "decoder_vocab_size", f"vocab_size ({hf.get('vocab_size')!r})", hf["decoder_vocab_size"])
    activation = hf.get("activation_function", "gelu")
    if activation not in ACTIVATIONS:
        raise refuse(kind, "activation_function", ", ".join(repr(a) for a in ACTIVATIONS), activation)
    return ACTIVATIONS[activation]


def special_ids(hf: dict, kind: str) -> dict[str, int]:
    """pad, eos, the decoder's start and (BART) the encoder's <s>, from config.json: each one token id."""
    fields = {"pad": "pad_token_id", "eos": "eos_token_id", "start": "decoder_start_token_id"}
    if kind == "bart":
        fields["bos"] = "bos_token_id"
    ids = {}
    for role, name in fields.items():
        if name not in hf:
            raise lacks(kind, name)
        value = hf[name]
        if isinstance(value, bool) or not isinstance(value, int):
            raise refuse(kind, name, "one token id", value)
        ids[role] = value
    return ids


def config_from_hf(hf: dict, kind: str, unk_id: int) -> ModelConfig:
    """Our config for a Marian or BART config.json; a setting we cannot reproduce is named."""
    activation, ids = check_settings(hf, kind), special_ids(hf, kind)
    try:
        return ModelConfig(
            architecture="encoder-decoder", src_vocab_size=hf["vocab_size"], tgt_vocab_size=hf["vocab_size"],
            d_model=hf["d_model"], n_heads=hf["encoder_attention_heads"], n_encoder_layers=hf["encoder_layers"],
            n_decoder_layers=hf["decoder_layers"], d_ff=hf["encoder_ffn_dim"], dropout=0.0, activation=activation,
            norm="layernorm", norm_placement="post", norm_eps=1e-5,  # transformers' nn.LayerNorm default
            positional="sinusoidal" if kind == "marian" else "learned",
            sinusoidal_layout="halves" if kind == "marian" else "interleaved",
            max_len=hf["max_position_embeddings"], scale_embedding=hf.get("scale_embedding", False),
            tie_embeddings=hf.get("tie_word_embeddings", True), embed_norm=kind == "bart", bias=True,
            output_bias=True, mask_padding=True, pad_id=ids["pad"], unk_id=unk_id, bos_id=ids["start"],
            eos_id=ids["eos"])
    except KeyError as e:
        raise lacks(kind, str(e.args[0])) from None
    except (TypeError, ValueError) as e:
        raise CheckpointError(f"config.json: {e}", code="config_invalid",
                              fields={"file": "config.json", "detail": str(e)}) from None


def embedding_sources(stored: set[str], tied: bool) -> dict[str, str]:
    """The stored tensor each side's token embedding is read from, by its name without the prefix. Tied (the output
    layer shares it), transformers ties every copy to one; untied, each stack keeps its own (encoder.embed_tokens,
    decoder.embed_tokens), and shared.weight stands in for a copy the file lacks."""
    if tied:
        first = next((e for e in EMBEDDING if e in stored), EMBEDDING[0])  # none: read_tensors names it
        return {"src": first, "tgt": first}
    return {side: next((e for e in (f"{stack}.embed_tokens.weight", EMBEDDING[0]) if e in stored), EMBEDDING[0])
            for side, stack in (("src", "encoder"), ("tgt", "decoder"))}


def shapes(cfg: ModelConfig, kind: str, stored: set[str], sources: dict[str, str]) -> dict[str, tuple[int, ...]]:
    """Every tensor the import reads, by its name in the file without the "model." prefix, with its shape.
    `stored` (the file's names, unprefixed) decides the optional ones: final_logits_bias, and a Marian
    position table that older files kept (checked against the sinusoid, not read)."""
    d, ff, vocab = cfg.d_model, cfg.d_ff, cfg.tgt_vocab_size
    out = {name: (vocab, d) for name in sources.values()}
    for stack in ("encoder", "decoder"):
        if kind == "bart":
            out[f"{stack}.embed_positions.weight"] = (cfg.max_len + BART_OFFSET, d)
            out[f"{stack}.layernorm_embedding.weight"] = out[f"{stack}.layernorm_embedding.bias"] = (d,)
        elif f"{stack}.embed_positions.weight" in stored:
            out[f"{stack}.embed_positions.weight"] = (cfg.max_len, d)
        layer = ENCODER_LAYER if stack == "encoder" else DECODER_LAYER
        for i in range(getattr(cfg, f"n_{stack}_layers")):
            for theirs in layer.values():
                wide = {"fc1": (ff, d), "fc2": (d, ff)}.get(theirs, (d, d))
                out[f"{stack}.layers.{i}.{theirs}.weight"] = (d,) if "layer_norm" in theirs else wide
                out[f"{stack}.layers.{i}.{theirs}.bias"] = (ff,) if theirs == "fc1" else (d,)
    if "final_logits_bias" in stored:
        out["final_logits_bias"] = (1, vocab)
    if not cfg.tie_embeddings:
        out["lm_head.weight"] = (vocab, d)
    return out


def file_names(path: Path, cfg: ModelConfig, kind: str) -> tuple[dict, dict, tuple[str, ...], dict]:
    """(the shapes to read, file name -> name in `shapes`, names to leave out, embedding_sources). A
    ...ForConditionalGeneration / MarianMTModel saves its body under "model.", a BartModel / MarianModel without;
    lm_head and final_logits_bias never have the prefix. A copy of the token embedding that is not read is left
    out, as is a tied lm_head."""
    names = tensor_names(path)
    prefix = "model." if any(n.startswith("model.") for n in names) else ""
    stored = {n.removeprefix(prefix) for n in names}
    sources = embedding_sources(stored, cfg.tie_embeddings)
    expected = shapes(cfg, kind, stored, sources)
    rename = {(n if n in ("lm_head.weight", "final_logits_bias") else prefix + n): n for n in expected}
    ignore = tuple(prefix + e for e in EMBEDDING if e not in sources.values())
    return expected, rename, ignore + (("lm_head.weight",) if cfg.tie_embeddings else ()), sources


def state_dict(theirs: dict[str, torch.Tensor], cfg: ModelConfig, kind: str,
               sources: dict[str, str]) -> dict[str, torch.Tensor]:
    """Our model's tensors from the file's (named as in `shapes`)."""
    src, tgt = theirs[sources["src"]], theirs[sources["tgt"]]
    bias = theirs.get("final_logits_bias", torch.zeros(1, cfg.tgt_vocab_size))  # transformers' zeros if absent
    ours = {"src_embed.tok.weight": src, "tgt_embed.tok.weight": tgt, "generator.bias": bias[0],
            "generator.weight": tgt if cfg.tie_embeddings else theirs["lm_head.weight"]}
    for side, stack in (("src", "encoder"), ("tgt", "decoder")):
        if kind == "bart":
            ours[f"{side}_embed.pos.weight"] = theirs[f"{stack}.embed_positions.weight"][BART_OFFSET:]
            for leaf in ("weight", "bias"):
                ours[f"{side}_embed.norm.{leaf}"] = theirs[f"{stack}.layernorm_embedding.{leaf}"]
        layer = ENCODER_LAYER if stack == "encoder" else DECODER_LAYER
        for i in range(getattr(cfg, f"n_{stack}_layers")):
            for mine, there in layer.items():
                for leaf in ("weight", "bias"):
                    ours[f"{stack}.layers.{i}.{mine}.{leaf}"] = theirs[f"{stack}.layers.{i}.{there}.{leaf}"]
    return ours


def check_marian_positions(theirs: dict[str, torch.Tensor], cfg: ModelConfig, rename: dict[str, str]) -> None:
    """A position table an older Marian file stored must be the sinusoid the import computes instead."""
    table = sinusoidal_table(cfg.max_len, cfg.d_model, cfg.positional_base, cfg.sinusoidal_layout)
    in_file = {v: k for k, v in rename.items()}
    for stack in ("encoder", "decoder"):
        stored = theirs.get(f"{stack}.embed_positions.weight")
        if stored is not None and not torch.allclose(stored.float(), table, atol=1e-4):
            name = in_file[f"{stack}.embed_positions.weight"]
            raise CheckpointError(f"model.safetensors: {name} is not Marian's sinusoidal position table.",
                                  code="marian_positions", fields={"file": "model.safetensors", "tensor": name})


# ----- tokenizers ----------------------------------------------------------------------------------------------

def read_vocab(path: Path) -> dict[str, int]:
    """vocab.json: every piece with its id, the ids 0 … n-1 each once."""
    vocab = read_json_file(within_limit(required(path, "vocab.json")), "vocab.json")
    if not isinstance(vocab, dict) or not all(isinstance(i, int) and not isinstance(i, bool) for i in vocab.values()):
        raise CheckpointError("vocab.json must map each piece to its token id.", code="marian_vocab_not_map",
                              fields={"file": "vocab.json"})
    if sorted(vocab.values()) != list(range(len(vocab))):
        raise CheckpointError(f"vocab.json must number its pieces 0 to {len(vocab) - 1}, each once.",
                              code="marian_vocab_ids", fields={"file": "vocab.json", "most": len(vocab) - 1})
    return vocab


def marian_roles(vocab: dict[str, int], hf: dict) -> dict[str, int]:
    """pad, unk, bos (the decoder's start) and eos as ids; </s> and <pad> must be where config.json says."""
    ids = special_ids(hf, "marian")
    for token, role in (("</s>", "eos"), ("<unk>", "unk"), ("<pad>", "pad")):
        if token not in vocab:
            raise CheckpointError(f"vocab.json has no {token} token for {role}.", code="tokenizer_no_token",
                                  fields={"file": "vocab.json", "token": token, "role": role})
    for token, role, field in (("</s>", "eos", "eos_token_id"), ("<pad>", "pad", "pad_token_id")):
        if vocab[token] != ids[role]:
            raise CheckpointError(f"vocab.json has {token} at id {vocab[token]}, but config.json says {field} is "
                                  f"{ids[role]}.", code="special_mismatch",
                                  fields={"file": "vocab.json", "field": field, "config": "config.json",
                                          "got": vocab[token], "want": ids[role]})
    if not 0 <= ids["start"] < len(vocab):
        raise refuse("marian", "decoder_start_token_id", f"an id below {len(vocab)}", ids["start"])
    return {"pad": ids["pad"], "unk": vocab["<unk>"], "bos": ids["start"], "eos": ids["eos"]}


def marian_tokenizers(path: Path, hf: dict) -> dict[str, MarianTokenizer]:
    """The encoder's (source.spm, </s> after the text) and the decoder's (target.spm) tokenizer, one vocab.json."""
    vocab = read_vocab(path)
    roles = marian_roles(vocab, hf)
    out = {}
    for side, name in (("src", "source.spm"), ("tgt", "target.spm")):
        data = within_limit(required(path, name)).read_bytes()
        try:
            out[side] = MarianTokenizer.load(data, vocab, roles, ends_with_eos=side == "src", name=name)
        except ValueError as e:
            code, fields = coded(e)
            raise CheckpointError(str(e), code=code, fields={"file": name, **fields}) from None
    return out


def bart_tokenizers(path: Path, hf: dict) -> dict[str, ByteLevelBPETokenizer]:
    """tokenizer.json twice: the encoder's reads <s> … </s>, the decoder's starts from decoder_start_token_id."""
    ids = special_ids(hf, "bart")
    sides = {"src": ({"pad": ids["pad"], "unk": "<unk>", "bos": ids["bos"], "eos": ids["eos"]}, True),
             "tgt": ({"pad": ids["pad"], "unk": "<unk>", "bos": ids["start"], "eos": ids["eos"]}, False)}
    out = {}
    for side, (roles, framed) in sides.items():
        try:
            out[side] = ByteLevelBPETokenizer.load(within_limit(required(path, "tokenizer.json")), roles, framed)
        except CheckpointError:
            raise
        except ValueError as e:
            code, fields = coded(e)
            raise CheckpointError(str(e), code=code, fields={"file": "tokenizer.json", **fields}) from None
    return out


def check_vocab(tokenizers: dict, cfg: ModelConfig, kind: str) -> None:
    """The tokenizer must have as many tokens as the model's embedding has rows."""
    file = "vocab.json" if kind == "marian" else "tokenizer.json"
    n = tokenizers["src"].vocab_size
    if n != cfg.src_vocab_size:
        raise CheckpointError(f"{file} has {n} tokens, but the config says {cfg.src_vocab_size}.",
                              code="vocab_mismatch", fields={"file": file, "n": n, "config": "config.json",
                                                             "field": "vocab_size", "want": cfg.src_vocab_size})


# ----- loading -------------------------------------------------------------------------------------------------

def load(path, name: str = "") -> Loaded:
    """Load a Marian or BART folder as an encoder-decoder core_model with its tokenizers."""
    path = Path(path)
    hf = read_hf_config(path)
    kind = hf["model_type"]
    check_settings(hf, kind)  # before the tokenizer files are read: the config's fault is named first
    tokenizers = marian_tokenizers(path, hf) if kind == "marian" else bart_tokenizers(path, hf)
    cfg = config_from_hf(hf, kind, tokenizers["src"].unk_id)
    check_vocab(tokenizers, cfg, kind)
    check_size(cfg)  # a config asking for a huge model is refused before the model is built
    expected, rename, ignore, sources = file_names(path, cfg, kind)
    shaped = {n: torch.empty(()).expand(shape) for n, shape in expected.items()}  # shapes only, no memory
    theirs = read_tensors(path, shaped, rename=rename, ignore=ignore)
    if kind == "marian":
        check_marian_positions(theirs, cfg, rename)
    model = Transformer(cfg)
    model.load_state_dict(state_dict(theirs, cfg, kind, sources))
    return Loaded(model.eval(), cfg, tokenizers, card(path, name or path.name, hf, kind), path)


def card(path: Path, name: str, hf: dict, kind: str) -> str:
    readme = " (its README.md is there)" if (path / "README.md").is_file() else ""
    what = ("a translation model: sinusoidal positions, a sentencepiece vocabulary" if kind == "marian" else
            "a denoising sequence-to-sequence model: learned positions, a byte-level BPE vocabulary")
    start = "<pad>" if kind == "marian" else "</s>"
    return (f"# {name}\n\nA pretrained {NAMES[kind]} encoder-decoder, {what} of {hf['vocab_size']}: "
            f"{hf['encoder_layers']} + {hf['decoder_layers']} layers, {hf['encoder_attention_heads']} heads, "
            f"{hf['d_model']} wide, {hf['max_position_embeddings']} positions. Imported from the Hugging Face folder "
            f"`{path.name}`{readme}, mapped tensor by tensor into core_model's encoder-decoder. Its decoder starts "
            f"from {start} (decoder_start_token_id {hf['decoder_start_token_id']}), which core_model calls bos.\n")
