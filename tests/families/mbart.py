"""mBART (mBART-50's layout): pre-norm layers with a final LayerNorm on each stack, a LayerNorm after the embedding
sum, embeddings × √d_model; a sentencepiece-style tokenizer with language codes whose encoder reads
`tokens </s> en_XX`, and a decoder that starts from </s> and is made to write ro_RO first (generation_config.json's
forced_bos_token_id)."""
from __future__ import annotations

from .spec import Family
from .tokenizers import CORPUS, sentencepiece, spm_model

SHAPE = dict(d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
             encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=128, scale_embedding=True)


def mbart_tokenizer(dest):
    # mBART's 250,000 pieces cover a colon, which CORPUS lacks (an <unk> decodes otherwise than in transformers)
    model = spm_model(CORPUS + ["Colons: one, two: three."] * 4, model_type="bpe", vocab_size=250)
    fast = sentencepiece(dest, model, "sentencepiece.bpe.model",
                         "MBartTokenizer", src_lang="en_XX", tgt_lang="ro_RO")
    return {"vocab_size": len(fast), "bos_token_id": 0, "pad_token_id": 1, "eos_token_id": 2,
            "decoder_start_token_id": 2, "forced_bos_token_id": fast.convert_tokens_to_ids("ro_RO")}


MBART = Family("mbart", "mbart", "MBartConfig", "MBartForConditionalGeneration", "encoder-decoder", mbart_tokenizer,
               dict(SHAPE), generation=("forced_bos_token_id",))
