"""What the shared family tests need to know of a family: how transformers builds a small one, and how it is fed."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable


@dataclass(frozen=True)
class Family:
    name: str  # the folder's name in the tests ("llama-gqa"): one family can have several
    model_type: str  # config.json's model_type, what the registry dispatches on
    config_class: str  # transformers' names: LlamaConfig, LlamaForCausalLM
    model_class: str
    architecture: str  # ours: "decoder", "encoder", "encoder-decoder"
    # tokenizer(dest) writes the tokenizer files the family's repositories ship and returns {"vocab_size": n, ...}:
    # config fields that follow from the tokenizer (its size, special ids)
    tokenizer: Callable[[Path], dict]
    fields: dict = field(default_factory=dict)  # the config's fields, the family's real names
    # fields (of `fields` or the tokenizer's) written to generation_config.json, not config.json: transformers 5 keeps
    # forced_bos_token_id there only
    generation: tuple[str, ...] = ()
    # transformers' output compared with our model's: "logits", "last_hidden_state", or "hidden_states" (the last
    # layer's, for a model class whose task head gives logits our encoder does not compute)
    output: str = "logits"
    # Perturb norms and biases away from 1 and 0 (a swapped norm or a missing bias shows), and scale weights by this
    # so attention is far from uniform (0: leave the init's scale)
    scale: float = 0.25
    save: dict = field(default_factory=dict)  # save_pretrained's options besides safetensors (max_shard_size: shards)
    # edit(dest) rewrites the saved folder as the family's repositories ship it where transformers now saves it
    # otherwise (T5 v1.1's own lm_head, which transformers 5 ties on saving); None: as saved
    edit: Callable[[Path], None] | None = None
