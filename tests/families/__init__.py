"""Small Hugging Face folders of every family an importer reads, made by transformers itself, and the comparison of
our traced forward with transformers' own (tests/core/test_families.py; the app's upload in tests/app).

A family is one `Family` (spec.py) in a module of its own here, listed in FAMILIES below: the transformers classes,
the config fields of a small model of that family, and the tokenizer files its repositories ship (tokenizers.py).
Each folder is built once per test session (the `hub_folder` fixture, tests/conftest.py) and shared by every test
that reads it. Adding a family: a module here with its Family entries, one name in FAMILIES.
"""
from __future__ import annotations

from .encoders import ALBERT, BERT_BASE, BERT_CLS, BERT_MLM, DISTILBERT, DISTILBERT_SIN, ELECTRA, ROBERTA
from .gemma import GEMMA, LLAMA_LINEAR, LLAMA_ROPE3
from .gpt2 import GPT2
from .llama import LLAMA_GQA, LLAMA_MQA, LLAMA_SHARDED, QWEN2
from .marian_bart import BART, MARIAN
from .mbart import MBART
from .neo import GPT_NEO, MISTRAL
from .neox import NEOX_SEQUENTIAL, PHI, PYTHIA
from .opt import OPT, OPT_POST
from .spec import Family
from .t5 import T5_GATED, T5_RELU

FAMILIES: dict[str, Family] = {f.name: f for f in (
    BERT_BASE, BERT_MLM, BERT_CLS, DISTILBERT, DISTILBERT_SIN, ROBERTA, ELECTRA, ALBERT,
    GPT2, LLAMA_GQA, LLAMA_MQA, QWEN2, LLAMA_SHARDED,
    GEMMA, LLAMA_ROPE3, LLAMA_LINEAR,
    PYTHIA, NEOX_SEQUENTIAL, PHI,
    GPT_NEO, MISTRAL,
    OPT, OPT_POST,
    MARIAN, BART, MBART,
    T5_GATED, T5_RELU,
)}
