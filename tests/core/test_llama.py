"""Imported Llama and Qwen2 models (core_model/importers/llama.py, qwen2.py, checkpoints/hub_llama.py) against an
independent implementation: transformers' LlamaForCausalLM and Qwen2ForCausalLM.

Each folder is made here by transformers itself (random weights scaled far from their init, save_pretrained with
safetensors) with a byte-level BPE tokenizer trained by `tokenizers`: a Llama with grouped-query attention (4 query
heads, 2 key/value heads), a multi-query Llama (1 key/value head, a pad token of its own, tied embeddings) and a
Qwen2 (biases on Q, K and V; no bos token in its config).
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from core_model import checkpoints
from core_model.checkpoints import CheckpointError
from core_model.decoding import greedy
from core_model.trace import run_with_trace
from tests.tolerance import assert_activations_close

os.environ["HF_HUB_OFFLINE"] = "1"  # everything is made here; nothing is fetched
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

ATTN_TOL = 1e-5  # attention weights lie in 0..1: a fixed absolute bound (tests/tolerance.py)
CORPUS = ["The cat sat on the mat, and the dog sat on the log.", "A quick brown fox jumps over the lazy dog!",
          "Attention heads read the previous token; some read the first one.", "naïve café owners drink crème brûlée",
          "Numbers like 1999 and 2024 split into pieces.", "猫が座った。 Tabs\tand\nnewlines stay."] * 8
SENTENCES = ["The cat sat on the lazy dog.", "naïve café: 猫!", "  two  spaces,\ta tab and a newline\n"]
SPECIALS = {"llama": ["<unk>", "<s>", "</s>"], "qwen2": ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]}
SHAPE = dict(hidden_size=32, num_attention_heads=4, num_hidden_layers=2, intermediate_size=64,
             max_position_embeddings=128, initializer_range=0.3)
KINDS = {  # name: (model_type, config fields)
    "llama-gqa": ("llama", dict(num_key_value_heads=2, bos_token_id=1, eos_token_id=2, rope_theta=500.0)),
    "llama-mqa": ("llama", dict(num_key_value_heads=1, bos_token_id=1, eos_token_id=2, pad_token_id=0,
                                tie_word_embeddings=True)),
    "qwen2": ("qwen2", dict(num_key_value_heads=2, bos_token_id=None, eos_token_id=0, rope_theta=1000.0)),
}
CLASSES = {"llama": ("LlamaConfig", "LlamaForCausalLM"), "qwen2": ("Qwen2Config", "Qwen2ForCausalLM")}


def tokenizer(dest: Path, specials: list[str]) -> tokenizers.Tokenizer:
    tk = tokenizers.Tokenizer(tokenizers.models.BPE())
    tk.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = tokenizers.decoders.ByteLevel()
    tk.train_from_iterator(CORPUS, tokenizers.trainers.BpeTrainer(
        vocab_size=300, special_tokens=specials, show_progress=False,
        initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet()))
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tk, bos_token=specials[1], eos_token=specials[2])
    fast.save_pretrained(dest)
    return tk


def tiny(dest: Path, kind: str, seed: int = 0) -> Path:
    """A 2-layer folder as transformers writes it: config.json, model.safetensors, tokenizer.json."""
    model_type, fields = KINDS[kind]
    tk = tokenizer(dest, SPECIALS[model_type])
    config_class, model_class = (getattr(transformers, n) for n in CLASSES[model_type])
    config = config_class(**SHAPE, vocab_size=tk.get_vocab_size(), **fields)
    torch.manual_seed(seed)
    model = model_class(config)
    with torch.no_grad():  # norms away from 1, biases away from 0: a swapped norm or a missing bias shows
        for name, p in model.named_parameters():
            if "norm" in name or name.endswith("bias"):
                p.add_(torch.randn_like(p) * 0.3)
    model.save_pretrained(dest, safe_serialization=True)
    return dest


@pytest.fixture(scope="module", params=list(KINDS))
def kind(request):
    return request.param


_FOLDERS: dict[str, Path] = {}


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """Each kind's folder, built once for the module."""
    def get(kind: str) -> Path:
        if kind not in _FOLDERS:
            _FOLDERS[kind] = tiny(tmp_path_factory.mktemp(kind) / f"tiny-{kind}", kind)
        return _FOLDERS[kind]
    yield get
    _FOLDERS.clear()


@pytest.fixture(scope="module")
def folder(folders, kind):
    return folders(kind)


@pytest.fixture(scope="module")
def ours(folder):
    return checkpoints.load(folder)  # the dispatch: the folder goes to its importer


@pytest.fixture(scope="module")
def reference(folder, kind):
    model_class = getattr(transformers, CLASSES[KINDS[kind][0]][1])
    return model_class.from_pretrained(folder, attn_implementation="eager").eval()


def batch(ours, texts):
    """Ids [b, n]: bos + the text, right-padded with pad_id; and the mask of real tokens."""
    tok, cfg = ours.tokenizers["tgt"], ours.config
    rows = [[cfg.bos_id] + tok.encode(t) for t in texts]
    n = max(map(len, rows))
    keep = torch.tensor([[True] * len(r) + [False] * (n - len(r)) for r in rows])
    return torch.tensor([r + [cfg.pad_id] * (n - len(r)) for r in rows]), keep


def compare(ours, reference, texts) -> dict[str, float]:
    """Every layer's input, every attention weight and the logits at the real tokens; the largest differences."""
    ids, keep = batch(ours, texts)
    logits, trace = run_with_trace(ours.model, None, ids)
    with torch.no_grad():
        ref = reference(ids, attention_mask=keep.long(), output_hidden_states=True, output_attentions=True)
    real, n, seen = keep.numpy(), ours.config.n_decoder_layers, {}
    pairs = [(f"layer {i} input", trace.layer_input("decoder", i), ref.hidden_states[i].numpy()) for i in range(n)]
    for name, got, want in pairs + [("logits", logits.numpy(), ref.logits.numpy())]:
        assert_activations_close(got[real], want[real], name)  # [real tokens, d]
        seen[name] = float(np.abs(got[real] - want[real]).max())
    for i in range(n):
        pattern = trace.attn("decoder", i).pattern  # [b, h, q, k]: every query head
        assert pattern.shape == ref.attentions[i].shape
        error = np.abs(pattern - ref.attentions[i].numpy()).transpose(0, 2, 1, 3)[real]  # [real queries, h, k]
        assert error.max() <= ATTN_TOL, f"layer {i} attention"
        seen[f"attention {i}"] = float(error.max())
    return seen


@pytest.mark.parametrize("text", SENTENCES[:2])
def test_one_sentence_matches_transformers(ours, reference, text):
    compare(ours, reference, [text])


def test_the_comparison_is_not_trivial(ours, reference):
    # Attention far from uniform and logits far from zero: a near-zero model would match anything.
    ids, keep = batch(ours, SENTENCES[:1])
    with torch.no_grad():
        ref = reference(ids, output_attentions=True)
    assert max(float(a[..., 1:, :].max()) for a in ref.attentions) > 0.6
    assert float(ref.logits.abs().max()) > 5


def test_a_padded_batch_matches_transformers_and_each_sentence_alone(ours, reference):
    texts = [SENTENCES[0], " ".join(SENTENCES), SENTENCES[1]]
    ids, keep = batch(ours, texts)
    assert (~keep).sum() > 20  # the short rows really are padded
    compare(ours, reference, texts)
    out, _ = run_with_trace(ours.model, None, ids)
    for row, text in enumerate(texts):
        alone, _ = run_with_trace(ours.model, None, batch(ours, [text])[0])
        assert_activations_close(out[row, : alone.shape[1]], alone[0], f"row {row} padded vs alone")


def test_the_trace_keeps_the_key_value_heads_the_model_has(ours, kind):
    cfg = ours.config
    _, trace = run_with_trace(ours.model, None, batch(ours, SENTENCES[:1])[0])
    view, kv = trace.attn("decoder", 1), KINDS[kind][1]["num_key_value_heads"]
    n = view.pattern.shape[-1]
    assert cfg.kv_heads == kv and cfg.n_heads == 4
    assert view.k.shape == view.v.shape == (1, kv, n, 8) and view.q.shape == view.z.shape == (1, 4, n, 8)
    assert view.scores.shape == view.pattern.shape == (1, 4, n, n)
    cache = ours.model.new_cache()
    ours.model.decode(batch(ours, SENTENCES[:1])[0], cache=cache)
    assert cache.layers[0]["self_attn"]["k"].shape == (1, kv, n, 8)  # the cache holds the shared heads once


def generate(reference, prompt, max_new, eos):
    with torch.no_grad():
        out = reference.generate(torch.tensor([prompt]), attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
                                 max_new_tokens=max_new, do_sample=False, eos_token_id=eos, pad_token_id=eos)
    return out[0, len(prompt):].tolist()


def test_greedy_decoding_gives_generates_ids(ours, reference):
    # Our decoder reads bos first, so transformers is given the same bos + prompt.
    tok, cfg = ours.tokenizers["tgt"], ours.config
    for text in ["The cat", "naïve"]:
        got = greedy(ours.model, tok.encode(text), max_len=8)
        want = generate(reference, [cfg.bos_id] + tok.encode(text), 8, cfg.eos_id)
        assert list(got.ids) + ([got.steps[-1].chosen] if got.finished_by == "eos" else []) == want, text


def test_the_import_has_the_familys_shape(ours, kind):
    cfg, fields = ours.config, KINDS[kind][1]
    assert (cfg.architecture, cfg.norm, cfg.norm_placement, cfg.positional, cfg.rope_layout, cfg.ffn) == \
        ("decoder", "rmsnorm", "pre", "rope", "halves", "gated")
    assert (cfg.activation, cfg.scale_embedding, cfg.output_bias, cfg.ffn_bias) == ("silu", False, False, False)
    assert cfg.positional_base == fields.get("rope_theta", 10000.0)
    assert cfg.tie_embeddings == fields.get("tie_word_embeddings", False)
    qwen = KINDS[kind][0] == "qwen2"
    assert (cfg.bias, cfg.attn_out_bias) == ((True, False) if qwen else (False, True))
    attn = ours.model.decoder.layers[0].self_attn
    assert (attn.q_proj.bias is not None, attn.out_proj.bias is None) == (qwen, True)
    if qwen:  # no bos in its config: the decoder starts from eos, which pads too, unmasked
        assert cfg.bos_id == cfg.eos_id == cfg.pad_id == 0 and cfg.mask_padding is False
    elif kind == "llama-mqa":  # a pad token of its own is masked
        assert (cfg.bos_id, cfg.eos_id, cfg.pad_id, cfg.mask_padding) == (1, 2, 0, True)


def test_the_tokenizer_gives_transformers_ids(ours, folder):
    fast = transformers.AutoTokenizer.from_pretrained(folder)
    tok = ours.tokenizers["tgt"]
    for text in SENTENCES:
        assert tok.encode(text) == fast(text, add_special_tokens=False)["input_ids"]
        assert tok.decode(tok.encode(text)) == text


# ----- what is refused ---------------------------------------------------------------------------------------

def copy_with_config(folder: Path, dest: Path, **fields) -> Path:
    """A copy of the folder with config.json's `fields` set."""
    copy = Path(shutil.copytree(folder, dest))
    config = json.loads((copy / "config.json").read_text())
    config.update(fields)
    (copy / "config.json").write_text(json.dumps(config))
    return copy


REFUSED = [("rope_scaling", {"rope_type": "linear", "factor": 2.0}),
           ("rope_scaling", {"type": "llama3", "factor": 8.0}),
           ("rope_parameters", {"rope_type": "llama3", "rope_theta": 10000.0, "factor": 8.0}),
           ("head_dim", 16), ("hidden_act", "tanh"), ("eos_token_id", [1, 2])]


@pytest.mark.parametrize("field, value", REFUSED)
def test_a_setting_it_cannot_reproduce_is_named(folders, tmp_path, field, value):
    with pytest.raises(CheckpointError, match=f"config.json has {field} = ") as caught:
        checkpoints.load(copy_with_config(folders("llama-gqa"), tmp_path / "x", **{field: value}))
    assert caught.value.code == "import_setting" and caught.value.fields["name"] == field


def test_qwen2s_sliding_window_is_refused_naming_it(folders, tmp_path):
    with pytest.raises(CheckpointError, match="config.json has use_sliding_window = True") as caught:
        checkpoints.load(copy_with_config(folders("qwen2"), tmp_path / "x", use_sliding_window=True))
    assert caught.value.fields["family"] == "Qwen2"


def test_an_older_config_with_rope_theta_and_null_rope_scaling_loads(folders, tmp_path):
    copy = copy_with_config(folders("llama-gqa"), tmp_path / "x", rope_theta=500.0, rope_scaling=None)
    config = json.loads((copy / "config.json").read_text())
    del config["rope_parameters"]
    (copy / "config.json").write_text(json.dumps(config))
    assert checkpoints.load(copy).config.positional_base == 500.0


def test_a_sentencepiece_style_tokenizer_is_refused_naming_the_file(folders, tmp_path):
    copy = Path(shutil.copytree(folders("llama-gqa"), tmp_path / "x"))
    data = json.loads((copy / "tokenizer.json").read_text())
    data["decoder"] = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}
    (copy / "tokenizer.json").write_text(json.dumps(data))
    with pytest.raises(CheckpointError, match="tokenizer.json is not a byte-level BPE tokenizer") as caught:
        checkpoints.load(copy)
    assert caught.value.code == "tokenizer_not_byte_level"


# ----- what the core gained for it ------------------------------------------------------------------------

def test_an_old_config_without_the_new_fields_loads_with_their_defaults():
    from core_model import ModelConfig

    data = ModelConfig().to_dict()
    for name in ("n_kv_heads", "rope_layout", "ffn", "ffn_bias", "attn_out_bias"):
        del data[name]
    cfg = ModelConfig.from_dict(data)
    assert (cfg.n_kv_heads, cfg.kv_heads, cfg.rope_layout, cfg.ffn, cfg.ffn_bias, cfg.attn_out_bias) == \
        (0, 4, "interleaved", "plain", True, True)
    assert [cfg.kv_head(h) for h in range(4)] == [0, 1, 2, 3]


@pytest.mark.parametrize("overrides, field", [({"n_kv_heads": 3}, "n_kv_heads"), ({"n_kv_heads": -1}, "n_kv_heads"),
                                              ({"rope_layout": "halves"}, "rope_layout"), ({"ffn": "swiglu"}, "ffn"),
                                              ({"ffn_bias": "no"}, "ffn_bias"), ({"attn_out_bias": 0}, "attn_out_bias")])
def test_bad_new_fields_are_refused_naming_them(overrides, field):
    from core_model import ModelConfig

    with pytest.raises(ValueError, match=field):
        ModelConfig(**overrides)


def test_rope_in_halves_is_the_interleaved_rotation_of_permuted_dimensions():
    from core_model.nn.positional import rope_rotate

    x, positions = torch.randn(1, 2, 5, 8), torch.arange(3, 8)
    order = torch.tensor([0, 4, 1, 5, 2, 6, 3, 7])  # dimension i pairs with i + 4 in halves, with i + 1 interleaved
    halves = rope_rotate(x, positions, 100.0, "halves")
    assert torch.allclose(halves[..., order], rope_rotate(x[..., order], positions, 100.0), atol=1e-6)


def test_a_gated_ffn_without_biases_is_down_of_silu_gate_times_up():
    from core_model import ModelConfig
    from core_model.nn.layers import FeedForward

    ffn = FeedForward(ModelConfig(d_model=8, n_heads=2, d_ff=16, ffn="gated", ffn_bias=False, activation="silu")).eval()
    x = torch.randn(2, 3, 8)
    want = ffn.linear2(torch.nn.functional.silu(ffn.gate(x)) * ffn.linear1(x))
    assert ffn.linear1.bias is None and ffn.gate.bias is None and torch.equal(ffn(x), want)
