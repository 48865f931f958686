"""Tokenizer files as the families' repositories ship them, trained here on a small corpus by the `tokenizers`
library and saved by transformers' own tokenizer classes."""
from __future__ import annotations

import string
from pathlib import Path

import tokenizers
import transformers

CORPUS = ["The cat sat on the mat, and the dog sat on the log.", "A quick brown fox jumps over the lazy dog!",
          "Attention heads read the previous token; some read the first one.", "naïve café owners drink crème brûlée",
          "Numbers like 1999 and 2024 split into pieces.", "猫が座った。 Tabs\tand\nnewlines stay."] * 8


def byte_bpe(dest: Path, specials: list[str], vocab_size: int = 300, corpus: list[str] = CORPUS,
             maker=transformers.PreTrainedTokenizerFast, prefix: str = "", **roles: str) -> tokenizers.Tokenizer:
    """A byte-level BPE `tokenizer.json` (GPT-2, Llama 3, SmolLM, Qwen2, Pythia, OPT, BART): `specials` first, at ids
    0, 1, …; saved by transformers' tokenizer class `maker` with `roles` (bos_token="<s>", …) as transformers does;
    `prefix`, one of `specials`, put before every text by the file's post-processor (OPT's </s>)."""
    tk = tokenizers.Tokenizer(tokenizers.models.BPE())
    if prefix:
        tk.post_processor = tokenizers.processors.TemplateProcessing(
            single=f"{prefix} $A", pair=f"{prefix} $A $B", special_tokens=[(prefix, specials.index(prefix))])
    tk.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = tokenizers.decoders.ByteLevel()
    tk.train_from_iterator(corpus, tokenizers.trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=specials, show_progress=False,
        initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet()))
    maker(tokenizer_object=tk, **roles).save_pretrained(dest)
    return tk


def wordpiece(dest: Path, specials: list[str], tokenizer_class: str = "BertTokenizer",
              vocab_size: int = 300) -> tokenizers.Tokenizer:
    """A WordPiece `tokenizer.json` (BERT, DistilBERT, ELECTRA) with BERT's lowercasing normalizer and [CLS] $A [SEP]
    framing: `specials` first, at ids 0, 1, … in the order given (a BERT need not keep [CLS] at 101); saved by
    transformers' `tokenizer_class` with the roles its repositories name, as they ship it."""
    tk = tokenizers.Tokenizer(tokenizers.models.WordPiece(unk_token="[UNK]"))
    tk.normalizer = tokenizers.normalizers.BertNormalizer(lowercase=True)
    tk.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    tk.decoder = tokenizers.decoders.WordPiece()
    tk.train_from_iterator(CORPUS, tokenizers.trainers.WordPieceTrainer(
        vocab_size=vocab_size, special_tokens=specials, show_progress=False,
        initial_alphabet=list(string.punctuation)))  # as BERT's vocabulary has every ASCII punctuation mark
    framing = [(t, tk.token_to_id(t)) for t in ("[CLS]", "[SEP]")]
    tk.post_processor = tokenizers.processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=framing)
    roles = dict(unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]", pad_token="[PAD]", mask_token="[MASK]")
    getattr(transformers, tokenizer_class)(tokenizer_object=tk, **roles).save_pretrained(dest)
    return tk


def roberta_bpe(dest: Path, vocab_size: int = 300) -> tokenizers.Tokenizer:
    """RoBERTa's byte-level BPE `tokenizer.json`: <s> <pad> </s> <unk> at 0 … 3, <mask> last, <s> $A </s> framing."""
    tk = tokenizers.Tokenizer(tokenizers.models.BPE())
    tk.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = tokenizers.decoders.ByteLevel()
    tk.train_from_iterator(CORPUS, tokenizers.trainers.BpeTrainer(
        vocab_size=vocab_size - 1, special_tokens=["<s>", "<pad>", "</s>", "<unk>"], show_progress=False,
        initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet()))
    tk.add_special_tokens([tokenizers.AddedToken("<mask>", lstrip=True)])
    tk.post_processor = tokenizers.processors.RobertaProcessing(("</s>", 2), ("<s>", 0), add_prefix_space=False)
    transformers.RobertaTokenizer(tokenizer_object=tk, bos_token="<s>", eos_token="</s>", sep_token="</s>",
                                  cls_token="<s>", unk_token="<unk>", pad_token="<pad>",
                                  mask_token="<mask>").save_pretrained(dest)
    return tk


# Sentencepiece models as the families train them: T5's unigram (pad 0, eos 1, unk 2, no bos; NFKC, extra spaces
# dropped) and Llama 2's BPE with byte fallback (unk 0, bos 1, eos 2; the text kept as it is, digits split).
T5_SPM = dict(model_type="unigram", vocab_size=80, pad_id=0, eos_id=1, unk_id=2, bos_id=-1)
LLAMA2_SPM = dict(model_type="bpe", vocab_size=330, byte_fallback=True, unk_id=0, bos_id=1, eos_id=2, pad_id=-1,
                  normalization_rule_name="identity", remove_extra_whitespaces=False, split_digits=True,
                  allow_whitespace_only_pieces=True)


def spm_model(corpus: list[str] = CORPUS, **options) -> bytes:
    """A sentencepiece model trained on `corpus` by the sentencepiece library (options: its trainer's)."""
    import io

    import sentencepiece

    out = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(sentence_iterator=iter(corpus), model_writer=out, hard_vocab_limit=False,
                                             minloglevel=2, **options)
    return out.getvalue()


def sentencepiece(dest: Path, model: bytes, file: str, tokenizer_class: str, keep_json: bool = True,
                  **roles) -> transformers.PreTrainedTokenizerBase:
    """A sentencepiece-style folder as the hub has them: the model `file` (spiece.model, tokenizer.model) and
    tokenizer_config.json naming `tokenizer_class` and the `roles`; with `keep_json`, the tokenizer.json that
    transformers' class converts it into (Unigram, or BPE with byte fallback, spelling a space ▁) beside them."""
    import json

    dest.mkdir(parents=True, exist_ok=True)
    (dest / file).write_bytes(model)
    (dest / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": tokenizer_class, **roles}))
    fast = transformers.AutoTokenizer.from_pretrained(dest)
    if keep_json:
        fast.save_pretrained(dest)
        (dest / file).write_bytes(model)
    return fast
