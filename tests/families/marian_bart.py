"""Marian (sentencepiece models trained here with the `sentencepiece` package and a vocab.json numbering their pieces,
written by MarianTokenizer; decoding starts from <pad>) and BART (byte-level BPE written by BartTokenizer)."""
from __future__ import annotations

import io
import json
import warnings

import sentencepiece
import transformers

from .spec import Family
from .tokenizers import byte_bpe

ENGLISH = ["the cat sat on the mat and the dog sat on the log", "a quick brown fox jumps over the lazy dog",
           "attention heads read the previous token and some read the first one", "naïve café owners drink coffee",
           "numbers like 1999 and 2024 split into pieces", "the small girl does not see the red car"] * 6
FRENCH = ["le chat est assis sur le tapis et le chien sur la bûche", "un renard brun rapide saute par-dessus le chien",
          "les têtes d'attention lisent le mot précédent", "les propriétaires de café boivent du café",
          "des nombres comme 1999 et 2024 sont coupés", "la petite fille ne voit pas la voiture rouge"] * 6
SIZES = dict(d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2, decoder_attention_heads=2,
             encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64, forced_eos_token_id=None)


def quiet(make):
    """Call `make` without MarianTokenizer's advice to install sacremoses (not installed: no Moses normalizer)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return make()


def spm_bytes(texts: list[str], vocab_size: int) -> bytes:
    """A sentencepiece model as Marian's are: unigram, NFKC normalization, no byte fallback."""
    buffer = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(sentence_iterator=iter(texts), model_writer=buffer,
                                             vocab_size=vocab_size, model_type="unigram", character_coverage=1.0,
                                             num_threads=1, minloglevel=2, hard_vocab_limit=False)
    return buffer.getvalue()


def marian_vocab(models: list[bytes]) -> dict[str, int]:
    """vocab.json as opus-mt's: </s> 0, <unk> 1, the pieces of both sentencepiece models, <pad> last."""
    vocab = {"</s>": 0, "<unk>": 1}
    for model in models:
        sp = sentencepiece.SentencePieceProcessor(model_proto=model)
        for i in range(sp.get_piece_size()):
            if not (sp.is_control(i) or sp.is_unknown(i)):
                vocab.setdefault(sp.id_to_piece(i), len(vocab))
    vocab[">>fra<<"] = len(vocab)  # a target-language token, as multilingual opus-mt models have
    vocab["<pad>"] = len(vocab)
    return vocab


def marian_tokenizer(dest):
    """source.spm, target.spm, vocab.json and tokenizer_config.json, as MarianTokenizer saves them."""
    raw = dest.parent / f"{dest.name}-raw"
    raw.mkdir(parents=True)
    models = [spm_bytes(ENGLISH, 120), spm_bytes(FRENCH, 120)]
    for name, model in zip(("source.spm", "target.spm"), models):
        (raw / name).write_bytes(model)
    vocab = marian_vocab(models)
    (raw / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    files = [str(raw / name) for name in ("source.spm", "target.spm", "vocab.json")]
    quiet(lambda: transformers.MarianTokenizer(*files, source_lang="en", target_lang="fr")).save_pretrained(dest)
    pad = vocab["<pad>"]
    return {"vocab_size": len(vocab), "pad_token_id": pad, "decoder_start_token_id": pad, "eos_token_id": 0}


def bart_tokenizer(dest):
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    tk = byte_bpe(dest, specials, vocab_size=400, corpus=ENGLISH, maker=transformers.BartTokenizer)
    return {"vocab_size": tk.get_vocab_size()}


MARIAN = Family("marian", "marian", "MarianConfig", "MarianMTModel", "encoder-decoder", marian_tokenizer,
                dict(SIZES, scale_embedding=True, activation_function="swish"))
BART = Family("bart", "bart", "BartConfig", "BartForConditionalGeneration", "encoder-decoder", bart_tokenizer, SIZES)
