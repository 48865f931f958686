"""The encoder families: BERT under three model classes (its body alone, and under "bert." beside a masked-LM or a
classification head), DistilBERT (learned and sinusoidal positions), RoBERTa, ELECTRA's discriminator and ALBERT.
A masked-LM model class is compared on its logits (its head is mapped: ModelConfig.mlm_head); one whose head the
import leaves out (a classifier, ELECTRA's discriminator) on its body's last hidden state (`output="hidden_states"`)."""
from __future__ import annotations

import string

from .spec import Family
from .tokenizers import roberta_bpe, sentencepiece, spm_model, wordpiece

SHAPE = dict(hidden_size=32, num_attention_heads=4, num_hidden_layers=2, intermediate_size=64,
             max_position_embeddings=128)
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def bert_tokenizer(dest):
    return {"vocab_size": wordpiece(dest, SPECIALS).get_vocab_size(), "pad_token_id": 0}


def shuffled_tokenizer(dest):
    """[PAD], [UNK], [CLS] and [SEP] at none of BERT's usual ids (0, 100, 101, 102): the import reads them."""
    tk = wordpiece(dest, ["[MASK]", "[SEP]", "[UNK]", "[CLS]", "[unused0]", "[PAD]"])
    return {"vocab_size": tk.get_vocab_size(), "pad_token_id": tk.token_to_id("[PAD]")}


def distilbert_tokenizer(dest):
    return {"vocab_size": wordpiece(dest, SPECIALS, "DistilBertTokenizer").get_vocab_size(), "pad_token_id": 0}


def electra_tokenizer(dest):
    return {"vocab_size": wordpiece(dest, SPECIALS, "ElectraTokenizer").get_vocab_size(), "pad_token_id": 0}


def roberta_tokenizer(dest):
    return {"vocab_size": roberta_bpe(dest).get_vocab_size(), "pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2}


# ALBERT's sentencepiece model: <pad> 0, <unk> 1, then [CLS], [SEP], [MASK] as control symbols (albert-base-v2's)
ALBERT_SPM = dict(model_type="unigram", vocab_size=120, pad_id=0, unk_id=1, bos_id=-1, eos_id=-1,
                  control_symbols=["[CLS]", "[SEP]", "[MASK]"], required_chars=string.punctuation)
ALBERT_ROLES = dict(bos_token="[CLS]", eos_token="[SEP]", cls_token="[CLS]", sep_token="[SEP]", unk_token="<unk>",
                    pad_token="<pad>", mask_token="[MASK]")


def albert_tokenizer(dest):
    """spiece.model, and the tokenizer.json AlbertTokenizer converts it into (lowercased, accents stripped)."""
    fast = sentencepiece(dest, spm_model(**ALBERT_SPM), "spiece.model", "AlbertTokenizer", **ALBERT_ROLES)
    return {"vocab_size": len(fast), "pad_token_id": 0, "bos_token_id": 2, "eos_token_id": 3}


BERT_BASE = Family("bert-base", "bert", "BertConfig", "BertModel", "encoder", shuffled_tokenizer, dict(SHAPE),
                   output="last_hidden_state")
BERT_MLM = Family("bert-mlm", "bert", "BertConfig", "BertForMaskedLM", "encoder", bert_tokenizer, dict(SHAPE))
BERT_CLS = Family("bert-cls", "bert", "BertConfig", "BertForSequenceClassification", "encoder", bert_tokenizer,
                  dict(SHAPE, num_labels=3), output="hidden_states")
DISTIL = dict(dim=32, n_heads=4, n_layers=2, hidden_dim=64, max_position_embeddings=128)
DISTILBERT = Family("distilbert", "distilbert", "DistilBertConfig", "DistilBertForMaskedLM", "encoder",
                    distilbert_tokenizer, dict(DISTIL))
DISTILBERT_SIN = Family("distilbert-sin", "distilbert", "DistilBertConfig", "DistilBertModel", "encoder",
                        distilbert_tokenizer, dict(DISTIL, sinusoidal_pos_embds=True), output="last_hidden_state")
ROBERTA = Family("roberta", "roberta", "RobertaConfig", "RobertaForMaskedLM", "encoder", roberta_tokenizer,
                 dict(SHAPE, max_position_embeddings=130, type_vocab_size=1))
ELECTRA = Family("electra", "electra", "ElectraConfig", "ElectraForPreTraining", "encoder", electra_tokenizer,
                 dict(SHAPE, embedding_size=16), output="hidden_states")
ALBERT = Family("albert", "albert", "AlbertConfig", "AlbertForMaskedLM", "encoder", albert_tokenizer,
                dict(SHAPE, embedding_size=16, num_hidden_layers=3))
