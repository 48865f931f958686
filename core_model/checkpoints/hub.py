"""What every Hugging Face importer (core_model/importers) repeats, so that an importer is its declarations and
its family's own arithmetic.

An importer declares a HubConfig: how config.json becomes our ModelConfig (a table: our field <- its key, what the
value must be, its default), the settings our network reproduces only at one value, the model classes
(`architectures`) whose weights it maps, and the fields every model of the family has alike. Reading through it
refuses, naming the field, what is read and what the file has: a key the family's config always has but this one
lacks (import_lacks), a value of another type or one the network cannot reproduce (import_setting), a model class
the import does not map (import_architecture). Each refusal carries the family's name as a field, so a new family
needs no new message (viz_app/i18n/errors.py words each code once). Here too: a per-layer weight-name table
spelled out for every layer, tensors read by their shapes alone, the tokenizer's size against the config, the card.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

import torch

from ..config import ModelConfig
from ..messages import coded, shortened
from ..nn.model import Transformer
from ..tokenizers import ByteLevelBPETokenizer
from .safe_load import CONFIG, CheckpointError, Loaded, hf_model_type, read_tensors, stored_types

REQUIRED = object()  # a Field's default where the family's config.json always has the key


@dataclass(frozen=True)
class Kind:
    """What a config value must be; `says` names it in a refusal."""
    says: str
    accepts: Callable[[object], bool]


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)  # JSON's true is no count


INTEGER = Kind("an integer", _whole)
TOKEN_ID = Kind("one token id", _whole)  # transformers also takes a list (several eos tokens); the core has one
NUMBER = Kind("a number", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool))
SWITCH = Kind("true or false", lambda v: isinstance(v, bool))  # a "false" string would be truthy
TEXT = Kind("a string", lambda v: isinstance(v, str))


def refuse(family: str, name: str, want: str, got, file: str = CONFIG) -> CheckpointError:
    """A value of config.json (or another settings `file`) that the import cannot read or reproduce: the field,
    what is read, what it has."""
    got = shortened(repr(got), 60)
    return CheckpointError(f"{file} has {name} = {got}; only {want} can be imported.", code="import_setting",
                           fields={"file": file, "family": family, "name": name, "want": want, "got": got})


def lacks(family: str, name: str) -> CheckpointError:
    """A field the family's config always has, missing."""
    return CheckpointError(f"{CONFIG} lacks {name}, which a {family} config has.", code="import_lacks",
                           fields={"file": CONFIG, "family": family, "name": name})


@dataclass(frozen=True)
class Field:
    """One config.json key read into one of our fields. `default` is what transformers takes when the key is
    absent (REQUIRED: the family's config always has it; None: null means "not set", left to the importer's
    arithmetic); `values`, if given, are the only values read, each with ours (transformers' activation names)."""
    key: str
    kind: Kind = INTEGER
    default: object = REQUIRED
    values: Mapping | None = None

    def read(self, hf: dict, family: str):
        if self.key not in hf and self.default is REQUIRED:
            raise lacks(family, self.key)
        value = hf.get(self.key, self.default)
        if value is None and self.default is None:
            return None
        if not self.kind.accepts(value):
            raise refuse(family, self.key, self.kind.says, value)
        if self.values is None:
            return value
        if value not in self.values:
            raise refuse(family, self.key, ", ".join(repr(v) for v in self.values), value)
        return self.values[value]


@dataclass(frozen=True)
class HubConfig:
    """How a family's config.json becomes our ModelConfig.

    fields         our ModelConfig field <- its key (read in this order: the first fault is named)
    needs          its key -> the one value our network reproduces (an absent key has it: transformers' default)
    same           (key, key): two numbers it keeps per stack that our config holds once, so they must be equal
    architectures  the model classes config.json may name whose weights the import maps
    fixed          our fields that every model of the family has alike
    """
    family: str
    fields: Mapping[str, Field]
    needs: Mapping[str, object] = field(default_factory=dict)
    same: tuple[tuple[str, str], ...] = ()
    architectures: tuple[str, ...] = ()
    fixed: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self):
        for name in ("fields", "needs", "fixed"):  # a declaration, read by every load: nobody changes it
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))

    def read(self, hf: dict) -> dict:
        """Our fields' values from config.json, by our names; CheckpointError naming the first field not read."""
        check_architectures(hf, self.family, self.architectures)
        for key, value in self.needs.items():
            if key in hf and (hf[key] != value or type(hf[key]) is not type(value)):  # 1 is not True here
                raise refuse(self.family, key, repr(value), hf[key])
        for first, second in self.same:
            if first in hf and hf.get(second) is not None and hf[second] != hf[first]:
                raise refuse(self.family, second, f"{first} ({shortened(repr(hf[first]), 40)})", hf[second])
        return {ours: field.read(hf, self.family) for ours, field in self.fields.items()}

    def model_config(self, values: dict, **more) -> ModelConfig:
        """Our config from `read`'s values (as the importer's arithmetic left them), `fixed` and `more`; a
        combination our network refuses (heads that do not divide the width, an id past the vocabulary) is named."""
        fields = {**self.fixed, **values, **more}
        try:
            return ModelConfig(**fields)
        except (TypeError, ValueError) as e:
            raise CheckpointError(f"{CONFIG}: {e}", code="config_invalid",
                                  fields={"file": CONFIG, "detail": str(e)}) from None


def check_architectures(hf: dict, family: str, known: tuple[str, ...]) -> None:
    """The model classes config.json names must be ones whose weights the import maps (a BertForMaskedLM keeps
    its body under "bert." beside a head, which a BERT import of BertModel's names would not find)."""
    named = hf.get("architectures")
    if named is None:  # older configs, and one saved from no model class, name none
        return
    if not isinstance(named, list) or not all(isinstance(n, str) for n in named):
        raise refuse(family, "architectures", "a list of model class names", named)
    for name in named:
        if name not in known:
            shown, maps = shortened(repr(name), 60), ", ".join(known)
            raise CheckpointError(f"{CONFIG} names the architecture {shown}, whose weights the {family} importer does "
                                  f"not map; it maps: {maps}.", code="import_architecture",
                                  fields={"file": CONFIG, "family": family, "got": shown, "known": maps})


def reads(path, model_types) -> bool:
    """Whether `path` is a Hugging Face folder of one of `model_types` (rather than one of our checkpoints)."""
    return hf_model_type(path) in model_types


def per_layer(table: Mapping[str, str], n: int, ours: str, theirs: str) -> dict[str, str]:
    """A layer's weight names (our name <- its name, each with .weight and .bias) spelled out for layers 0 … n-1,
    under our stack's prefix `ours` and the file's `theirs`."""
    return {f"{ours}.{i}.{mine}.{leaf}": f"{theirs}.{i}.{its}.{leaf}"
            for i in range(n) for mine, its in table.items() for leaf in ("weight", "bias")}


def read_shaped(path: Path, shapes: Mapping[str, tuple[int, ...]], rename: dict[str, str],
                ignore: tuple[str, ...]) -> dict[str, torch.Tensor]:
    """The weights' tensors (model.safetensors, or the shards model.safetensors.index.json names; any
    floating type read as float32), each checked against `shapes` (by the name `rename` gives it), before any model is
    built: the expected tensors are shapes only, and take no memory."""
    expected = {name: torch.empty(()).expand(shape) for name, shape in shapes.items()}
    return read_tensors(path, expected, rename=rename, ignore=ignore)


def decoder(path: Path, cfg: ModelConfig, ours: Mapping[str, torch.Tensor], about: str,
            tokenizer: type = ByteLevelBPETokenizer, file: str = "tokenizer.json") -> Loaded:
    """The decoder-only model of `cfg` holding our tensors `ours`, with the folder's `file` read as `tokenizer` (its
    roles the config's special ids, its size the embedding's) and the card `about`: how a decoder family's load ends."""
    model = Transformer.empty(cfg)
    model.fill(ours)
    roles = {"pad": cfg.pad_id, "unk": cfg.unk_id, "bos": cfg.bos_id, "eos": cfg.eos_id}
    read = read_tokenizer(file, tokenizer.load, path / file, roles)
    check_vocab(read, cfg.tgt_vocab_size, file)
    return Loaded(model.eval(), cfg, {"tgt": read}, about, path)


def read_tokenizer(file: str, read: Callable, *args, **kwargs):
    """`read(*args, **kwargs)`, a tokenizer loaded from `file`, with its ValueError said as a CheckpointError
    naming the file."""
    try:
        return read(*args, **kwargs)
    except CheckpointError:
        raise
    except ValueError as e:
        code, fields = coded(e)
        raise CheckpointError(str(e), code=code, fields={"file": file, **fields}) from None


# An embedding rounded up past its tokenizer's vocabulary (to a multiple of 8 or 128 for speed): OPT's 50,272 rows for
# 50,265 tokens, T5's 32,128 for 32,100. At most this many rows more are named <unused_k> (fit_vocab).
ROUNDED = 127


def fit_vocab(tokenizer, rows: int, file: str) -> None:
    """check_vocab, after naming each id from the tokenizer's last up to `rows` <unused_k> where the embedding is
    rounded up past the vocabulary by at most ROUNDED rows and the tokenizer can take such ids (pad_vocabulary)."""
    if 0 < rows - tokenizer.vocab_size <= ROUNDED and hasattr(tokenizer, "pad_vocabulary"):
        tokenizer.pad_vocabulary(rows)
    check_vocab(tokenizer, rows, file)


def check_vocab(tokenizer, want: int, file: str) -> None:
    """The tokenizer must have as many tokens as the model's embedding has rows."""
    n = tokenizer.vocab_size
    if n != want:
        raise CheckpointError(f"{file} has {n} tokens, but the config says {want}.", code="vocab_mismatch",
                              fields={"file": file, "n": n, "config": CONFIG, "field": "vocab_size", "want": want})


def card(path: Path, name: str, summary: str, into: str, after: str = "") -> str:
    """An imported model's card: what it is (`summary`), the folder's name (never the server's path), and
    which of our stacks it was mapped into."""
    readme = " (its README.md is there)" if (path / "README.md").is_file() else ""
    half = sorted(stored_types(path) - {"float32"})
    stored = f" Its weights are stored in {' and '.join(half)}, computed in float32." if half else ""
    return (f"# {name}\n\nA pretrained {summary}. Imported from the Hugging Face folder `{path.name}`{readme}, "
            f"mapped tensor by tensor into core_model's {into}.{stored}{after}\n")
