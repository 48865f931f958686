"""Import a pretrained ALBERT (a Hugging Face folder) into core_model's encoder.

ALBERT is BERT's post-norm encoder (checkpoints/hub_encoder.py) with two changes. Its embedding is factorised: the
token, position and token-type vectors and their LayerNorm are embedding_size wide, and
encoder.embedding_hidden_mapping_in (a linear layer with a bias) maps their sum to hidden_size, our factorised
embedding (ModelConfig.d_embed, Embeddings.project), even where the two widths are equal. And its layers share one
set of weights: albert_layer_groups.0.albert_layers.0 is read once and copied into every one of our layers (our
layers each keep their own copy; the numbers are the same). Several groups of shared layers (num_hidden_groups) or
several layers per group (inner_group_num) are refused, naming the field. Its activation is GELU's tanh
approximation (gelu_new) unless the config says otherwise; its tokenizer is sentencepiece-style (tokenizer.json with
▁ for a space, or spiece.model: tokenizers/folder.py), framing every text as [CLS] … [SEP]. AlbertModel keeps its
tensors as they are; AlbertForMaskedLM, AlbertForPreTraining and the other heads keep them under "albert." beside the
head (predictions.*, sop_classifier.*, …), which is not mapped: the import's output is the last hidden state.
"""
from __future__ import annotations

from pathlib import Path

from ..checkpoints import hub
from ..checkpoints import hub_encoder as encoder
from ..checkpoints.hub import TEXT, TOKEN_ID, Field
from ..checkpoints.safe_load import Loaded, read_hf_config
from ..config import ModelConfig

# What the registry reads (checkpoints/registry.py).
MODEL_TYPES, FAMILY, FILES = ("albert",), "ALBERT", encoder.FILES

CONFIG = hub.HubConfig(
    FAMILY, fields={**encoder.FIELDS, "activation": Field("hidden_act", TEXT, "gelu_new", encoder.ACTIVATIONS),
                    "d_embed": Field("embedding_size"), "pad_id": Field("pad_token_id", TOKEN_ID, 0)},
    needs={**encoder.NEEDS, "num_hidden_groups": 1, "inner_group_num": 1},  # one shared layer, used by every layer
    # the model classes whose body is ALBERT's, alone or under "albert." beside a task head (not mapped)
    architectures=("AlbertModel", "AlbertForMaskedLM", "AlbertForPreTraining", "AlbertForSequenceClassification",
                   "AlbertForTokenClassification", "AlbertForQuestionAnswering", "AlbertForMultipleChoice"),
    fixed=encoder.FIXED)
PREFIX = "albert."
# its masked-LM head (AlbertForMaskedLM, AlbertForPreTraining), mapped where the folder has it (ModelConfig.mlm_head)
MLM = encoder.mlm_names("predictions.dense", "predictions.LayerNorm", "predictions.bias")
SPECIALS = {"pad": "<pad>", "unk": "<unk>", "bos": "[CLS]", "eos": "[SEP]"}  # where tokenizer_config.json names none
SHARED = "encoder.albert_layer_groups.0.albert_layers.0"  # the one layer every layer is
PROJECT = "encoder.embedding_hidden_mapping_in"
LAYER = {  # our name <- its name, in the shared layer, each with .weight and .bias
    "self_attn.q_proj": "attention.query",
    "self_attn.k_proj": "attention.key",
    "self_attn.v_proj": "attention.value",
    "self_attn.out_proj": "attention.dense",
    "norm1": "attention.LayerNorm",
    "ffn.linear1": "ffn",
    "ffn.linear2": "ffn_output",
    "norm2": "full_layer_layer_norm",
}
UNUSED = ("pooler.weight", "pooler.bias", "embeddings.position_ids", "embeddings.token_type_ids")


def name_map(cfg: ModelConfig) -> dict[str, str]:
    """Every tensor of our encoder, by our name, with its name in an ALBERT checkpoint (no prefix): every layer's
    from the shared layer."""
    layers = {f"encoder.layers.{i}.{mine}.{leaf}": f"{SHARED}.{its}.{leaf}"
              for i in range(cfg.n_encoder_layers) for mine, its in LAYER.items() for leaf in ("weight", "bias")}
    project = {f"src_embed.project.{leaf}": f"{PROJECT}.{leaf}" for leaf in ("weight", "bias")}
    return {**encoder.EMBEDDINGS, **project, **layers}


def load(path, name: str = "") -> Loaded:
    """Load an ALBERT folder as an encoder-only core_model with its sentencepiece-style tokenizer."""
    path = Path(path)
    hf = read_hf_config(path)
    values = CONFIG.read(hf)
    tokenizer = encoder.read_tokenizer(path, SPECIALS, FAMILY, values)
    mlm = encoder.has_mlm_head(path, hf, MLM)
    cfg = CONFIG.model_config({**values, **encoder.special_ids(tokenizer), "mlm_head": mlm})
    model = encoder.build(path, cfg, name_map(cfg), PREFIX, unused=UNUSED, head=MLM)
    return encoder.loaded(path, name, model, cfg, tokenizer, FAMILY, "ALBERT: a factorised embedding, one layer's "
                                                                     "weights shared by every layer, sentencepiece")
