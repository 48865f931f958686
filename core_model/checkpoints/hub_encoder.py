"""What the BERT-derived encoder importers share (core_model/importers/bert.py, roberta.py, electra.py, albert.py,
distilbert.py): the paper's post-norm encoder with a LayerNorm after the embedding sum, read from a folder saved from
the bare model (BertModel: tensors named "embeddings.…") or from a model class with a task head (BertForMaskedLM,
BertForSequenceClassification, ElectraForPreTraining, …: the body under the family's prefix, "bert.embeddings.…",
beside the head's tensors). A masked-LM head tied to the token embedding is mapped (ModelConfig.mlm_head: the output
is its logits); any other head (a classifier, ELECTRA's discriminator) is left out, the output the last hidden state.

Special tokens are read, not assumed: the roles' texts from tokenizer_config.json (or special_tokens_map.json), each
found in tokenizer.json (or vocab.txt, spiece.model, …: tokenizers/folder.py); a [CLS] need not sit at 101. The
tokenizer's padding token must be the config's pad_token_id, which transformers' embeddings (and RoBERTa's positions)
hold as their padding index.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import torch

from ..config import ModelConfig
from ..nn.model import Transformer
from . import hub
from .hub import NUMBER, TEXT, Field
from ..tokenizers import folder as tokenizer_folder
from .safe_load import Loaded, check_size, tensor_names

TOKENIZER = "tokenizer.json"  # the file a tokenizer's fault is named by
FILES = tokenizer_folder.FILES  # tokenizer.json, or the vocabulary files a repository ships instead, and the roles'
# transformers' name of the activation -> ours ("gelu" is the exact erf GELU; "gelu_new" its tanh approximation)
ACTIVATIONS = {"gelu": "gelu", "gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh", "relu": "relu",
               "silu": "silu", "swish": "silu"}
FIELDS = {  # our field <- its key, in BERT, RoBERTa, ELECTRA and ALBERT
    "src_vocab_size": Field("vocab_size"), "d_model": Field("hidden_size"),
    "n_heads": Field("num_attention_heads"), "n_encoder_layers": Field("num_hidden_layers"),
    "d_ff": Field("intermediate_size"), "activation": Field("hidden_act", TEXT, "gelu", ACTIVATIONS),
    "norm_eps": Field("layer_norm_eps", NUMBER, 1e-12), "max_len": Field("max_position_embeddings"),
    "type_vocab_size": Field("type_vocab_size", default=2)}
# Settings our encoder reproduces at one value only: relative position biases it has not got, and a BERT made a
# decoder (causal, BertLMHeadModel) or given cross-attention.
NEEDS = {"position_embedding_type": "absolute", "is_decoder": False, "add_cross_attention": False}
FIXED = dict(architecture="encoder", n_decoder_layers=0, dropout=0.0, norm="layernorm", norm_placement="post",
             positional="learned", scale_embedding=False, embed_norm=True)

# our name <- its name: BERT's embeddings and layer (RoBERTa's and ELECTRA's too)
EMBEDDINGS = {
    "src_embed.tok.weight": "embeddings.word_embeddings.weight",
    "src_embed.pos.weight": "embeddings.position_embeddings.weight",
    "src_embed.token_type.weight": "embeddings.token_type_embeddings.weight",
    "src_embed.norm.weight": "embeddings.LayerNorm.weight",
    "src_embed.norm.bias": "embeddings.LayerNorm.bias",
}
LAYER = {  # in every layer, each with .weight and .bias
    "self_attn.q_proj": "attention.self.query",
    "self_attn.k_proj": "attention.self.key",
    "self_attn.v_proj": "attention.self.value",
    "self_attn.out_proj": "attention.output.dense",
    "norm1": "attention.output.LayerNorm",
    "ffn.linear1": "intermediate.dense",
    "ffn.linear2": "output.dense",
    "norm2": "output.LayerNorm",
}
# What the import leaves out of the body: the pooler (a [CLS] summary for a head) and buffers of position and
# token-type indices that transformers keeps with the weights.
UNUSED = ("pooler.dense.weight", "pooler.dense.bias", "embeddings.position_ids", "embeddings.token_type_ids")
# The texts of the roles when tokenizer_config.json names none (BERT's, DistilBERT's, ELECTRA's)
BERT_SPECIALS = {"pad": "[PAD]", "unk": "[UNK]", "bos": "[CLS]", "eos": "[SEP]"}
ROLE_KEYS = {"pad": "pad", "unk": "unk", "bos": "cls", "eos": "sep"}  # ours <- the role tokenizer_config.json names


def bert_names(cfg: ModelConfig) -> dict[str, str]:
    """Every tensor of our encoder, by our name, with its name in a BERT-layout checkpoint (no prefix)."""
    return {**EMBEDDINGS, **hub.per_layer(LAYER, cfg.n_encoder_layers, "encoder.layers", "encoder.layer")}


def read_body(path: Path, shapes: Mapping[str, tuple[int, ...]], prefix: str, unused: tuple[str, ...] = UNUSED,
              outside: frozenset = frozenset()) -> dict[str, torch.Tensor]:
    """The body's tensors by their names without `prefix` ("bert."), each checked against `shapes`. A file whose
    names start with `prefix` was saved from a model class with a task head: every tensor outside the prefix is the
    head's (cls.predictions.*, classifier.*, lm_head.*) and is left out, but for those named in `outside` (a
    masked-LM head that is mapped), which are read by their names as they are."""
    names = tensor_names(path)
    at = prefix if any(n.startswith(prefix) for n in names) else ""
    head = tuple(n for n in names if at and not n.startswith(at) and n not in outside)
    rename = {(n if n in outside else at + n): n for n in shapes}
    return hub.read_shaped(path, shapes, rename, tuple(at + n for n in unused) + head)


def has_mlm_head(path: Path, hf: dict, head: Mapping[str, str]) -> bool:
    """Whether the folder holds a masked-LM head (`head`: our name <- its name, stored outside the body's prefix),
    its output layer tied to the token embedding, as transformers saves BertForMaskedLM: then ModelConfig.mlm_head."""
    names = set(tensor_names(path))
    return hf.get("tie_word_embeddings", True) is True and all(n in names for n in head.values())


def build(path: Path, cfg: ModelConfig, names: Mapping[str, str], prefix: str,
          arithmetic: Callable[[dict], dict] | None = None, shapes: Mapping | None = None,
          unused: tuple[str, ...] = UNUSED, head: Mapping[str, str] | None = None) -> Transformer:
    """Our encoder with the body's tensors: `names` is our name <- its name (one of its tensors may fill several of
    ours: ALBERT's shared layer); `shapes` overrides the shape of some of its tensors, and `arithmetic` turns the
    tensors read (by its names) into ours where a family stores them otherwise (RoBERTa's position offset); `unused`
    are the body's tensors left out (read_body). With cfg.mlm_head, `head` maps the masked-LM head's tensors (our
    name <- its name outside the prefix), its output layer being the token embedding."""
    check_size(cfg)  # a config asking for a huge model is refused before the model is built
    model = Transformer.empty(cfg)
    state = model.state_dict()
    head = dict(head or {}) if cfg.mlm_head else {}
    names = {**names, **head, **({"generator.weight": names["src_embed.tok.weight"]} if head else {})}
    wanted = {its: tuple(state[ours].shape) for ours, its in names.items()}
    theirs = read_body(path, {**wanted, **(shapes or {})}, prefix, unused, frozenset(head.values()))
    theirs = arithmetic(theirs) if arithmetic else theirs
    model.fill({ours: theirs[its] for ours, its in names.items()})
    return model.eval()


def mlm_names(dense: str, norm: str, bias: str) -> dict[str, str]:
    """A masked-LM head's tensors, our name <- its name: the transform's dense layer and norm, the output's bias."""
    return {**{f"mlm.dense.{leaf}": f"{dense}.{leaf}" for leaf in ("weight", "bias")},
            **{f"mlm.norm.{leaf}": f"{norm}.{leaf}" for leaf in ("weight", "bias")}, "generator.bias": bias}


def roles(path: Path, defaults: Mapping[str, str]) -> dict[str, str]:
    """Each role's token text as the folder's tokenizer files name it (tokenizer.folder.specials: pad_token,
    unk_token, cls_token as our bos, sep_token as our eos), or else `defaults`."""
    named = tokenizer_folder.specials(path)
    return {role: named.get(key) or defaults[role] for role, key in ROLE_KEYS.items()}


def read_tokenizer(path: Path, defaults: Mapping[str, str], family: str, values: dict):
    """The folder's tokenizer (tokenizer.json, or its vocabulary files: tokenizers.folder.read), framing every text
    as the encoder reads it, with the roles its files name (`roles`), as many tokens as the config's vocab_size
    (`values`, read by the HubConfig); its padding token must be the config's pad_token_id where the config has one
    (null or absent: the tokenizer's)."""
    tokenizer = hub.read_tokenizer(TOKENIZER, tokenizer_folder.read, path, roles(path, defaults), frames_input=True)
    hub.check_vocab(tokenizer, values["src_vocab_size"], TOKENIZER)
    pad_id = values.get("pad_id")
    if pad_id is not None and tokenizer.pad_id != pad_id:
        raise hub.refuse(family, "pad_token_id", f"the id of the tokenizer's padding token ({tokenizer.pad_id})",
                         pad_id)
    return tokenizer


def special_ids(tokenizer) -> dict[str, int]:
    """Our config's special ids, the tokenizer's: bos is [CLS] (or <s>), eos [SEP] (or </s>)."""
    return {"pad_id": tokenizer.pad_id, "unk_id": tokenizer.unk_id, "bos_id": tokenizer.bos_id,
            "eos_id": tokenizer.eos_id}


def loaded(path: Path, name: str, model: Transformer, cfg: ModelConfig, tokenizer, family: str, summary: str):
    """The Loaded encoder, its tokenizer on the source side, and its card."""
    card = hub.card(path, name or path.name, f"{family} encoder ({summary}): {cfg.n_encoder_layers} layers, "
                                             f"{cfg.n_heads} heads, {cfg.d_model} wide, a vocabulary of "
                                             f"{cfg.src_vocab_size}"
                                             f"{', with its masked-LM head' if cfg.mlm_head else ''}", "encoder")
    return Loaded(model, cfg, {"src": tokenizer}, card, path)

