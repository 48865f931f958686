"""The only place that caches: models with st.cache_resource, traced runs with st.cache_data.

Pages ask for a `Run` (one traced forward pass with its token labels); moving a layer, head
or step control re-draws from the cached run and never re-runs the model.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from core_model import checkpoint, decoding
from core_model.trace import Trace, run_with_trace

MODELS_DIR = Path(__file__).resolve().parent.parent / "assets" / "models"
DEFAULT_MODEL = "translate-en-fr"


def available_models() -> list[str]:
    """Shipped checkpoint folders, the default first."""
    names = sorted(p.name for p in MODELS_DIR.iterdir() if (p / checkpoint.CONFIG).is_file()) if MODELS_DIR.is_dir() else []
    return sorted(names, key=lambda n: n != DEFAULT_MODEL)


@st.cache_resource(max_entries=8, show_spinner=False)
def load_model(name: str) -> checkpoint.Loaded:
    """Load once per server; shared read-only by every session."""
    return checkpoint.load(MODELS_DIR / name)


@dataclass(frozen=True)
class Prepared:
    """Text made ready for a tokenizer: the ids, and what the page should tell the user."""
    ids: tuple[int, ...]
    notices: tuple[tuple[str, dict], ...]  # (i18n key, fields)


def clean(text: str) -> tuple[str, list[tuple[str, dict]]]:
    """Remove what no tokenizer can take (lone surrogates) or should see (control characters)."""
    notices = []
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        text = "".join(c for c in text if not 0xD800 <= ord(c) <= 0xDFFF)
        notices.append(("input.surrogate", {}))
    kept = "".join(c for c in text if unicodedata.category(c) != "Cc" or c in " ")
    if kept != text:
        notices.append(("input.control", {}))
    return kept, notices


def prepare(tokenizer, text: str, max_tokens: int) -> Prepared:
    """Tokenize `text`, cut to `max_tokens`, and note removed characters, truncation, unknown words."""
    text, notices = clean(text)
    ids = tokenizer.encode(text)
    if len(ids) > max_tokens:
        notices.append(("input.truncated", {"n": len(ids), "keep": max_tokens}))
        ids = ids[:max_tokens]
    pieces = [tokenizer.id_to_piece(i) for i in ids]
    word_ids = tokenizer.word_ids(ids)
    words = text.split()
    unknown = sorted({words[w] for w, p, i in zip(word_ids, pieces, ids)
                      if 0 <= w < len(words) and (i == tokenizer.unk_id or p.startswith("<0x"))})
    if unknown:
        notices.append(("input.unknown", {"words": ", ".join(unknown[:20])}))
    return Prepared(tuple(ids), tuple(notices))


def token_labels(tokenizer, ids) -> tuple[str, ...]:
    """'3·the': position and piece, so repeated tokens stay distinct on an axis."""
    def show(piece: str) -> str:
        return piece[1:] if piece.startswith("▁") and len(piece) > 1 else piece

    return tuple(f"{i}·{show(p)}" for i, p in enumerate(tokenizer.display_pieces(list(ids))))


@dataclass(frozen=True)
class Run:
    """One traced forward pass and what the pages need to label it."""
    model: str
    trace: Trace
    src_ids: tuple[int, ...]  # encoder input (empty for a decoder-only model)
    tgt_ids: tuple[int, ...]  # decoder input: <s> + target or prompt (empty for an encoder-only model)
    src_labels: tuple[str, ...]
    tgt_labels: tuple[str, ...]
    output: str  # the model's translation or continuation ("" for an encoder)
    notices: tuple[tuple[str, dict], ...]


@st.cache_data(max_entries=64, show_spinner=False)
def run(name: str, src_text: str, tgt_text: str = "", scale: bool = True, pad_mask: bool = True) -> Run:
    """Trace `name` on the text; without a target, the decoder reads the model's own output."""
    loaded = load_model(name)
    cfg = loaded.config
    side = "src" if cfg.has_encoder else "tgt"
    limit = cfg.max_len - 1 if cfg.has_decoder else cfg.max_len  # room for <s>
    prepared = prepare(loaded.tokenizers[side], src_text, limit)
    notices = list(prepared.notices)
    src_ids, tgt_ids, output = prepared.ids, (), ""
    if cfg.architecture == "decoder":
        tgt_ids, src_ids = (cfg.bos_id, *prepared.ids), ()
        output = loaded.tokenizers["tgt"].decode(list(decoding.greedy(loaded.model, prepared.ids, max_len=20).ids))
    elif cfg.architecture == "encoder-decoder":
        generated = decoding.greedy(loaded.model, prepared.ids, max_len=limit - 1).ids
        output = loaded.tokenizers["tgt"].decode(list(generated))
        target = generated
        if tgt_text.strip():
            forced = prepare(loaded.tokenizers["tgt"], tgt_text, limit)
            target, notices = forced.ids, notices + list(forced.notices)
        tgt_ids = (cfg.bos_id, *target)
    _, trace = run_with_trace(loaded.model, list(src_ids) or None, list(tgt_ids) or None,
                              scale=scale, pad_mask=pad_mask)
    return Run(name, trace, src_ids, tgt_ids,
               token_labels(loaded.tokenizers["src"], src_ids) if src_ids else (),
               token_labels(loaded.tokenizers["tgt"], tgt_ids) if tgt_ids else (),
               output, tuple(notices))
