"""Gemma (multi-query, heads wider than hidden_size / num_attention_heads) and Llamas with RoPE scaling: llama3's
(Llama 3.1's, with heads of their own width too) and linear."""
from __future__ import annotations

from .llama import SHAPE, llama_tokenizer
from .spec import Family
from .tokenizers import byte_bpe


def gemma_tokenizer(dest):
    return {"vocab_size": byte_bpe(dest, ["<pad>", "<eos>", "<bos>", "<unk>"], bos_token="<bos>", eos_token="<eos>",
                                   pad_token="<pad>").get_vocab_size()}


# head_dim 16 with hidden 32 and 4 heads: W_Q is [64, 32], each head twice as wide as hidden_size / heads
GEMMA = Family("gemma", "gemma", "GemmaConfig", "GemmaForCausalLM", "decoder", gemma_tokenizer,
               dict(SHAPE, head_dim=16, num_key_value_heads=1, pad_token_id=0, eos_token_id=1, bos_token_id=2))
# original 64 with low 1, high 4: with head_dim 12 at base 10000, pairs of wavelength ≈ 6, 29, 135 … (fast, blended,
# slow) turn at each of llama3's three rates
LLAMA_ROPE3 = Family("llama-rope3", "llama", "LlamaConfig", "LlamaForCausalLM", "decoder", llama_tokenizer,
                     dict(SHAPE, head_dim=12, num_key_value_heads=2, bos_token_id=1, eos_token_id=2,
                          rope_parameters={"rope_type": "llama3", "rope_theta": 10000.0, "factor": 8.0,
                                           "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                           "original_max_position_embeddings": 64}))
LLAMA_LINEAR = Family("llama-linear", "llama", "LlamaConfig", "LlamaForCausalLM", "decoder", llama_tokenizer,
                      dict(SHAPE, num_key_value_heads=2, bos_token_id=1, eos_token_id=2,
                           rope_parameters={"rope_type": "linear", "rope_theta": 10000.0, "factor": 4.0}))
