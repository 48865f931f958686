"""One module per Hugging Face family, each mapping a hub folder into our Transformer, and their registration.

Each importer declares MODEL_TYPES (the config.json model_type values it reads), FAMILY, FILES (what it reads
besides config.json and the weights) and load(path); it builds on checkpoints (safe reading, limits, messages),
nn (the network) and tokenizers, and never on another importer. Adding a family is one module here, listed
below, and its test.
"""
from ..checkpoints.registry import install
from . import bert, gpt2, seq2seq_hub

IMPORTERS = (bert, gpt2, seq2seq_hub)
install(IMPORTERS)
