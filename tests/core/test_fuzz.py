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
from core_model.tokenizers import Tokenizer
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


# ----- the checkpoint loader, fed hostile files -----------------------------------------------
# Whatever config.json, safetensors header or zip a stranger sends, the loader either loads it or
# raises CheckpointError: any other exception (OverflowError, RecursionError, a Rust panic) would
# reach the server as a crash. Nothing may be built that the size check should have refused, and
# nothing may be written outside the folder a zip is unpacked into.

import io  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import warnings  # noqa: E402
import zipfile  # noqa: E402

import pytest  # noqa: E402

from core_model import checkpoints  # noqa: E402
from core_model.checkpoints import folder  # noqa: E402
from core_model.checkpoints import CheckpointError  # noqa: E402
from core_model.messages import MAX_MESSAGE  # noqa: E402
from core_model.checkpoints.safe_load import MAX_LAYERS, MAX_POSITIONS, MAX_WEIGHT_BYTES, weight_count  # noqa: E402
from tests.bad_checkpoints import REVERSE, safetensors_bytes  # noqa: E402

REVERSE_CONFIG = json.loads((REVERSE / "config.json").read_text(encoding="utf-8"))
REVERSE_WEIGHTS = (REVERSE / "model.safetensors").read_bytes()
HEADER_END = 8 + int.from_bytes(REVERSE_WEIGHTS[:8], "little")
REVERSE_HEADER = json.loads(REVERSE_WEIGHTS[8:HEADER_END])

# Integers of every size that matters: around the limits, past int64 and float, near Python's 4,300 digits.
big_ints = st.one_of(
    st.sampled_from([MAX_LAYERS, MAX_LAYERS + 1, MAX_POSITIONS, MAX_POSITIONS + 1, 2**31, 2**63, 2**64,
                     10**9, 10**19, 10**309, 10**320, 10**4000, -10**320]),
    st.integers(-2, 2**16), st.integers())
HUGE = [10**9, 2**63, 10**309, 2**1100, 10**320, -10**320, 10**4000, 1e308, float("inf")]  # past int64, float
SIZE_FIELDS = ["src_vocab_size", "tgt_vocab_size", "d_model", "n_heads", "d_ff", "n_encoder_layers",
               "n_decoder_layers", "max_len", "type_vocab_size", "positional_base", "norm_eps"]
big_floats = st.one_of(st.floats(), st.sampled_from([1e308, -1e308, 5e-324, 3e38, 0.5, 1.0, 2.0]))
json_scalars = st.one_of(
    st.none(), st.booleans(), big_ints, big_floats, st.text(max_size=20),
    st.sampled_from(["rope", "learned", "decoder", "encoder", "gelu", "rmsnorm", "pre", "x" * 5000]))
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=8)


def dumps(value) -> str:
    """JSON text as a hostile file may hold it: NaN and Infinity allowed, integers of any length."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return json.dumps(value)
    finally:
        sys.set_int_max_str_digits(old)


@pytest.fixture(scope="module")
def fuzz_folder(tmp_path_factory):
    """One copy of the reverse model whose files each example overwrites (and the next restores)."""
    return Path(shutil.copytree(REVERSE, tmp_path_factory.mktemp("fuzz") / "reverse"))


@pytest.fixture(scope="module")
def built_configs():
    """The configs of every model the loaders build while this module's fuzz runs."""
    import core_model.checkpoints.hub_encoder as encoder_module  # BERT's build (the fuzz's MiniLM folder)

    made, real = [], folder.Transformer.empty
    assert encoder_module.Transformer is folder.Transformer  # one class: spying on its builder sees both

    def spy(cfg):
        made.append(cfg)
        return real(cfg)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(folder.Transformer, "empty", spy)
        yield made


def loads_or_refuses(folder: Path) -> None:
    try:
        checkpoints.load(folder)
    except CheckpointError as e:
        assert len(str(e)) <= MAX_MESSAGE and e.kind in ("invalid", "limit", "unsafe", "numbers")
    except BaseException as e:  # a Rust panic is a BaseException; KeyboardInterrupt stops the run
        if isinstance(e, KeyboardInterrupt):
            raise
        raise AssertionError(f"load raised {type(e).__name__}: {str(e)[:300]}") from e


@st.composite
def hostile_configs(draw):
    """The reverse model's config.json with one size set to a number past what a float holds, or a few
    fields replaced, removed or added, or not an object at all."""
    how = draw(st.sampled_from(["huge size", "huge size", "fields", "fields", "fields", "fields", "not an object"]))
    if how == "not an object":
        return draw(json_values)
    fields = dict(REVERSE_CONFIG)
    if how == "huge size":
        fields[draw(st.sampled_from(SIZE_FIELDS))] = draw(st.sampled_from(HUGE))
        return fields
    names = st.one_of(st.sampled_from(SIZE_FIELDS), st.sampled_from(sorted(fields)))  # sizes half of the time
    for name in draw(st.lists(names, unique=True, min_size=1, max_size=3)):
        fields[name] = draw(st.one_of(big_ints, json_values))  # mostly one field, mostly a number
    if draw(st.integers(0, 9)) == 0:
        del fields[draw(st.sampled_from(sorted(fields)))]
    if draw(st.integers(0, 9)) == 0:
        fields.update(draw(st.dictionaries(st.text(max_size=10), json_scalars, max_size=2)))
    return fields


@settings(max_examples=150, deadline=None)
@given(hostile_configs())
def test_any_config_json_loads_or_is_refused_as_a_checkpoint_error(fuzz_folder, built_configs, config):
    (fuzz_folder / "config.json").write_text(dumps(config), encoding="utf-8")
    built_configs.clear()
    loads_or_refuses(fuzz_folder)
    for cfg in built_configs:  # nothing the size check should have refused was ever built
        assert max(cfg.n_encoder_layers, cfg.n_decoder_layers) <= MAX_LAYERS
        assert cfg.max_len <= MAX_POSITIONS and 4 * weight_count(cfg) <= MAX_WEIGHT_BYTES


@st.composite
def hostile_headers(draw) -> bytes:
    """The bytes of a model.safetensors: its real header with entries mangled, random JSON, or random bytes,
    behind a length prefix that is right or anything, with the real tensor data or none."""
    how = draw(st.sampled_from(["mangled", "json", "bytes"]))
    if how == "mangled":
        header = json.loads(json.dumps(REVERSE_HEADER))
        names = sorted(k for k in header if k != "__metadata__")
        for name in draw(st.lists(st.sampled_from(names), unique=True, min_size=1, max_size=3)):
            key = draw(st.sampled_from(["dtype", "shape", "data_offsets", None]))
            if key is None:
                header[name] = draw(json_values)
            elif key == "dtype":
                header[name][key] = draw(st.one_of(st.sampled_from(["F32", "F16", "BF16", "F64", "I64", "U8", "BOOL",
                                                                    "F8_E4M3", "C64", "Q4"]), json_values))
            else:
                header[name][key] = draw(st.one_of(st.lists(big_ints, max_size=4), json_values))
        text = dumps(header).encode()
    elif how == "json":
        text = dumps(draw(json_values)).encode()
    else:
        text = draw(st.binary(max_size=200))
    length = draw(st.one_of(st.just(len(text)), st.integers(0, 2**64 - 1), st.integers(0, len(text) + 16)))
    body = REVERSE_WEIGHTS[HEADER_END:] if draw(st.booleans()) else draw(st.binary(max_size=64))
    return length.to_bytes(8, "little") + text + body


@settings(max_examples=150, deadline=None)
@given(st.one_of(hostile_headers(), st.binary(max_size=40)))
def test_any_safetensors_header_is_refused_as_a_checkpoint_error(fuzz_folder, data):
    (fuzz_folder / "config.json").write_bytes((REVERSE / "config.json").read_bytes())
    (fuzz_folder / "model.safetensors").write_bytes(data)
    try:
        loads_or_refuses(fuzz_folder)
    finally:
        (fuzz_folder / "model.safetensors").write_bytes(REVERSE_WEIGHTS)


def test_the_header_fuzz_starts_from_a_real_header(fuzz_folder):
    assert safetensors_bytes(REVERSE_WEIGHTS[8:HEADER_END], REVERSE_WEIGHTS[HEADER_END:]) == REVERSE_WEIGHTS
    checkpoints.load(fuzz_folder)


# Names an entry may have: the files a load reads, in a folder or not, and names that climb out, are
# absolute (on this disk: inside the sandbox, so a write there is seen), Windows-style, unicode, very long.
ENTRY_PARTS = ["config.json", "model.safetensors", "src.model", "tgt.model", "card.md", "tokenizer.json",
               "pytorch_model.bin", "mine", "..", ".", "", "__MACOSX", ".DS_Store", "ünï", "猫", "\u202e", "a" * 255,
               "C:", "\\", "..\\..", "x" * 4000]


@st.composite
def entry_names(draw, sandbox: str) -> str:
    parts = draw(st.lists(st.one_of(st.sampled_from(ENTRY_PARTS), st.text(min_size=1, max_size=12)),
                          min_size=1, max_size=4))
    name = "/".join(parts)
    prefix = draw(st.sampled_from(["", "", "/", f"{sandbox}/", "../", "../../", "\\", "C:\\", "C:/"]))
    return (prefix + name)[:8000] or "x"


@st.composite
def hostile_zips(draw, sandbox: str) -> bytes:
    buf = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buf, "w") as z:
        warnings.simplefilter("ignore")  # "Duplicate name": a hostile zip may hold a name twice
        for _ in range(draw(st.sampled_from([1, 2, 5, 7, 65]))):
            info = zipfile.ZipInfo(draw(entry_names(sandbox)))
            info.compress_type = draw(st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED]))
            info.external_attr = draw(st.sampled_from([0, 0o644 << 16, 0o120777 << 16, 0o040755 << 16, 2**32 - 1]))
            size = draw(st.sampled_from([0, 1, 100, 2**16, 2**20]))
            data = draw(st.binary(max_size=64)) if size < 2**16 else bytes(size)
            z.writestr(info, data)
    data = bytearray(buf.getvalue())
    for _ in range(draw(st.integers(0, 3))):  # damage: a declared size, a name length, an offset, anything
        if data:
            data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    return bytes(data)


def listing(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


@pytest.fixture(scope="module")
def zip_sandbox(tmp_path_factory):
    """A folder whose zips unpack into fresh folders inside it; nothing else in it may change."""
    return tmp_path_factory.mktemp("zips")


counter = itertools.count()


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_any_zip_is_unpacked_into_its_folder_or_refused_as_a_checkpoint_error(zip_sandbox, data):
    parent = zip_sandbox / "parent"
    parent.mkdir(exist_ok=True)
    before, outside = listing(zip_sandbox), sorted(p.name for p in zip_sandbox.parent.iterdir())
    zip_bytes = data.draw(hostile_zips(str(parent)))
    dest = parent / f"dest{next(counter)}"
    try:
        checkpoints.extract_zip(zip_bytes, dest)
    except CheckpointError as e:
        assert len(str(e)) <= MAX_MESSAGE
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        raise AssertionError(f"extract_zip raised {type(e).__name__}: {str(e)[:300]}") from e
    if dest.exists():  # only the files a load reads, each directly in dest
        assert all(p.is_file() and not p.is_symlink() and p.name in checkpoints.files() for p in dest.iterdir())
        shutil.rmtree(dest)
    assert listing(zip_sandbox) == before
    assert sorted(p.name for p in zip_sandbox.parent.iterdir()) == outside
