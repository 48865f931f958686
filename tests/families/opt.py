"""OPT: pre-norm with a final LayerNorm (most sizes), and post-norm without one (do_layer_norm_before false, as
opt-350m); the tokenizer puts </s> (bos and eos) before every text."""
from __future__ import annotations

from .spec import Family
from .tokenizers import byte_bpe

SHAPE = dict(hidden_size=32, num_attention_heads=4, num_hidden_layers=2, ffn_dim=64, max_position_embeddings=128)


def opt_tokenizer(dest):
    tk = byte_bpe(dest, ["<s>", "<pad>", "</s>", "<unk>"], prefix="</s>", bos_token="</s>", eos_token="</s>",
                  pad_token="<pad>", unk_token="<unk>")
    return {"vocab_size": tk.get_vocab_size(), "bos_token_id": 2, "eos_token_id": 2, "pad_token_id": 1}


OPT = Family("opt", "opt", "OPTConfig", "OPTForCausalLM", "decoder", opt_tokenizer, dict(SHAPE))
OPT_POST = Family("opt-post", "opt", "OPTConfig", "OPTForCausalLM", "decoder", opt_tokenizer,
                  dict(SHAPE, do_layer_norm_before=False, enable_bias=False, tie_word_embeddings=False))
