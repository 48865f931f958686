"""Llama (grouped-query and multi-query) and Qwen2 (biases on Q, K and V; no bos token in its config)."""
from __future__ import annotations

from .spec import Family
from .tokenizers import byte_bpe

SHAPE = dict(hidden_size=32, num_attention_heads=4, num_hidden_layers=2, intermediate_size=64,
             max_position_embeddings=128)


def llama_tokenizer(dest):
    return {"vocab_size": byte_bpe(dest, ["<unk>", "<s>", "</s>"], bos_token="<s>", eos_token="</s>").get_vocab_size()}


def qwen2_tokenizer(dest):
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    return {"vocab_size": byte_bpe(dest, specials, eos_token="<|endoftext|>").get_vocab_size()}


LLAMA_GQA = Family("llama-gqa", "llama", "LlamaConfig", "LlamaForCausalLM", "decoder", llama_tokenizer,
                   dict(SHAPE, num_key_value_heads=2, bos_token_id=1, eos_token_id=2, rope_theta=500.0))
LLAMA_MQA = Family("llama-mqa", "llama", "LlamaConfig", "LlamaForCausalLM", "decoder", llama_tokenizer,
                   dict(SHAPE, num_key_value_heads=1, bos_token_id=1, eos_token_id=2, pad_token_id=0,
                        tie_word_embeddings=True))
QWEN2 = Family("qwen2", "qwen2", "Qwen2Config", "Qwen2ForCausalLM", "decoder", qwen2_tokenizer,
               dict(SHAPE, num_key_value_heads=2, bos_token_id=None, eos_token_id=0, rope_theta=1000.0))
# The grouped-query Llama as a larger hub model ships: in shards named by model.safetensors.index.json
LLAMA_SHARDED = Family("llama-sharded", "llama", "LlamaConfig", "LlamaForCausalLM", "decoder", llama_tokenizer,
                       LLAMA_GQA.fields, save=dict(max_shard_size="40KB"))
