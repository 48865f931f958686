"""Import a pretrained mBART (multilingual BART: mbart-large-cc25, mbart-large-50, their translation fine-tunes; a
Hugging Face folder) into core_model's encoder-decoder, traced under the same names as ours, cross-attention included.

The folder holds `config.json` (model_type "mbart"), `model.safetensors` as `save_pretrained` writes them, and
`tokenizer.json` (sentencepiece-style: a Unigram model writing a space as ▁, with <s> <pad> </s> <unk> at ids 0 to
3 and a language code per language, en_XX, ro_RO, … as special tokens) with `tokenizer_config.json` beside them.
What mBART shares with BART (its layers, names and config keys, learned positions with an offset of 2 and the
LayerNorm after the embedding sum) is in checkpoints/hub_encoder_decoder.py. mBART's own: its layers are pre-norm
(ModelConfig.norm_placement "pre") with a final LayerNorm on each stack (encoder.layer_norm, decoder.layer_norm: our
final_norm), whatever older configs say of normalize_before or add_final_layer_norm (transformers' MBart reads
neither); token embeddings × √d_model if `scale_embedding`.

Its language codes: the encoder reads `tokens </s> src_lang` (MBartTokenizer's suffix; src_lang from
tokenizer_config.json, en_XX when it names none), which must be how tokenizer.json's post-processor frames a text.
The decoder starts from decoder_start_token_id (generation_config.json's where the folder has one, else
config.json's; bos_token_id where it is null, as generate() takes it): our bos_id, </s> for mBART-50, a language code
for mbart-large-en-ro. A forced_bos_token_id from the same file (the target language's code mBART-50 forces first)
is read as the decoder's second start token (ModelConfig.forced_bos_id).
"""
from __future__ import annotations

from pathlib import Path

import torch

from ..checkpoints import hub
from ..checkpoints import hub_encoder_decoder as seq2seq
from ..checkpoints.hub import TOKEN_ID, Field
from ..checkpoints.safe_load import CONFIG as CONFIG_FILE
from ..checkpoints.safe_load import (GENERATION_FILE, CheckpointError, Loaded, check_size, read_hf_config,
                                     read_json_file, required, within_limit)
from ..config import ModelConfig
from ..messages import shortened
from ..nn.model import Transformer
from ..tokenizers import MetaspaceTokenizer

# What the registry reads (checkpoints/registry.py).
MODEL_TYPES, FAMILY, FILES = ("mbart",), "mBART", ("tokenizer.json", "tokenizer_config.json")

CONFIG = hub.HubConfig(
    FAMILY, fields={ours: field for ours, field in seq2seq.FIELDS.items() if ours != "bos_id"},  # bos_id: `starts`
    needs={"is_encoder_decoder": True, "add_bias_logits": False},
    same=seq2seq.SAME,
    architectures=("MBartForConditionalGeneration", "MBartModel"),
    fixed={**seq2seq.FIXED, "norm_placement": "pre", "positional": "learned", "embed_norm": True})
ENCODER_BOS = Field("bos_token_id", TOKEN_ID, 0)  # <s>: the encoder's (which it never reads)
SRC_LANG = "en_XX"  # MBartTokenizer's src_lang when tokenizer_config.json names none
# our final norm <- its name, per stack, each with .weight and .bias
FINAL_NORMS = {"encoder.final_norm": "encoder.layer_norm", "decoder.final_norm": "decoder.layer_norm"}


def load(path, name: str = "") -> Loaded:
    """Load an mBART folder as an encoder-decoder core_model with its sentencepiece-style tokenizer."""
    path = Path(path)
    hf = read_hf_config(path)
    values = CONFIG.read(hf)  # before the tokenizer file: the config's fault is named first
    values["bos_id"], forced = starts(path, hf)
    tokenizers = read_tokenizers(path, values, ENCODER_BOS.read(hf, FAMILY))
    cfg = CONFIG.model_config(values, unk_id=tokenizers["src"].unk_id, forced_bos_id=forced)
    hub.check_vocab(tokenizers["src"], cfg.src_vocab_size, FILES[0])
    check_size(cfg)  # a config asking for a huge model is refused before the model is built
    at = seq2seq.layout(path, cfg)
    theirs = seq2seq.read(path, cfg, at, {**seq2seq.embedding_shapes(cfg), **shapes(cfg)})
    model = Transformer.empty(cfg)
    model.fill({**seq2seq.state_dict(theirs, cfg, at), **seq2seq.embedding_state_dict(theirs),
                           **state_dict(theirs)})
    start = " ".join(tokenizers["tgt"].id_to_piece(i) for i in cfg.decoder_start)
    card = seq2seq.card(path, name or path.name, cfg, FAMILY, "a multilingual denoising and translation model: "
                        "pre-norm layers, learned positions, a sentencepiece vocabulary with language codes", start)
    return Loaded(model.eval(), cfg, tokenizers, card, path)


def shapes(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """mBART's own tensors, by their names without the prefix: each stack's final norm."""
    return {f"{its}.{leaf}": (cfg.d_model,) for its in FINAL_NORMS.values() for leaf in ("weight", "bias")}


def state_dict(theirs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Our final norms from mBART's."""
    return {f"{mine}.{leaf}": theirs[f"{its}.{leaf}"]
            for mine, its in FINAL_NORMS.items() for leaf in ("weight", "bias")}


def starts(path: Path, hf: dict) -> tuple[int, int | None]:
    """(the decoder's start token, its forced second token or None) as generate() takes them, from the folder's
    generation_config.json where it has one (config.json's settings are then not read), else from config.json:
    decoder_start_token_id, or bos_token_id where it is null; forced_bos_token_id."""
    file = path / GENERATION_FILE
    settings, name = (read_json_file(within_limit(file), GENERATION_FILE), GENERATION_FILE) if file.is_file() \
        else (hf, CONFIG_FILE)
    if not isinstance(settings, dict):
        raise CheckpointError(f"{GENERATION_FILE} must hold a JSON object of field names and values.",
                              code="config_not_object", fields={"file": GENERATION_FILE})
    found = {}
    for key in ("decoder_start_token_id", "bos_token_id", "forced_bos_token_id"):
        found[key] = settings.get(key)
        if found[key] is not None and not TOKEN_ID.accepts(found[key]):
            raise hub.refuse(FAMILY, key, TOKEN_ID.says, found[key], name)
    start = found["decoder_start_token_id"]
    start = found["bos_token_id"] if start is None else start
    if start is None:
        raise hub.refuse(FAMILY, "decoder_start_token_id", TOKEN_ID.says, None, name)
    return start, found["forced_bos_token_id"]


def read_tokenizers(path: Path, values: dict, encoder_bos: int) -> dict[str, MetaspaceTokenizer]:
    """tokenizer.json twice: the encoder's reads `tokens </s> src_lang`, the decoder's starts from bos_id."""
    file = within_limit(required(path, FILES[0]))
    pad, eos = values["pad_id"], values["eos_id"]
    sides = {"src": ({"pad": pad, "unk": "<unk>", "bos": encoder_bos, "eos": eos}, True),
             "tgt": ({"pad": pad, "unk": "<unk>", "bos": values["bos_id"], "eos": eos}, False)}
    tokenizers = {side: hub.read_tokenizer(FILES[0], MetaspaceTokenizer.load, file, roles, framed)
                  for side, (roles, framed) in sides.items()}
    check_source_frame(path, tokenizers["src"])
    return tokenizers


def check_source_frame(path: Path, tokenizer: MetaspaceTokenizer) -> None:
    """The encoder's text must end in </s> src_lang, src_lang as tokenizer_config.json names it (transformers' frame),
    and tokenizer.json's post-processor must frame it so."""
    file = path / FILES[1]
    settings = read_json_file(within_limit(file), FILES[1]) if file.is_file() else {}
    lang = settings.get("src_lang") if isinstance(settings, dict) else None
    lang = SRC_LANG if lang is None else lang
    code = tokenizer.piece_to_id(lang) if isinstance(lang, str) else tokenizer.unk_id
    want, got = [tokenizer.eos_id, code], tokenizer.frame([])
    if code == tokenizer.unk_id or got != want:
        shown, lang = " ".join(tokenizer.id_to_piece(i) for i in got) or "nothing", shortened(str(lang), 40)
        raise CheckpointError(f"{FILES[0]} puts {shown} after a text, but {FILES[1]} names src_lang {lang}: the "
                              f"encoder's text must end in </s> {lang}.", code="mbart_src_lang",
                              fields={"file": FILES[0], "config": FILES[1], "got": shown, "lang": lang})
