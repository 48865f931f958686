"""Import a pretrained Marian translation model (opus-mt, a Hugging Face folder) into core_model's encoder-decoder,
traced under the same names as ours, cross-attention included.

The folder holds `config.json` (model_type "marian") and `model.safetensors` as `save_pretrained` writes them, and
source.spm, target.spm (sentencepiece) and vocab.json beside them (tokenizers/marian.py); a folder with only
`pytorch_model.bin` is refused before this module is reached (checkpoints.check_files: a pickle can run code).
What Marian shares with BART (its layers, names and config keys) is in checkpoints/hub_encoder_decoder.py.
Marian's own: sinusoidal positions whose sines fill the first half of the dimensions and the cosines the second
(ModelConfig.sinusoidal_layout "halves"; an older file's stored table must be that sinusoid), token embeddings
× √d_model if `scale_embedding`, SiLU for "swish", one vocabulary for both sides, and the encoder reads the text
and then </s>. Its decoder starts from <pad> (decoder_start_token_id), so it never masks its first position
(ModelConfig.mask_padding).
"""
from __future__ import annotations

from pathlib import Path

import torch

from ..checkpoints import hub
from ..checkpoints import hub_encoder_decoder as seq2seq
from ..checkpoints.safe_load import (CheckpointError, Loaded, check_size, read_hf_config, read_json_file, required,
                                     within_limit)
from ..config import ModelConfig
from ..nn.model import Transformer
from ..nn.positional import sinusoidal_table
from ..tokenizers import MarianTokenizer

# What the registry reads (checkpoints/registry.py).
MODEL_TYPES, FAMILY, FILES = ("marian",), "Marian", ("source.spm", "target.spm", "vocab.json")

CONFIG = hub.HubConfig(
    FAMILY, fields=seq2seq.FIELDS,
    needs={**seq2seq.NEEDS, "normalize_embedding": False, "static_position_embeddings": True,
           "share_encoder_decoder_embeddings": True},
    same=(*seq2seq.SAME, ("vocab_size", "decoder_vocab_size")),  # one vocabulary: the core has one per side, alike
    architectures=("MarianMTModel", "MarianModel"),
    fixed={**seq2seq.FIXED, "positional": "sinusoidal", "sinusoidal_layout": "halves", "embed_norm": False})


def load(path, name: str = "") -> Loaded:
    """Load a Marian folder as an encoder-decoder core_model with its two sentencepiece tokenizers."""
    path = Path(path)
    values = CONFIG.read(read_hf_config(path))  # before the tokenizer files: the config's fault is named first
    tokenizers = read_tokenizers(path, values)
    cfg = CONFIG.model_config(values, unk_id=tokenizers["src"].unk_id)
    hub.check_vocab(tokenizers["src"], cfg.src_vocab_size, "vocab.json")
    check_size(cfg)  # a config asking for a huge model is refused before the model is built
    at = seq2seq.layout(path, cfg)
    stored = {f"{stack}.embed_positions.weight" for stack in seq2seq.STACKS} & at.stored  # older files only
    theirs = seq2seq.read(path, cfg, at, {table: (cfg.max_len, cfg.d_model) for table in stored})
    check_positions(theirs, cfg, at)
    model = Transformer.empty(cfg)
    model.fill(seq2seq.state_dict(theirs, cfg, at))
    card = seq2seq.card(path, name or path.name, cfg, FAMILY,
                        "a translation model: sinusoidal positions, a sentencepiece vocabulary", "<pad>")
    return Loaded(model.eval(), cfg, tokenizers, card, path)


def check_positions(theirs: dict[str, torch.Tensor], cfg: ModelConfig, at: seq2seq.Layout) -> None:
    """A position table an older Marian file stored must be the sinusoid the import computes instead."""
    table = sinusoidal_table(cfg.max_len, cfg.d_model, cfg.positional_base, cfg.sinusoidal_layout)
    for stack in seq2seq.STACKS:
        stored = theirs.get(f"{stack}.embed_positions.weight")
        if stored is not None and not torch.allclose(stored.float(), table, atol=1e-4):
            name = at.in_file(f"{stack}.embed_positions.weight")
            raise CheckpointError(f"model.safetensors: {name} is not Marian's sinusoidal position table.",
                                  code="marian_positions", fields={"file": "model.safetensors", "tensor": name})


# ----- tokenizers ----------------------------------------------------------------------------------------------

def read_vocab(path: Path) -> dict[str, int]:
    """vocab.json: every piece with its id, the ids 0 … n-1 each once."""
    vocab = read_json_file(within_limit(required(path, "vocab.json")), "vocab.json")
    if not isinstance(vocab, dict) or not all(isinstance(i, int) and not isinstance(i, bool) for i in vocab.values()):
        raise CheckpointError("vocab.json must map each piece to its token id.", code="marian_vocab_not_map",
                              fields={"file": "vocab.json"})
    if sorted(vocab.values()) != list(range(len(vocab))):
        raise CheckpointError(f"vocab.json must number its pieces 0 to {len(vocab) - 1}, each once.",
                              code="marian_vocab_ids", fields={"file": "vocab.json", "most": len(vocab) - 1})
    return vocab


def roles(vocab: dict[str, int], values: dict) -> dict[str, int]:
    """pad, unk, bos (the decoder's start) and eos as ids; </s> and <pad> must be where config.json says."""
    for token, role in (("</s>", "eos"), ("<unk>", "unk"), ("<pad>", "pad")):
        if token not in vocab:
            raise CheckpointError(f"vocab.json has no {token} token for {role}.", code="tokenizer_no_token",
                                  fields={"file": "vocab.json", "token": token, "role": role})
    for token, ours, field in (("</s>", "eos_id", "eos_token_id"), ("<pad>", "pad_id", "pad_token_id")):
        if vocab[token] != values[ours]:
            raise CheckpointError(f"vocab.json has {token} at id {vocab[token]}, but config.json says {field} is "
                                  f"{values[ours]}.", code="special_mismatch",
                                  fields={"file": "vocab.json", "field": field, "config": "config.json",
                                          "got": vocab[token], "want": values[ours]})
    if not 0 <= values["bos_id"] < len(vocab):
        raise hub.refuse(FAMILY, "decoder_start_token_id", f"an id below {len(vocab)}", values["bos_id"])
    return {"pad": values["pad_id"], "unk": vocab["<unk>"], "bos": values["bos_id"], "eos": values["eos_id"]}


def read_tokenizers(path: Path, values: dict) -> dict[str, MarianTokenizer]:
    """The encoder's (source.spm, </s> after the text) and the decoder's (target.spm) tokenizer, one vocab.json."""
    vocab = read_vocab(path)
    specials = roles(vocab, values)
    out = {}
    for side, name in (("src", "source.spm"), ("tgt", "target.spm")):
        data = within_limit(required(path, name)).read_bytes()
        out[side] = hub.read_tokenizer(name, MarianTokenizer.load, data, vocab, specials,
                                       ends_with_eos=side == "src", name=name)
    return out
