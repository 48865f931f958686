"""GPT-2: <|endoftext|> is its bos, eos and unknown token; byte-level BPE saved through GPT2TokenizerFast."""
from __future__ import annotations

import transformers

from .spec import Family
from .tokenizers import byte_bpe

EOT = "<|endoftext|>"


def gpt2_tokenizer(dest):
    tk = byte_bpe(dest, [EOT], vocab_size=400, maker=transformers.GPT2TokenizerFast, bos_token=EOT, eos_token=EOT,
                  unk_token=EOT)
    eot = tk.token_to_id(EOT)
    return {"vocab_size": tk.get_vocab_size(), "bos_token_id": eot, "eos_token_id": eot}


GPT2 = Family("gpt2", "gpt2", "GPT2Config", "GPT2LMHeadModel", "decoder", gpt2_tokenizer,
              dict(n_layer=2, n_head=2, n_embd=32, n_positions=64))
