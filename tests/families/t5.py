"""T5: v1.1 / Flan-T5 style (gated GELU FFN, an output layer of its own) and v1.0 style (ReLU FFN, the output layer
tied to the embedding, the decoder's output scaled by d_model^-0.5), with T5's sentencepiece tokenizer (spiece.model
and the tokenizer.json transformers converts it into)."""
from __future__ import annotations

import json

import torch
from safetensors.torch import load_file, save_file

from .spec import Family
from .tokenizers import T5_SPM, sentencepiece, spm_model

# as many decoder layers as encoder layers: transformers' generate() sizes its cache by num_layers
SHAPE = dict(d_model=32, d_kv=8, num_heads=4, num_layers=2, d_ff=64,
             relative_attention_num_buckets=8, relative_attention_max_distance=20, decoder_start_token_id=0)
ROLES = dict(eos_token="</s>", unk_token="<unk>", pad_token="<pad>", extra_ids=0)


def t5_tokenizer(dest):
    fast = sentencepiece(dest, spm_model(**T5_SPM), "spiece.model", "T5Tokenizer", **ROLES)
    return {"vocab_size": len(fast), "pad_token_id": fast.pad_token_id, "eos_token_id": fast.eos_token_id}


def untie(dest):
    """The folder as transformers 4 saved a v1.1 model (Flan-T5's on the hub): tie_word_embeddings false and an
    lm_head.weight of its own, which transformers 5 (that always ties T5 on saving) then reads untied."""
    weights = load_file(dest / "model.safetensors")
    vocab, d = weights["shared.weight"].shape
    weights["lm_head.weight"] = torch.randn(vocab, d, generator=torch.Generator().manual_seed(1))
    save_file(weights, dest / "model.safetensors", metadata={"format": "pt"})
    config = json.loads((dest / "config.json").read_text())
    config.pop("scale_decoder_outputs", None)
    (dest / "config.json").write_text(json.dumps({**config, "tie_word_embeddings": False}))


# scale 0.1: T5 does not divide its scores by √d_k, so the default 0.25 gives scores large enough that float32
# rounding (transformers' GELU formula against torch's) passes the 1e-5 bound on attention weights; 0.1 is far from
# uniform still (test_the_comparison_is_not_trivial)
T5_GATED = Family("t5-gated", "t5", "T5Config", "T5ForConditionalGeneration", "encoder-decoder", t5_tokenizer,
                  dict(SHAPE, feed_forward_proj="gated-gelu", tie_word_embeddings=False), scale=0.1, edit=untie)
T5_RELU = Family("t5-relu", "t5", "T5Config", "T5ForConditionalGeneration", "encoder-decoder", t5_tokenizer,
                 dict(SHAPE, feed_forward_proj="relu", num_layers=3), scale=0.1)
