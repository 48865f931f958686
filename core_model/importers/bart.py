"""Import a pretrained BART (a Hugging Face folder) into core_model's encoder-decoder, traced under the same names
as ours, cross-attention included.

The folder holds `config.json` (model_type "bart"), `model.safetensors` as `save_pretrained` writes them, and
`tokenizer.json` (byte-level BPE) beside them; a folder with only `pytorch_model.bin` is refused before this module
is reached (checkpoints.check_files: a pickle can run code). What BART shares with Marian (its layers, names and
config keys) is in checkpoints/hub_encoder_decoder.py, and so is what it shares with mBART: learned positions with
an offset of 2 (position p reads row p + 2 of the stored table; rows 0 and 1 are never read, so the import keeps
rows 2 … as our rows 0 …) and a LayerNorm after the embedding sum (ModelConfig.embed_norm, BERT's too). BART's own:
a tokenizer whose encoder reads <s> … </s> (`frames_input`). Its decoder starts from </s> (decoder_start_token_id),
which is also its eos; the encoder's <s> is the config's bos_token_id.
"""
from __future__ import annotations

from pathlib import Path

from ..checkpoints import hub
from ..checkpoints import hub_encoder_decoder as seq2seq
from ..checkpoints.hub import TOKEN_ID, Field
from ..checkpoints.safe_load import Loaded, check_size, read_hf_config, required, within_limit
from ..nn.model import Transformer
from ..tokenizers import ByteLevelBPETokenizer

# What the registry reads (checkpoints/registry.py).
MODEL_TYPES, FAMILY, FILES = ("bart",), "BART", ("tokenizer.json",)

CONFIG = hub.HubConfig(
    FAMILY, fields=seq2seq.FIELDS,
    needs={**seq2seq.NEEDS, "normalize_embedding": True, "static_position_embeddings": False,
           "extra_pos_embeddings": seq2seq.OFFSET},
    same=seq2seq.SAME,
    architectures=("BartForConditionalGeneration", "BartModel"),
    fixed={**seq2seq.FIXED, "positional": "learned", "embed_norm": True})
ENCODER_BOS = Field("bos_token_id", TOKEN_ID)  # the encoder's <s>: not ours (our bos is the decoder's start)


def load(path, name: str = "") -> Loaded:
    """Load a BART folder as an encoder-decoder core_model with its byte-level BPE tokenizer."""
    path = Path(path)
    hf = read_hf_config(path)
    values = CONFIG.read(hf)  # before the tokenizer file: the config's fault is named first
    tokenizers = read_tokenizers(path, values, ENCODER_BOS.read(hf, FAMILY))
    cfg = CONFIG.model_config(values, unk_id=tokenizers["src"].unk_id)
    hub.check_vocab(tokenizers["src"], cfg.src_vocab_size, FILES[0])
    check_size(cfg)  # a config asking for a huge model is refused before the model is built
    at = seq2seq.layout(path, cfg)
    theirs = seq2seq.read(path, cfg, at, seq2seq.embedding_shapes(cfg))
    model = Transformer.empty(cfg)
    model.fill({**seq2seq.state_dict(theirs, cfg, at), **seq2seq.embedding_state_dict(theirs)})
    card = seq2seq.card(path, name or path.name, cfg, FAMILY, "a denoising sequence-to-sequence model: learned "
                        "positions, a byte-level BPE vocabulary", "</s>")
    return Loaded(model.eval(), cfg, tokenizers, card, path)


def read_tokenizers(path: Path, values: dict, encoder_bos: int) -> dict[str, ByteLevelBPETokenizer]:
    """tokenizer.json twice: the encoder's reads <s> … </s>, the decoder's starts from decoder_start_token_id."""
    file = within_limit(required(path, FILES[0]))
    pad, eos = values["pad_id"], values["eos_id"]
    sides = {"src": ({"pad": pad, "unk": "<unk>", "bos": encoder_bos, "eos": eos}, True),
             "tgt": ({"pad": pad, "unk": "<unk>", "bos": values["bos_id"], "eos": eos}, False)}
    return {side: hub.read_tokenizer(FILES[0], ByteLevelBPETokenizer.load, file, roles, framed)
            for side, (roles, framed) in sides.items()}
