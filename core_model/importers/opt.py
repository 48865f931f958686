"""Import a pretrained OPT (Meta's Open Pre-trained Transformer; a Hugging Face folder) into core_model's
decoder-only Transformer.

The folder holds `config.json` (model_type "opt"), `model.safetensors` and its tokenizer (GPT-2's byte-level BPE
with <s>, <pad>, </s> and <unk> at ids 0 to 3): `tokenizer.json`, or `vocab.json` and `merges.txt` as the hub's OPT
folders ship it (tokenizers/folder.py reads either). OPT is our decoder with learned positions, ReLU in the FFN, no
embedding scaling and an output layer without a bias, tied to the token embedding. `do_layer_norm_before` picks
where each layer's LayerNorm sits: before its block, with a final LayerNorm after the last layer (our norm_placement
"pre": every size but one), or after the residual sum, without a final norm ("post": opt-350m). `enable_bias` gives
the attention projections and the FFN their biases (our bias, ffn_bias). OPT's own arithmetic:
OPTLearnedPositionalEmbedding reads row p + 2 for position p (rows 0 and 1 are never read, so the import keeps rows
2 … as our rows 0 …), as BART's does.

The tokenizer prepends </s> (bos_token_id 2, also eos) to every text; our decoder reads bos first, the same ids.
<pad> (id 1) is a token of its own, so the padding is masked. The hub's OPT embeddings have 7 rows more than the
tokenizer has tokens (vocab_size 50,272, rounded up); the import names those ids <unused_0> … (pad_vocabulary).
What the core cannot reproduce is refused naming the field: word_embed_proj_dim other than hidden_size (opt-350m's
project_in / project_out around the layers), _remove_final_layer_norm, LayerNorms without weights
(layer_norm_elementwise_affine false), an activation it lacks.
"""
from __future__ import annotations

from pathlib import Path

import torch

from ..checkpoints import hub
from ..checkpoints.hub import SWITCH, TEXT, TOKEN_ID, Field
from ..checkpoints.safe_load import Loaded, check_size, read_hf_config, tensor_names
from ..config import ModelConfig
from ..nn.model import Transformer
from ..tokenizers import folder as tokenizer_files

# What the registry reads (checkpoints/registry.py).
MODEL_TYPES, FAMILY, FILES = ("opt",), "OPT", tokenizer_files.FILES

OFFSET = 2  # OPTLearnedPositionalEmbedding reads row position + 2
# transformers' name of the activation -> ours
ACTIVATIONS = {"relu": "relu", "gelu": "gelu", "gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh",
               "silu": "silu", "swish": "silu"}
NORM_PLACEMENTS = {True: "pre", False: "post"}  # do_layer_norm_before -> our norm_placement
CONFIG = hub.HubConfig(
    FAMILY,
    fields={  # our field <- its key; ffn_bias is bias's value (enable_bias), set in `config`
        "tgt_vocab_size": Field("vocab_size"), "d_model": Field("hidden_size"), "n_heads": Field("num_attention_heads"),
        "n_decoder_layers": Field("num_hidden_layers"), "d_ff": Field("ffn_dim"),
        "activation": Field("activation_function", TEXT, "relu", ACTIVATIONS),
        "max_len": Field("max_position_embeddings"),
        "norm_placement": Field("do_layer_norm_before", SWITCH, True, NORM_PLACEMENTS),
        "bias": Field("enable_bias", SWITCH, True), "tie_embeddings": Field("tie_word_embeddings", SWITCH, True),
        "bos_id": Field("bos_token_id", TOKEN_ID, 2), "eos_id": Field("eos_token_id", TOKEN_ID, 2),
        "pad_id": Field("pad_token_id", TOKEN_ID, 1)},
    # Settings our layers cannot reproduce: a model must have each at this value (transformers' default).
    needs={"_remove_final_layer_norm": False, "layer_norm_elementwise_affine": True, "is_encoder_decoder": False},
    same=(("hidden_size", "word_embed_proj_dim"),),  # project_in / project_out (opt-350m): not in the core
    architectures=("OPTForCausalLM", "OPTModel"),  # with and without the "model." prefix (`prefix`)
    fixed=dict(architecture="decoder", n_encoder_layers=0, dropout=0.0, norm="layernorm", norm_eps=1e-5,
               positional="learned", scale_embedding=False, embed_norm=False, output_bias=False))

# our name <- its name, in every layer, each with .weight and (enable_bias, or a norm) .bias
LAYER = {"self_attn.q_proj": "self_attn.q_proj", "self_attn.k_proj": "self_attn.k_proj",
         "self_attn.v_proj": "self_attn.v_proj", "self_attn.out_proj": "self_attn.out_proj",
         "norm1": "self_attn_layer_norm", "ffn.linear1": "fc1", "ffn.linear2": "fc2", "norm2": "final_layer_norm"}


def config(values: dict, unk_id: int) -> ModelConfig:
    """Our config from CONFIG.read's values and the tokenizer's <unk>: enable_bias gives the FFN its biases too;
    <pad> is masked unless it is bos or eos."""
    return CONFIG.model_config(values, ffn_bias=values["bias"], unk_id=unk_id,
                               mask_padding=values["pad_id"] not in (values["bos_id"], values["eos_id"]))


def shapes(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """Every tensor an OPT checkpoint of this config holds, by its name after "decoder." (lm_head: as it is), with
    its shape (nn.Linear's [out, in]); the positions OFFSET rows more than they read, a final norm only pre-norm."""
    d, ff = cfg.d_model, cfg.d_ff
    out = {"embed_tokens.weight": (cfg.tgt_vocab_size, d), "embed_positions.weight": (cfg.max_len + OFFSET, d)}
    if cfg.norm_placement == "pre":
        out["final_layer_norm.weight"] = out["final_layer_norm.bias"] = (d,)
    for i in range(cfg.n_decoder_layers):
        for its in LAYER.values():
            here = f"layers.{i}.{its}"
            if its.endswith("norm"):
                out[f"{here}.weight"] = out[f"{here}.bias"] = (d,)
                continue
            out[f"{here}.weight"] = {"fc1": (ff, d), "fc2": (d, ff)}.get(its, (d, d))
            if cfg.bias:
                out[f"{here}.bias"] = (ff,) if its == "fc1" else (d,)
    if not cfg.tie_embeddings:
        out["lm_head.weight"] = (cfg.tgt_vocab_size, d)
    return out


def file_names(path: Path, cfg: ModelConfig) -> tuple[dict[str, str], tuple[str, ...]]:
    """(file name -> the name in `shapes`, names to leave out). An OPTForCausalLM saves its body under
    "model.decoder.", an OPTModel under "decoder."; lm_head never has the prefix."""
    prefix = "model.decoder." if any(n.startswith("model.") for n in tensor_names(path)) else "decoder."
    rename = {(n if n.startswith("lm_head.") else prefix + n): n for n in shapes(cfg)}
    return rename, ("lm_head.weight",) if cfg.tie_embeddings else ()  # tied: transformers reads embed_tokens


def state_dict(theirs: dict[str, torch.Tensor], cfg: ModelConfig) -> dict[str, torch.Tensor]:
    """Our model's tensors from OPT's (named as in `shapes`): position p is the stored table's row p + OFFSET."""
    ours = {"tgt_embed.tok.weight": theirs["embed_tokens.weight"],
            "tgt_embed.pos.weight": theirs["embed_positions.weight"][OFFSET:],
            "generator.weight": theirs["embed_tokens.weight" if cfg.tie_embeddings else "lm_head.weight"]}
    if cfg.norm_placement == "pre":
        for leaf in ("weight", "bias"):
            ours[f"decoder.final_norm.{leaf}"] = theirs[f"final_layer_norm.{leaf}"]
    for mine, its in hub.per_layer(LAYER, cfg.n_decoder_layers, "decoder.layers", "layers").items():
        if its in theirs:  # a bias only where enable_bias gives one (shapes)
            ours[mine] = theirs[its]
    return ours


def load(path, name: str = "") -> Loaded:
    """Load an OPT folder as a decoder-only core_model with its byte-level BPE tokenizer (whichever files it has)."""
    path = Path(path)
    values = CONFIG.read(read_hf_config(path))  # before the tokenizer file: the config's fault is named first
    roles = {"pad": values["pad_id"], "unk": "<unk>", "bos": values["bos_id"], "eos": values["eos_id"]}
    tokenizer = hub.read_tokenizer(FILES[0], tokenizer_files.read, path, roles)
    cfg = config(values, tokenizer.unk_id)
    source = FILES[0] if (path / FILES[0]).is_file() else tokenizer_files.VOCAB_JSON  # the file read, for a refusal
    hub.fit_vocab(tokenizer, cfg.tgt_vocab_size, source)  # the hub's OPT: 50,272 rows for 50,265 tokens
    check_size(cfg)  # a config asking for a huge model is refused before the model is built
    theirs = hub.read_shaped(path, shapes(cfg), *file_names(path, cfg))
    model = Transformer.empty(cfg)
    model.fill(state_dict(theirs, cfg))
    return Loaded(model.eval(), cfg, {"tgt": tokenizer}, card(path, name or path.name, cfg), path)


def card(path: Path, name: str, cfg: ModelConfig) -> str:
    norms = "LayerNorm before each block" if cfg.norm_placement == "pre" else "LayerNorm after each residual sum"
    return hub.card(path, name, f"OPT language model: {cfg.n_decoder_layers} layers, {cfg.n_heads} heads, "
                                f"{cfg.d_model} wide, {norms}, {cfg.max_len} learned positions, byte-level BPE "
                                f"vocabulary of {cfg.tgt_vocab_size}", "decoder",
                    " Its tokenizer starts every text with </s>, which core_model calls bos.")
