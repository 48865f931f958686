"""Tokenizer files as the families' repositories ship them, trained here on a small corpus by the `tokenizers`
library and saved by transformers' own tokenizer classes."""
from __future__ import annotations

from pathlib import Path

import tokenizers
import transformers

CORPUS = ["The cat sat on the mat, and the dog sat on the log.", "A quick brown fox jumps over the lazy dog!",
          "Attention heads read the previous token; some read the first one.", "naïve café owners drink crème brûlée",
          "Numbers like 1999 and 2024 split into pieces.", "猫が座った。 Tabs\tand\nnewlines stay."] * 8


def byte_bpe(dest: Path, specials: list[str], vocab_size: int = 300, corpus: list[str] = CORPUS,
             maker=transformers.PreTrainedTokenizerFast, **roles: str) -> tokenizers.Tokenizer:
    """A byte-level BPE `tokenizer.json` (GPT-2, Llama 3, SmolLM, Qwen2, Pythia, OPT, BART): `specials` first, at ids
    0, 1, …; saved by transformers' tokenizer class `maker` with `roles` (bos_token="<s>", …) as transformers does."""
    tk = tokenizers.Tokenizer(tokenizers.models.BPE())
    tk.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = tokenizers.decoders.ByteLevel()
    tk.train_from_iterator(corpus, tokenizers.trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=specials, show_progress=False,
        initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet()))
    maker(tokenizer_object=tk, **roles).save_pretrained(dest)
    return tk
