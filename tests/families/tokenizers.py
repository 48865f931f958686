"""Tokenizer files as the families' repositories ship them, trained here on a small corpus by the `tokenizers`
library and saved by transformers' own tokenizer classes."""
from __future__ import annotations

from pathlib import Path

import tokenizers
import transformers

CORPUS = ["The cat sat on the mat, and the dog sat on the log.", "A quick brown fox jumps over the lazy dog!",
          "Attention heads read the previous token; some read the first one.", "naïve café owners drink crème brûlée",
          "Numbers like 1999 and 2024 split into pieces.", "猫が座った。 Tabs\tand\nnewlines stay."] * 8


def byte_bpe(dest: Path, specials: list[str], vocab_size: int = 300, prefix: str = "",
             **roles: str) -> tokenizers.Tokenizer:
    """A byte-level BPE `tokenizer.json` (GPT-2, Llama 3, SmolLM, Qwen2, Pythia, OPT): `specials` first, at ids 0, 1, …;
    `roles` (bos_token="<s>", …) written to tokenizer_config.json as transformers does; `prefix`, one of `specials`,
    put before every text by the file's post-processor (OPT's </s>)."""
    tk = tokenizers.Tokenizer(tokenizers.models.BPE())
    if prefix:
        tk.post_processor = tokenizers.processors.TemplateProcessing(
            single=f"{prefix} $A", pair=f"{prefix} $A $B", special_tokens=[(prefix, specials.index(prefix))])
    tk.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = tokenizers.decoders.ByteLevel()
    tk.train_from_iterator(CORPUS, tokenizers.trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=specials, show_progress=False,
        initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet()))
    transformers.PreTrainedTokenizerFast(tokenizer_object=tk, **roles).save_pretrained(dest)
    return tk
