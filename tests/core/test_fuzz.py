"""Property tests over arbitrary text and small random models.

test_tokenizer.py fuzzes a tokenizer trained in the test; here it is the shipped ones, with
surrogates, pieces of their own vocabularies and the characters that trip tokenizers mixed in.
test_trace.py checks rows, masks and tracing on a few fixed configs; here every field of
ModelConfig that changes the forward pass is drawn at random, with random ids and padding.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from core_model import ModelConfig, Transformer, run_with_trace
from core_model.config import ACTIVATIONS, ARCHITECTURES, NORM_PLACEMENTS, NORMS, POSITIONALS
from core_model.tokenizer import Tokenizer
from tests.core.test_tokenizer import is_utf8

MODELS = Path(__file__).resolve().parents[2] / "assets" / "models"
TOKENIZERS = {f"{p.parent.name}/{p.name}": Tokenizer.load(p) for p in sorted(MODELS.glob("*/*.model"))}
PIECES = sorted({tok.id_to_piece(i) for tok in TOKENIZERS.values() for i in range(tok.vocab_size)
                 if not tok.is_special(i) and not tok.id_to_piece(i).startswith("<0x")})
# Combining marks, joiners, bidi controls, BOM, NUL, CRLF, ideographic space, the meta symbol ▁,
# the private-use characters the tokenizer borrows to encode ▁, emoji sequences, lone surrogates.
TRICKY = ["\u0301", "\u0308\u0323", "\u200d", "\u200f", "\u202e", "\u2066", "\ufeff", "\x00", "\r\n",
          "\t", " ", "  ", "\u3000", "\u2581", "\ue000", "\U000f0000", "\U0010fffd", "\ufffd",
          "👩‍👩‍👧", "🇫🇷", "👍🏽", "שלום", "مرحبا", "猫", "ﬁ", "Ａ", "\ud800", "\udfff", "<s>", "</s>", "<0xE2>"]

texts = st.lists(
    st.one_of(st.characters(codec=None, exclude_categories=()), st.sampled_from(TRICKY),
              st.sampled_from(PIECES)),
    max_size=30).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(TOKENIZERS)), texts, st.booleans())
def test_shipped_tokenizers_give_any_text_back_or_refuse_it_in_a_sentence(name, text, framed):
    tok = TOKENIZERS[name]
    if not is_utf8(text):
        try:
            tok.encode(text)
        except ValueError as e:
            assert "lone surrogate" in str(e) and "cannot be tokenized" in str(e)
            return
        raise AssertionError("a text with a lone surrogate was accepted")
    ids = tok.encode(text, add_bos=framed, add_eos=framed)
    assert all(0 <= i < tok.vocab_size for i in ids) and tok.unk_id not in ids  # byte fallback
    assert tok.decode(ids) == text
    assert len(tok.word_ids(ids)) == len(tok.display_pieces(ids)) == len(ids)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(TOKENIZERS)), st.data())
def test_any_ids_a_model_may_output_decode_to_text(name, data):
    tok = TOKENIZERS[name]
    ids = data.draw(st.lists(st.integers(0, tok.vocab_size - 1), max_size=30))
    text = tok.decode(ids)  # byte pieces that spell no character come back as U+FFFD
    assert isinstance(text, str) and is_utf8(text)
    assert len(tok.word_ids(ids)) == len(tok.display_pieces(ids)) == len(ids)


# ----- random models --------------------------------------------------------------------------

@st.composite
def configs(draw) -> ModelConfig:
    """A small valid ModelConfig; draws that ModelConfig itself refuses are thrown away."""
    architecture = draw(st.sampled_from(ARCHITECTURES))
    n_heads, d_head = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    fields = dict(
        architecture=architecture, n_heads=n_heads, d_model=n_heads * d_head,
        src_vocab_size=draw(st.integers(5, 30)), tgt_vocab_size=draw(st.integers(5, 30)),
        n_encoder_layers=draw(st.integers(1, 2)), n_decoder_layers=draw(st.integers(1, 2)),
        d_ff=draw(st.integers(1, 16)), dropout=draw(st.sampled_from([0.0, 0.5])),
        activation=draw(st.sampled_from(ACTIVATIONS)), norm=draw(st.sampled_from(NORMS)),
        norm_placement=draw(st.sampled_from(NORM_PLACEMENTS)),
        positional=draw(st.sampled_from(POSITIONALS)),
        positional_base=draw(st.sampled_from([2.0, 10000.0, 1e6])), max_len=draw(st.integers(1, 12)),
        scale_embedding=draw(st.booleans()), tie_embeddings=draw(st.booleans()),
        embed_norm=draw(st.booleans()), type_vocab_size=draw(st.sampled_from([0, 2])),
        bias=draw(st.booleans()))
    try:
        return ModelConfig(**fields)
    except ValueError:
        assume(False)


def padded_ids(draw, batch: int, length: int, vocab: int) -> torch.Tensor:
    """[batch, length] ids in 0..vocab-1 (0 is <pad>, anywhere), each row padded after a random cut."""
    rows = []
    for _ in range(batch):
        n_real = draw(st.integers(0, length))  # 0: a sentence of padding only
        rows.append(draw(st.lists(st.integers(0, vocab - 1), min_size=n_real, max_size=n_real))
                    + [0] * (length - n_real))
    return torch.tensor(rows, dtype=torch.long)


def allowed_keys(cfg: ModelConfig, kind: str, stack: str, src, tgt, pad_mask: bool) -> np.ndarray:
    """[b, 1, q, k]: which keys each query may see, worked out from the ids alone."""
    keys = src if kind == "cross_attn" or stack == "encoder" else tgt
    queries = src if stack == "encoder" else tgt
    allowed = np.ones((len(keys), 1, queries.shape[1], keys.shape[1]), dtype=bool)
    if pad_mask:
        allowed &= (keys.numpy() != cfg.pad_id)[:, None, None, :]
    if stack == "decoder" and kind == "self_attn":
        allowed &= np.tril(np.ones((queries.shape[1], keys.shape[1]), dtype=bool))
    return allowed


def check_attention(view, allowed: np.ndarray, n_heads: int, d_head: int) -> None:
    b, _, q, k = allowed.shape
    for scores in (view.scores, view.scores_scaled, view.scores_masked, view.pattern):
        assert scores.shape == (b, n_heads, q, k)
    assert view.q.shape == view.z.shape == (b, n_heads, q, d_head)
    assert view.k.shape == view.v.shape == (b, n_heads, k, d_head)
    allowed = np.broadcast_to(allowed, view.pattern.shape)
    assert np.all(np.isneginf(view.scores_masked[~allowed]))
    assert np.all(np.isfinite(view.scores_masked[allowed]))
    assert np.all(view.pattern[~allowed] == 0.0)  # masked keys, the future among them
    assert np.all(view.pattern >= 0.0)
    sums, open_rows = view.pattern.sum(-1), allowed.any(-1)
    np.testing.assert_allclose(sums[open_rows], 1.0, rtol=0, atol=1e-5)
    assert np.all(sums[~open_rows] == 0.0)  # a row with nothing to see: zeros, never NaN


@settings(max_examples=150, deadline=None)
@given(configs(), st.data())
def test_random_models_trace_sound_attention_and_change_nothing(cfg, data):
    torch.manual_seed(data.draw(st.integers(0, 2**16)))
    model = Transformer(cfg).eval()
    with torch.no_grad():  # larger weights push softmax towards one-hot rows
        for p in model.parameters():
            p.mul_(data.draw(st.sampled_from([0.1, 1.0, 8.0])))
    batch = data.draw(st.integers(1, 3))
    src = padded_ids(data.draw, batch, data.draw(st.integers(1, cfg.max_len)), cfg.src_vocab_size) \
        if cfg.has_encoder else None
    tgt = padded_ids(data.draw, batch, data.draw(st.integers(1, cfg.max_len)), cfg.tgt_vocab_size) \
        if cfg.has_decoder else None
    types = torch.randint(0, cfg.type_vocab_size, src.shape) if cfg.type_vocab_size and src is not None else None
    pad_mask, scale = data.draw(st.booleans()), data.draw(st.booleans())

    out, trace = run_with_trace(model, src, tgt, scale=scale, pad_mask=pad_mask, token_types=types)
    with torch.no_grad():
        plain = model(src, tgt, pad_mask=pad_mask, token_types=types) if scale else None
    if plain is not None:  # scale=False is a teaching switch with no untraced equivalent
        assert torch.equal(out, plain)
    for name in trace.names:
        values = trace[name]
        assert not np.isnan(values).any(), name
        assert name.endswith("scores_masked") or np.isfinite(values).all(), name
    blocks = [("encoder", "self_attn")] * cfg.has_encoder + [("decoder", "self_attn")] * cfg.has_decoder
    blocks += [("decoder", "cross_attn")] * (cfg.has_encoder and cfg.has_decoder)
    for stack, kind in blocks:
        n_layers = cfg.n_encoder_layers if stack == "encoder" else cfg.n_decoder_layers
        assert trace.n_layers(stack) == n_layers
        allowed = allowed_keys(cfg, kind, stack, src, tgt, pad_mask)
        for layer in range(n_layers):
            check_attention(trace.attn(stack, layer, kind), allowed, cfg.n_heads, cfg.d_head)
    if cfg.has_decoder:
        np.testing.assert_allclose(trace["probs"].sum(-1), 1.0, rtol=0, atol=1e-5)
