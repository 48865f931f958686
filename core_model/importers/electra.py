"""Import a pretrained ELECTRA discriminator (a Hugging Face folder) into core_model's encoder.

ELECTRA is BERT's encoder (checkpoints/hub_encoder.py: the same layers and names, a WordPiece tokenizer) whose
embeddings may be narrower than its layers: with embedding_size other than hidden_size, the token, position and
token-type vectors and their LayerNorm are embedding_size wide, and `embeddings_project` (a linear layer with a bias)
maps their sum to hidden_size, our factorised embedding (ModelConfig.d_embed, Embeddings.project). ElectraModel keeps
its tensors as they are; ElectraForPreTraining (the discriminator) and the other heads keep them under "electra."
beside the head (discriminator_predictions, …), which is not mapped: the import's output is the last hidden state.
"""
from __future__ import annotations

from pathlib import Path

from ..checkpoints import hub
from ..checkpoints import hub_encoder as encoder
from ..checkpoints.hub import TOKEN_ID, Field
from ..checkpoints.safe_load import Loaded, read_hf_config
from ..config import ModelConfig

# What the registry reads (checkpoints/registry.py).
MODEL_TYPES, FAMILY, FILES = ("electra",), "ELECTRA", encoder.FILES

CONFIG = hub.HubConfig(
    FAMILY, fields={**encoder.FIELDS, "d_embed": Field("embedding_size"),
                    "pad_id": Field("pad_token_id", TOKEN_ID, 0)},
    needs=encoder.NEEDS,
    # the model classes whose body is ELECTRA's, alone or under "electra." beside a task head (not mapped)
    architectures=("ElectraModel", "ElectraForPreTraining", "ElectraForMaskedLM", "ElectraForSequenceClassification",
                   "ElectraForTokenClassification", "ElectraForQuestionAnswering", "ElectraForMultipleChoice"),
    fixed=encoder.FIXED)
PREFIX = "electra."
PROJECT = {"src_embed.project.weight": "embeddings_project.weight", "src_embed.project.bias": "embeddings_project.bias"}


def name_map(cfg: ModelConfig) -> dict[str, str]:
    """Every tensor of our encoder, by our name, with its name in an ELECTRA checkpoint (no prefix)."""
    return {**encoder.bert_names(cfg), **(PROJECT if cfg.d_embed else {})}


def load(path, name: str = "") -> Loaded:
    """Load an ELECTRA folder as an encoder-only core_model with its WordPiece tokenizer."""
    path = Path(path)
    values = CONFIG.read(read_hf_config(path))
    if values["d_embed"] == values["d_model"]:  # transformers projects only embeddings of another width
        values["d_embed"] = 0
    tokenizer = encoder.read_tokenizer(path, encoder.BERT_SPECIALS, FAMILY, values)
    cfg = CONFIG.model_config({**values, **encoder.special_ids(tokenizer)})
    model = encoder.build(path, cfg, name_map(cfg), PREFIX)
    return encoder.loaded(path, name, model, cfg, tokenizer, FAMILY, "ELECTRA's discriminator: learned positions, "
                                                                     "WordPiece")
