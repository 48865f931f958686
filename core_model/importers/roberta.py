"""Import a pretrained RoBERTa (a Hugging Face folder) into core_model's encoder.

RoBERTa is BERT's encoder (checkpoints/hub_encoder.py: the same layers and names, under "roberta." beside a task
head such as RobertaForMaskedLM's lm_head, which is not mapped) with a byte-level BPE vocabulary (tokenizer.json,
<s> … </s> around every text, as BART's encoder reads it) and learned positions offset by the padding id: position p
reads row p + pad_token_id + 1 of the stored table (transformers numbers the real tokens from padding_idx + 1), so the
import keeps rows pad_token_id + 1 … as our rows 0 … and max_len is max_position_embeddings - pad_token_id - 1 (512 of
roberta-base's 514). Its one token type is added to every position, as in BERT.
"""
from __future__ import annotations

from pathlib import Path

from ..checkpoints import hub
from ..checkpoints import hub_encoder as encoder
from ..checkpoints.hub import TOKEN_ID, Field
from ..checkpoints.safe_load import Loaded, read_hf_config

# What the registry reads (checkpoints/registry.py).
MODEL_TYPES, FAMILY, FILES = ("roberta",), "RoBERTa", encoder.FILES

CONFIG = hub.HubConfig(
    FAMILY, fields={**encoder.FIELDS, "type_vocab_size": Field("type_vocab_size", default=1),
                    "pad_id": Field("pad_token_id", TOKEN_ID, 1)},
    needs=encoder.NEEDS,
    # the model classes whose body is RoBERTa's, alone or under "roberta." beside a task head (not mapped)
    architectures=("RobertaModel", "RobertaForMaskedLM", "RobertaForSequenceClassification",
                   "RobertaForTokenClassification", "RobertaForQuestionAnswering", "RobertaForMultipleChoice"),
    fixed=encoder.FIXED)
PREFIX = "roberta."
# its masked-LM head (RobertaForMaskedLM), mapped where the folder has it (ModelConfig.mlm_head); its activation is
# always GELU, so a RoBERTa with another hidden_act keeps only its body
MLM = encoder.mlm_names("lm_head.dense", "lm_head.layer_norm", "lm_head.bias")
SPECIALS = {"pad": "<pad>", "unk": "<unk>", "bos": "<s>", "eos": "</s>"}  # where tokenizer_config.json names none
POSITIONS = encoder.EMBEDDINGS["src_embed.pos.weight"]


def load(path, name: str = "") -> Loaded:
    """Load a RoBERTa folder as an encoder-only core_model with its byte-level BPE tokenizer."""
    path = Path(path)
    hf = read_hf_config(path)
    values = CONFIG.read(hf)
    offset = values["pad_id"] + 1  # the rows before the first real position
    if values["max_len"] <= offset:
        raise hub.refuse(FAMILY, "max_position_embeddings", f"more than pad_token_id + 1 ({offset})",
                         values["max_len"])
    tokenizer = encoder.read_tokenizer(path, SPECIALS, FAMILY, values)
    mlm = encoder.has_mlm_head(path, hf, MLM) and values["activation"] == "gelu"
    cfg = CONFIG.model_config({**values, "max_len": values["max_len"] - offset, **encoder.special_ids(tokenizer),
                               "mlm_head": mlm})
    model = encoder.build(path, cfg, encoder.bert_names(cfg), PREFIX,
                          arithmetic=lambda theirs: {**theirs, POSITIONS: theirs[POSITIONS][offset:]},
                          shapes={POSITIONS: (cfg.max_len + offset, cfg.d_model)}, head=MLM)
    return encoder.loaded(path, name, model, cfg, tokenizer, FAMILY, "RoBERTa: learned positions, byte-level BPE")
