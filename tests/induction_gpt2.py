"""A GPT-2 folder, made by transformers, whose two heads are written by hand: layer 0's head 0 copies each token's
predecessor into the stream (a previous-token head), layer 1's head 0 looks for the key whose predecessor is the
query's own token (an induction head); every other weight is 0, the norms' gains 1. What a lesson step, the head
detectors and the explorer must find in an imported GPT-2-style model, without one trained."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
import transformers

from tests.families.gpt2 import gpt2_tokenizer

POSITIONS, HEADS = 64, 2


def build(dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    fields = gpt2_tokenizer(dest)
    vocab = fields["vocab_size"]
    width = 2 * ((2 * vocab + POSITIONS) // 2 + 1)  # tokens, positions, previous tokens: one feature each
    tok, pos, prev, d_head = 0, vocab, vocab + POSITIONS, width // HEADS
    assert d_head >= max(vocab, POSITIONS)
    config = transformers.GPT2Config(n_layer=2, n_head=HEADS, n_embd=width, n_inner=8, n_positions=POSITIONS,
                                     resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, **fields)
    model = transformers.GPT2LMHeadModel(config).eval()
    gain = np.sqrt(width / 2)  # LayerNorm's gain on a stream of two features (about: it centres them too)
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.fill_(1.0 if ".ln_" in name and name.endswith("weight") else 0.0)
        model.transformer.wte.weight[torch.arange(vocab), tok + torch.arange(vocab)] = 1.0
        model.transformer.wpe.weight[torch.arange(POSITIONS), pos + torch.arange(POSITIONS)] = 1.0
        first, second = (model.transformer.h[i].attn.c_attn.weight for i in (0, 1))  # [in, q | k | v], x @ W
        for p in range(POSITIONS - 1):  # layer 0, head 0: the query at position p + 1 meets the key at p
            first[pos + p + 1, p + 1] = 1.0
            first[pos + p, width + p + 1] = 1.0
        for t in range(vocab):  # ... and brings that key's token into the "previous token" features
            first[tok + t, 2 * width + t] = 1.0
            model.transformer.h[0].attn.c_proj.weight[t, prev + t] = 1.0 / gain
            second[tok + t, t] = 1.0  # layer 1, head 0: my token against each key's previous token
            second[prev + t, width + t] = 1.0
    model.save_pretrained(dest, safe_serialization=True)
    return dest
