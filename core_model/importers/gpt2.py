"""Import a pretrained GPT-2 (a Hugging Face folder) into core_model's decoder-only Transformer.

The folder holds `config.json` (model_type "gpt2"), `model.safetensors` and `tokenizer.json`, as
`save_pretrained` writes them; a folder with only `pytorch_model.bin` is refused before this module is
reached (checkpoints.check_files: a pickle can run code). GPT-2 is our decoder with learned positions,
pre-norm layers and a final LayerNorm, GELU's tanh approximation, no embedding scaling and an output
layer tied to the token embedding without a bias. Its weights differ from ours in layout only: each
layer's attention keeps W_Q, W_K and W_V side by side in one `Conv1D` (c_attn), and every `Conv1D` stores
its weight as [in, out], the transpose of nn.Linear's. Each tensor is split and transposed into our
names after its shape is checked; nothing is unpickled.

GPT-2 has one special token, <|endoftext|>, and no token for padding or unknown text: the import gives
<|endoftext|> every role (pad, unk, bos, eos, as transformers' GPT2Tokenizer does) and switches the
padding mask off (ModelConfig.mask_padding), so a batch is padded on the right with <|endoftext|> and the
causal mask keeps the padding out of every real token's view. A decoder reads bos first: the traced
text and every decoding start with <|endoftext|>, as GPT-2 saw it between documents in training.
"""
from __future__ import annotations

from pathlib import Path

import torch

from ..config import ModelConfig
from ..messages import coded, shortened
from ..nn.model import Transformer
from ..checkpoints.safe_load import (CheckpointError, Loaded, check_size, hf_model_type, read_hf_config, read_tensors,
                        tensor_names)
from ..tokenizers import ByteLevelBPETokenizer

# What the registry reads (checkpoints/registry.py).
MODEL_TYPES, FAMILY, FILES = ("gpt2",), "GPT-2", ("tokenizer.json",)

# transformers' name of the activation -> ours. "gelu_new" and "gelu_pytorch_tanh" are the same tanh formula.
ACTIVATIONS = {"gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh", "gelu": "gelu", "relu": "relu"}
# Settings our layers cannot reproduce: a model must have each at this value (its default) to be imported.
NEEDS = {"scale_attn_weights": True, "scale_attn_by_inverse_layer_idx": False, "reorder_and_upcast_attn": False,
         "add_cross_attention": False}
# Older GPT-2 files keep a causal-mask buffer per layer beside the weights; the import has no use for it.
BUFFERS = ("attn.bias", "attn.masked_bias")

# its name -> our name, per layer ({i}); "c_attn" (W_Q | W_K | W_V) is split into three, below
LAYER = {
    "ln_1": "norm1",
    "attn.c_proj": "self_attn.out_proj",
    "ln_2": "norm2",
    "mlp.c_fc": "ffn.linear1",
    "mlp.c_proj": "ffn.linear2",
}


def is_gpt2_folder(path: Path) -> bool:
    """Whether `path` looks like a Hugging Face GPT-2 folder (rather than one of our checkpoints)."""
    return hf_model_type(path) == "gpt2"


def refuse(name: str, want: str, got) -> CheckpointError:
    """The error for a setting of config.json that the import cannot reproduce."""
    return CheckpointError(f"config.json has {name} = {shortened(repr(got), 60)}; only {want} can be imported.",
                           code="gpt2_setting", fields={"file": "config.json", "name": name, "want": want,
                                                        "got": shortened(repr(got), 60)})


def special_ids(hf: dict) -> dict[str, int]:
    """bos, eos and pad from config.json: pad is eos unless the config names a pad token of its own."""
    ids = {}
    for role in ("bos", "eos", "pad"):
        value = hf.get(f"{role}_token_id")
        value = ids["eos"] if role == "pad" and value is None else value
        if isinstance(value, bool) or not isinstance(value, int):
            raise refuse(f"{role}_token_id", "one token id", value)
        ids[role] = value
    return ids


def config_from_hf(hf: dict) -> ModelConfig:
    """Our config for a GPT-2 config.json; a setting we cannot reproduce is named."""
    for key, value in NEEDS.items():
        if hf.get(key, value) != value:
            raise refuse(key, repr(value), hf[key])
    activation = hf.get("activation_function", "gelu_new")
    if activation not in ACTIVATIONS:
        raise refuse("activation_function", ", ".join(repr(a) for a in ACTIVATIONS), activation)
    ids = special_ids(hf)
    try:
        d_model, n_inner = hf["n_embd"], hf.get("n_inner")
        return ModelConfig(
            architecture="decoder", tgt_vocab_size=hf["vocab_size"], d_model=d_model, n_heads=hf["n_head"],
            n_encoder_layers=0, n_decoder_layers=hf["n_layer"], d_ff=4 * d_model if n_inner is None else n_inner,
            dropout=0.0, activation=ACTIVATIONS[activation], norm="layernorm", norm_placement="pre",
            norm_eps=hf.get("layer_norm_epsilon", 1e-5), positional="learned", max_len=hf["n_positions"],
            scale_embedding=False, tie_embeddings=hf.get("tie_word_embeddings", True), embed_norm=False,
            bias=True, output_bias=False, mask_padding=ids["pad"] not in (ids["bos"], ids["eos"]),
            pad_id=ids["pad"], unk_id=ids["eos"], bos_id=ids["bos"], eos_id=ids["eos"])
    except KeyError as e:
        raise CheckpointError(f"config.json lacks {e.args[0]}, which a GPT-2 config has.", code="gpt2_lacks",
                              fields={"file": "config.json", "name": str(e.args[0])}) from None
    except (TypeError, ValueError) as e:
        raise CheckpointError(f"config.json: {e}", code="config_invalid",
                              fields={"file": "config.json", "detail": str(e)}) from None


def shapes(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """Every tensor a GPT-2 checkpoint of this config holds, by its name there, with its shape ([in, out])."""
    d, ff = cfg.d_model, cfg.d_ff
    out = {"wte.weight": (cfg.tgt_vocab_size, d), "wpe.weight": (cfg.max_len, d), "ln_f.weight": (d,),
           "ln_f.bias": (d,)}
    for i in range(cfg.n_decoder_layers):
        for name, (n_in, n_out) in {"attn.c_attn": (d, 3 * d), "attn.c_proj": (d, d), "mlp.c_fc": (d, ff),
                                    "mlp.c_proj": (ff, d)}.items():
            out[f"h.{i}.{name}.weight"], out[f"h.{i}.{name}.bias"] = (n_in, n_out), (n_out,)
        for norm in ("ln_1", "ln_2"):
            out[f"h.{i}.{norm}.weight"] = out[f"h.{i}.{norm}.bias"] = (d,)
    if not cfg.tie_embeddings:
        out["lm_head.weight"] = (cfg.tgt_vocab_size, d)
    return out


def file_names(path: Path, cfg: ModelConfig) -> tuple[dict[str, str], tuple[str, ...]]:
    """(file name -> the name in `shapes`, names to leave out). A GPT2LMHeadModel saves its body under
    "transformer.", a GPT2Model (as the first GPT-2 files on the hub) without; lm_head never has the prefix."""
    prefix = "transformer." if any(n.startswith("transformer.") for n in tensor_names(path)) else ""
    rename = {(n if n.startswith("lm_head.") else prefix + n): n for n in shapes(cfg)}
    ignore = tuple(f"{prefix}h.{i}.{b}" for i in range(cfg.n_decoder_layers) for b in BUFFERS)
    return rename, ignore + (("lm_head.weight",) if cfg.tie_embeddings else ())  # tied: transformers reads wte


def state_dict(theirs: dict[str, torch.Tensor], cfg: ModelConfig) -> dict[str, torch.Tensor]:
    """Our model's tensors from GPT-2's (named as in `shapes`): c_attn split into W_Q, W_K, W_V, every Conv1D
    weight transposed into nn.Linear's [out, in]."""
    ours = {"tgt_embed.tok.weight": theirs["wte.weight"], "tgt_embed.pos.weight": theirs["wpe.weight"],
            "decoder.final_norm.weight": theirs["ln_f.weight"], "decoder.final_norm.bias": theirs["ln_f.bias"],
            "generator.weight": theirs["wte.weight" if cfg.tie_embeddings else "lm_head.weight"]}
    for i in range(cfg.n_decoder_layers):
        here, there = f"decoder.layers.{i}", f"h.{i}"
        weights = theirs[f"{there}.attn.c_attn.weight"].split(cfg.d_model, dim=1)  # 3 × [d_in, d_out]
        biases = theirs[f"{there}.attn.c_attn.bias"].split(cfg.d_model)  # 3 × [d_out]
        for proj, weight, bias in zip(("q_proj", "k_proj", "v_proj"), weights, biases):
            ours[f"{here}.self_attn.{proj}.weight"], ours[f"{here}.self_attn.{proj}.bias"] = weight.t(), bias
        for name, mine in LAYER.items():
            weight = theirs[f"{there}.{name}.weight"]
            ours[f"{here}.{mine}.weight"] = weight if name.startswith("ln_") else weight.t()  # Conv1D: [in, out]
            ours[f"{here}.{mine}.bias"] = theirs[f"{there}.{name}.bias"]
    return ours


def load(path, name: str = "") -> Loaded:
    """Load a GPT-2 folder as a decoder-only core_model with its byte-level BPE tokenizer."""
    path = Path(path)
    hf = read_hf_config(path)
    cfg = config_from_hf(hf)
    check_size(cfg)  # a config asking for a huge model is refused before the model is built
    rename, ignore = file_names(path, cfg)
    expected = {n: torch.empty(()).expand(shape) for n, shape in shapes(cfg).items()}  # shapes only, no memory
    theirs = read_tensors(path, expected, rename=rename, ignore=ignore)
    model = Transformer(cfg)
    model.load_state_dict(state_dict(theirs, cfg))
    tokenizer = read_tokenizer(path, cfg)
    return Loaded(model.eval(), cfg, {"tgt": tokenizer}, card(path, name or path.name, hf), path)


def read_tokenizer(path: Path, cfg: ModelConfig) -> ByteLevelBPETokenizer:
    """tokenizer.json, each role at the special token the config names, and as many tokens as the config."""
    roles = {"pad": cfg.pad_id, "unk": cfg.unk_id, "bos": cfg.bos_id, "eos": cfg.eos_id}
    try:
        tokenizer = ByteLevelBPETokenizer.load(path / "tokenizer.json", roles)
    except ValueError as e:
        code, fields = coded(e)
        raise CheckpointError(str(e), code=code, fields={"file": "tokenizer.json", **fields}) from None
    if tokenizer.vocab_size != cfg.tgt_vocab_size:
        raise CheckpointError(f"tokenizer.json has {tokenizer.vocab_size} tokens, but the config says "
                              f"{cfg.tgt_vocab_size}.", code="vocab_mismatch",
                              fields={"file": "tokenizer.json", "n": tokenizer.vocab_size, "config": "config.json",
                                      "field": "vocab_size", "want": cfg.tgt_vocab_size})
    return tokenizer


def card(path: Path, name: str, hf: dict) -> str:
    readme = " (its README.md is there)" if (path / "README.md").is_file() else ""
    return (f"# {name}\n\nA pretrained GPT-2-style language model: {hf['n_layer']} layers, {hf['n_head']} heads, "
            f"{hf['n_embd']} wide, {hf['n_positions']} positions, byte-level BPE vocabulary of {hf['vocab_size']}. "
            f"Imported from the Hugging Face folder `{path.name}`{readme}, mapped tensor by tensor into "
            "core_model's decoder.\n")
