"""A Hugging Face folder's tokenizer, whatever files it ships: the one entry point of the importers.

`read(path, roles)` picks the kind from the files present, in this order:
  tokenizer.json                        its model: byte-level BPE (byte_bpe.py), WordPiece (wordpiece.py), or
                                        sentencepiece-style Unigram or BPE spelling a space ▁ (metaspace.py);
  spiece.model, tokenizer.model,        a sentencepiece model read alone by the sentencepiece library, numbered by
  source.spm                            its own ids (spm_model.py);
  vocab.json + merges.txt               byte-level BPE built from them (GPT-2's files before tokenizer.json);
  vocab.txt                             WordPiece built from it (BERT's), lowercased unless do_lower_case says not.
A folder with none of them is refused naming the files looked for. The special tokens' roles are what the importer
passes (a config.json's ids), and where it passes none, what tokenizer_config.json and special_tokens_map.json name
(`specials`); the tokens they add (added_tokens_decoder) are added to a tokenizer built from vocab files.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..messages import CodedError, shortened
from .base import TokenizerLike
from .byte_bpe import ByteLevelBPETokenizer
from .hub import HubTokenizer, rust_call
from .metaspace import MetaspaceTokenizer
from .spm_model import SentencePieceModelTokenizer
from .wordpiece import WordPieceTokenizer

JSON, CONFIG, SPECIAL_MAP = "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"
SPM_FILES = ("spiece.model", "tokenizer.model", "source.spm")
VOCAB_JSON, MERGES, VOCAB_TXT = "vocab.json", "merges.txt", "vocab.txt"
# Every file `read` may open: an importer lists them in its FILES, so that an upload keeps them, within the limits.
FILES = (JSON, CONFIG, SPECIAL_MAP, *SPM_FILES, VOCAB_JSON, MERGES, VOCAB_TXT)
ROLES = ("pad", "unk", "bos", "eos", "cls", "sep", "mask")  # <role>_token in tokenizer_config.json
MAX_BYTES = 32 * 2**20  # tokenizer_config.json and special_tokens_map.json are a few KB (checkpoints checks first)


def _json(path: Path) -> dict:
    """A small JSON object file of the folder, or {} if absent; a ValueError naming it if it is no JSON object."""
    if not path.is_file():
        return {}
    try:
        if path.stat().st_size > MAX_BYTES:
            raise ValueError("too big")
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict):
        raise CodedError(f"The tokenizer file {path.name} is not a JSON object.", "tokenizer_not_json",
                         {"file": path.name})
    return data


def _content(value) -> str | None:
    """A token as the files write it: its text, or an AddedToken's {"content": text}."""
    if isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, str) else None


def specials(path) -> dict[str, str]:
    """The special tokens the folder's files name, by role (pad, unk, bos, eos, cls, sep, mask -> its text):
    tokenizer_config.json's <role>_token, and special_tokens_map.json's where the first lacks one."""
    path = Path(path)
    found = {}
    for name in (SPECIAL_MAP, CONFIG):  # tokenizer_config.json is what transformers reads last
        data = _json(path / name)
        found.update({role: text for role in ROLES if (text := _content(data.get(f"{role}_token")))})
    return found


def added_tokens(path) -> dict[int, tuple[str, bool]]:
    """The tokens tokenizer_config.json adds (added_tokens_decoder): id -> (text, special)."""
    added = _json(Path(path) / CONFIG).get("added_tokens_decoder")
    out = {}
    for ident, token in (added.items() if isinstance(added, dict) else ()):
        if str(ident).isdigit() and _content(token) is not None:
            out[int(ident)] = (_content(token), bool(token.get("special", True)))
    return out


def read(path, roles: dict[str, str | int | None], frames_input: bool | None = None,
         ends_with_eos: bool = False) -> TokenizerLike:
    """The folder's tokenizer, its kind chosen by the files present (see the module's docstring).

    `roles` maps pad, unk, bos and eos to a token's text or id (a config.json's); None, or a role left out, takes
    the token the folder's files name for it, and where they name none, eos's (GPT-2 pads with its one special
    token, Qwen2 has no bos). `frames_input`: the model reads every text framed (an encoder's);
    `ends_with_eos`: a sentencepiece model read alone frames the text as … </s> (T5's encoder).
    """
    path = Path(path)
    named = specials(path)
    want = {role: roles.get(role) if roles.get(role) is not None else named.get(role)
            for role in ("eos", "pad", "unk", "bos")}
    if want["eos"] is None:
        raise CodedError(f"Neither config.json nor {CONFIG} names the eos token.", "tokenizer_no_role",
                         {"role": "eos", "file": CONFIG})
    want = {role: want["eos"] if token is None else token for role, token in want.items()}
    if (path / JSON).is_file():
        return _from_json(path / JSON, want, frames_input)
    for name in SPM_FILES:
        if (path / name).is_file():
            return SentencePieceModelTokenizer.read(path / name, want, ends_with_eos, bool(frames_input))
    if (path / VOCAB_JSON).is_file() and (path / MERGES).is_file():
        return ByteLevelBPETokenizer(_byte_bpe(path, named), want, frames_input)
    if (path / VOCAB_TXT).is_file():
        return WordPieceTokenizer(_wordpiece(path, named), want, frames_input)
    looked = ", ".join((JSON, *SPM_FILES, f"{VOCAB_JSON} + {MERGES}", VOCAB_TXT))
    raise CodedError(f"The folder has no tokenizer: none of {looked}.", "tokenizer_none", {"files": looked})


def _from_json(file: Path, roles: dict, frames_input: bool | None) -> HubTokenizer:
    """tokenizer.json, read as the kind its model and pre-tokenizer say."""
    try:
        spec = json.loads(file.read_text(encoding="utf-8"))
        model = spec["model"].get("type") if isinstance(spec, dict) and isinstance(spec.get("model"), dict) else None
    except (ValueError, RecursionError):  # HubTokenizer.load names what is wrong with the file
        model = None
    if model == "WordPiece":
        return WordPieceTokenizer.load(file, roles, frames_input)
    if model == "BPE" and "ByteLevel" in json.dumps(spec.get("pre_tokenizer")) + json.dumps(spec.get("decoder")):
        return ByteLevelBPETokenizer.load(file, roles, frames_input)
    if model in ("Unigram", "BPE"):
        return MetaspaceTokenizer.load(file, roles, frames_input)
    raise CodedError(f"The tokenizer file {file.name} has a {shortened(str(model), 40)} model, which is not read: "
                     "only byte-level BPE, WordPiece and sentencepiece-style (Unigram, or BPE writing ▁) are.",
                     "tokenizer_model_kind", {"file": file.name, "model": shortened(str(model), 40)})


def _with_added(tokenizer, path: Path, named: dict[str, str]):
    """A tokenizer built from vocabulary files, with the tokens tokenizer_config.json adds and the roles' tokens
    as special tokens, as transformers adds them."""
    from tokenizers import AddedToken

    added = sorted(added_tokens(path).items())
    tokens = [AddedToken(text, special=special, normalized=not special) for _, (text, special) in added]
    tokens += [AddedToken(text, special=True, normalized=False) for text in named.values()
               if text not in {t for _, (t, _) in added}]
    tokenizer.add_special_tokens([t for t in tokens if t.special])
    tokenizer.add_tokens([t for t in tokens if not t.special])
    return tokenizer


def _byte_bpe(path: Path, named: dict[str, str]):
    """GPT-2's files before tokenizer.json: vocab.json and merges.txt, byte-level, as GPT2Tokenizer reads them."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    prefix = _json(path / CONFIG).get("add_prefix_space") is True
    bpe = rust_call(models.BPE.from_file, str(path / VOCAB_JSON), str(path / MERGES))
    tokenizer = Tokenizer(bpe)
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=prefix)
    tokenizer.decoder = decoders.ByteLevel()
    return _with_added(tokenizer, path, named)


def _wordpiece(path: Path, named: dict[str, str]):
    """BERT's vocab.txt, as BertTokenizer reads it: BERT's normalizer (lowercasing unless do_lower_case is false),
    its pre-tokenizer, ## continuations."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers

    config = _json(path / CONFIG)
    unk = named.get("unk", "[UNK]")
    tokenizer = Tokenizer(rust_call(models.WordPiece.from_file, str(path / VOCAB_TXT), unk_token=unk))
    tokenizer.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=config.get("tokenize_chinese_chars", True) is not False,
        strip_accents=config.get("strip_accents"), lowercase=config.get("do_lower_case", True) is not False)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()
    return _with_added(tokenizer, path, named)
