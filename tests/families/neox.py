"""GPT-NeoX (Pythia: parallel blocks; and sequential ones) and Phi (one norm shared by both blocks), each with RoPE on
only part of each head."""
from __future__ import annotations

from .spec import Family
from .tokenizers import byte_bpe

SHAPE = dict(hidden_size=32, num_attention_heads=4, num_hidden_layers=2, intermediate_size=64,
             max_position_embeddings=128)


def pythia_tokenizer(dest):
    tk = byte_bpe(dest, ["<|endoftext|>", "<|padding|>"], bos_token="<|endoftext|>", eos_token="<|endoftext|>",
                  pad_token="<|padding|>")
    return {"vocab_size": tk.get_vocab_size()}


def phi_tokenizer(dest):
    return {"vocab_size": byte_bpe(dest, ["<|endoftext|>"], bos_token="<|endoftext|>",
                                   eos_token="<|endoftext|>").get_vocab_size()}


PYTHIA = Family("pythia", "gpt_neox", "GPTNeoXConfig", "GPTNeoXForCausalLM", "decoder", pythia_tokenizer,
                dict(SHAPE, use_parallel_residual=True, rotary_pct=0.25, bos_token_id=0, eos_token_id=0))
NEOX_SEQUENTIAL = Family("neox-sequential", "gpt_neox", "GPTNeoXConfig", "GPTNeoXForCausalLM", "decoder",
                         pythia_tokenizer, dict(SHAPE, use_parallel_residual=False, rotary_pct=0.5,
                                                rotary_emb_base=500, hidden_act="gelu_new", bos_token_id=0,
                                                eos_token_id=0, pad_token_id=1))
PHI = Family("phi", "phi", "PhiConfig", "PhiForCausalLM", "decoder", phi_tokenizer,
             dict(SHAPE, partial_rotary_factor=0.5, bos_token_id=0, eos_token_id=0))
