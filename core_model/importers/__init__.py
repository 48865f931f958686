"""One module per Hugging Face family, each mapping a hub folder into our Transformer, and their registration.

An importer declares, at its top:
  MODEL_TYPES, FAMILY, FILES   the config.json model_type values it reads, its family's name, and the files it
                               reads besides config.json and model.safetensors (its tokenizer's);
  CONFIG                       a checkpoints.hub.HubConfig: our ModelConfig field <- its config key (a table, with
                               defaults), the settings the network reproduces at one value only (needs), the model
                               classes whose weights it maps (architectures), what every model of the family has;
  a weight-name table per layer (our name <- its name; checkpoints.hub.per_layer spells it out, shapes checked);
then load(path), with only the family's own arithmetic (GPT-2's c_attn split and Conv1D transpose, BART's position
offset). It builds on checkpoints (safe reading, limits, the shared refusals of hub.py, which name the family, and
hub_encoder_decoder.py for the BART-derived layout), nn (the network) and tokenizers, and never on another importer
(.importlinter). checkpoints.load dispatches on config.json's model_type through the registry installed here;
a model_type no importer reads is refused naming it and the model types read.

Adding a family touches:
  core_model/importers/<family>.py   the new module;
  tests/core/test_<family>.py        its test (against transformers' own implementation);
  IMPORTERS below                    one name.
Only where the network truly lacks something, a named option in config.py (and a few lines in nn/) besides.
"""
from ..checkpoints.registry import install
from . import (albert, bart, bert, distilbert, electra, gemma, gpt2, gpt_neo, gpt_neox, llama, marian, mbart, mistral,
               opt, phi, qwen2, roberta, t5)

IMPORTERS = (bert, roberta, distilbert, electra, albert, gpt2, gpt_neo, gpt_neox, phi, opt, llama, qwen2, mistral, gemma,
             marian, bart, mbart, t5)
install(IMPORTERS)
