"""Local and sliding-window attention: GPT-Neo (a global and a local layer, window 4, no 1/√d_k, Q, K, V without bias)
and Mistral (Llama's network with a sliding window of 4 in every layer; grouped-query attention, 4 query heads sharing
2 key/value heads). The window is far shorter than the compared sentences and the greedy prompts with their output."""
from __future__ import annotations

from .llama import SHAPE, llama_tokenizer
from .spec import Family
from .tokenizers import byte_bpe

WINDOW = 4


def gpt_neo_tokenizer(dest):
    """GPT-2's byte-level BPE: <|endoftext|> (id 0) is bos, eos and unk."""
    end = "<|endoftext|>"
    tk = byte_bpe(dest, [end], bos_token=end, eos_token=end, unk_token=end)
    return {"vocab_size": tk.get_vocab_size(), "bos_token_id": 0, "eos_token_id": 0}


GPT_NEO = Family("gpt-neo", "gpt_neo", "GPTNeoConfig", "GPTNeoForCausalLM", "decoder", gpt_neo_tokenizer,
                 dict(hidden_size=32, num_heads=4, num_layers=2, intermediate_size=64, max_position_embeddings=128,
                      attention_types=[[["global", "local"], 1]], window_size=WINDOW))
MISTRAL = Family("mistral", "mistral", "MistralConfig", "MistralForCausalLM", "decoder", llama_tokenizer,
                 dict(SHAPE, num_key_value_heads=2, bos_token_id=1, eos_token_id=2, sliding_window=WINDOW))
