"""Import a pretrained DistilBERT (a Hugging Face folder) into core_model's encoder.

DistilBERT is BERT's post-norm encoder without token types (checkpoints/hub_encoder.py: learned positions, a
LayerNorm after the embedding sum, GELU, a WordPiece tokenizer) under other names: q_lin, k_lin, v_lin, out_lin for
W_Q, W_K, W_V, W_O, sa_layer_norm and output_layer_norm for the two norms, ffn.lin1 and ffn.lin2 for the FFN, under
"distilbert." beside a task head (DistilBertForMaskedLM's vocab_transform and vocab_projector, a classifier), which
is not mapped. Its LayerNorms' eps is transformers' fixed 1e-12. A model made with sinusoidal_pos_embds keeps its
sinusoid in the weights file as a table of positions like any other: the import reads that table as learned
positions (the numbers transformers reads).
"""
from __future__ import annotations

from pathlib import Path

from ..checkpoints import hub
from ..checkpoints import hub_encoder as encoder
from ..checkpoints.hub import TEXT, TOKEN_ID, Field
from ..checkpoints.safe_load import Loaded, read_hf_config
from ..config import ModelConfig

# What the registry reads (checkpoints/registry.py).
MODEL_TYPES, FAMILY, FILES = ("distilbert",), "DistilBERT", encoder.FILES

CONFIG = hub.HubConfig(
    FAMILY,
    fields={  # our field <- its key
        "src_vocab_size": Field("vocab_size"), "d_model": Field("dim"), "n_heads": Field("n_heads"),
        "n_encoder_layers": Field("n_layers"), "d_ff": Field("hidden_dim"),
        "activation": Field("activation", TEXT, "gelu", encoder.ACTIVATIONS),
        "max_len": Field("max_position_embeddings"), "pad_id": Field("pad_token_id", TOKEN_ID, 0)},
    # the model classes whose body is DistilBERT's, alone or under "distilbert." beside a task head (not mapped)
    architectures=("DistilBertModel", "DistilBertForMaskedLM", "DistilBertForSequenceClassification",
                   "DistilBertForTokenClassification", "DistilBertForQuestionAnswering",
                   "DistilBertForMultipleChoice"),
    fixed={**encoder.FIXED, "type_vocab_size": 0, "norm_eps": 1e-12})
PREFIX = "distilbert."
# its masked-LM head (DistilBertForMaskedLM), mapped where the folder has it (ModelConfig.mlm_head)
MLM = encoder.mlm_names("vocab_transform", "vocab_layer_norm", "vocab_projector.bias")

# our name <- its name
EMBEDDINGS = {ours: its for ours, its in encoder.EMBEDDINGS.items() if "token_type" not in ours}
LAYER = {  # in every layer, each with .weight and .bias
    "self_attn.q_proj": "attention.q_lin",
    "self_attn.k_proj": "attention.k_lin",
    "self_attn.v_proj": "attention.v_lin",
    "self_attn.out_proj": "attention.out_lin",
    "norm1": "sa_layer_norm",
    "ffn.linear1": "ffn.lin1",
    "ffn.linear2": "ffn.lin2",
    "norm2": "output_layer_norm",
}


def name_map(cfg: ModelConfig) -> dict[str, str]:
    """Every tensor of our encoder, by our name, with its name in a DistilBERT checkpoint (no prefix)."""
    return {**EMBEDDINGS, **hub.per_layer(LAYER, cfg.n_encoder_layers, "encoder.layers", "transformer.layer")}


def load(path, name: str = "") -> Loaded:
    """Load a DistilBERT folder as an encoder-only core_model with its WordPiece tokenizer."""
    path = Path(path)
    hf = read_hf_config(path)
    values = CONFIG.read(hf)
    tokenizer = encoder.read_tokenizer(path, encoder.BERT_SPECIALS, FAMILY, values)
    mlm = encoder.has_mlm_head(path, hf, MLM)
    cfg = CONFIG.model_config({**values, **encoder.special_ids(tokenizer), "mlm_head": mlm})
    model = encoder.build(path, cfg, name_map(cfg), PREFIX, head=MLM)
    return encoder.loaded(path, name, model, cfg, tokenizer, FAMILY, "DistilBERT: learned positions, WordPiece")
