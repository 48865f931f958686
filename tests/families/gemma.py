"""Gemma (multi-query, heads wider than hidden_size / num_attention_heads) and Llamas with RoPE scaling: llama3's
(Llama 3.1's, with heads of their own width too) and linear."""
from __future__ import annotations

from .llama import SHAPE, llama_tokenizer
from .spec import Family
from .tokenizers import sentencepiece, spm_model

# Gemma's sentencepiece BPE: pad 0, eos 1, bos 2, unk 3, <mask> 4, byte fallback, the text kept as it is (no dummy
# prefix); GemmaTokenizer converts it into the tokenizer.json the hub's folders hold (▁ for a space)
GEMMA_SPM = dict(model_type="bpe", vocab_size=330, byte_fallback=True, pad_id=0, eos_id=1, bos_id=2, unk_id=3,
                 pad_piece="<pad>", eos_piece="<eos>", bos_piece="<bos>", unk_piece="<unk>",
                 user_defined_symbols=["<mask>"], normalization_rule_name="identity", remove_extra_whitespaces=False,
                 split_digits=True, allow_whitespace_only_pieces=True, add_dummy_prefix=False)


def gemma_tokenizer(dest):
    fast = sentencepiece(dest, spm_model(**GEMMA_SPM), "tokenizer.model", "GemmaTokenizer")
    return {"vocab_size": len(fast)}


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
