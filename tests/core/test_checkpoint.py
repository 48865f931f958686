"""Checkpoint round trip, and each kind of broken folder refused with its own message."""
import json
import shutil
import threading

import pytest
import torch
from safetensors.torch import load as load_st
from safetensors.torch import save as save_st

from core_model import ModelConfig, Transformer
from core_model.checkpoints import CheckpointError, load, save
from core_model.nn.model import NoRandomInit
from core_model.tokenizers import Tokenizer

TEXTS = [f"the {a} {n} sees {m} {k}" for a in ("red", "big", "old", "blue") for n in ("cat", "dog", "car")
         for m in ("a", "the", "my") for k in range(12)]


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory):
    return Tokenizer.train(TEXTS, tmp_path_factory.mktemp("tok") / "t.model", vocab_size=300)


def small_model(tok, **overrides):
    torch.manual_seed(0)
    fields = dict(src_vocab_size=tok.vocab_size, tgt_vocab_size=tok.vocab_size, d_model=16, n_heads=2,
                  n_encoder_layers=1, n_decoder_layers=1, d_ff=32, dropout=0.0)
    cfg = ModelConfig(**{**fields, **overrides})
    return Transformer(cfg).eval()


@pytest.fixture
def saved(tmp_path, tokenizer):
    model = small_model(tokenizer)
    path = save(tmp_path / "ckpt", model, {"src": tokenizer, "tgt": tokenizer}, "# card\n")
    return path, model


def outputs(model):
    src, tgt = torch.tensor([[5, 6, 7, 8]]), torch.tensor([[2, 9, 10]])
    with torch.no_grad():
        return model(src, tgt)


def test_round_trip_gives_identical_outputs(saved):
    path, model = saved
    loaded = load(path)
    assert loaded.config == model.cfg
    assert torch.equal(outputs(loaded.model), outputs(model))
    assert loaded.card == "# card\n"
    assert not loaded.model.training


def test_tied_embeddings_survive_the_round_trip(tmp_path, tokenizer):
    model = small_model(tokenizer, architecture="decoder", tie_embeddings=True)
    loaded = load(save(tmp_path / "lm", model, {"tgt": tokenizer}))
    assert loaded.model.generator.weight is loaded.model.tgt_embed.tok.weight
    tgt = torch.tensor([[2, 9, 10]])
    with torch.no_grad():
        assert torch.equal(loaded.model(None, tgt), model(None, tgt))


def test_save_replaces_an_older_checkpoint_whole(saved, tokenizer):
    path, _ = saved
    newer = small_model(tokenizer, d_ff=48)
    save(path, newer, {"src": tokenizer, "tgt": tokenizer})
    assert load(path).config.d_ff == 48
    assert sorted(p.name for p in path.parent.iterdir()) == ["ckpt"]  # no temporary folders left


def rewrite_weights(path, change):
    f = path / "model.safetensors"
    tensors = load_st(f.read_bytes())
    change(tensors)
    f.write_bytes(save_st(tensors))


def break_config(path, **fields):
    cfg = json.loads((path / "config.json").read_text())
    cfg.update(fields)
    (path / "config.json").write_text(json.dumps(cfg))


CASES = {
    "missing weights": (lambda p: (p / "model.safetensors").unlink(), "has no model.safetensors"),
    "missing config": (lambda p: (p / "config.json").unlink(), "has no config.json"),
    "missing tokenizer": (lambda p: (p / "src.model").unlink(), "has no src.model"),
    "truncated weights": (lambda p: (p / "model.safetensors").write_bytes((p / "model.safetensors").read_bytes()[:5000]),
                          "model.safetensors is truncated: it should be 83,324 bytes long, but has 5,000."),
    "pickle instead of weights": (lambda p: (p / "model.safetensors").write_bytes(
        b"\x80\x04\x95cos\nsystem\n(S'echo pwned'\ntR."), "holds a pickle (what torch.save writes)"),
    "wrong shape": (lambda p: rewrite_weights(p, lambda t: t.update({"encoder.layers.0.ffn.linear1.weight": torch.zeros(33, 16)})),
                    "encoder.layers.0.ffn.linear1.weight has shape [33, 16], but the config needs [32, 16]"),
    "missing tensor": (lambda p: rewrite_weights(p, lambda t: t.pop("decoder.layers.0.norm3.bias")),
                       "lacks tensor(s) the config needs: decoder.layers.0.norm3.bias"),
    "extra tensor": (lambda p: rewrite_weights(p, lambda t: t.update({"surprise": torch.zeros(2)})),
                     "has tensor(s) this config has no place for: surprise"),
    "NaN weights": (lambda p: rewrite_weights(p, lambda t: t["generator.bias"].fill_(float("nan"))),
                    "generator.bias holds NaN or infinite values"),
    "one infinity among finite weights": (lambda p: rewrite_weights(p, lambda t: t["generator.bias"][3:4].fill_(
        -float("inf"))), "generator.bias holds NaN or infinite values"),
    "infinities of both signs": (lambda p: rewrite_weights(p, lambda t: t["generator.bias"][:2].copy_(
        torch.tensor([float("inf"), -float("inf")]))), "generator.bias holds NaN or infinite values"),
    "float64 past float32": (lambda p: rewrite_weights(p, lambda t: t.update(
        {"generator.bias": t["generator.bias"].double().fill_(1e300)})), "generator.bias holds NaN or infinite values"),
    "unknown field": (lambda p: break_config(p, colour="red"), "unknown field(s): colour"),
    "bad field value": (lambda p: break_config(p, n_heads=3), "d_model (16) must be divisible by n_heads (3)"),
    "not json": (lambda p: (p / "config.json").write_text("{not json"), "config.json is not valid JSON"),
    "vocab mismatch": (lambda p: break_config(p, src_vocab_size=999), "pieces, but config.json says src_vocab_size is 999"),
    "corrupt tokenizer": (lambda p: (p / "tgt.model").write_bytes(b"\x00garbage" * 20), "not a sentencepiece model"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_broken_checkpoint_is_refused_with_its_reason(saved, case):
    path, _ = saved
    damage, message = CASES[case]
    damage(path)
    with pytest.raises(CheckpointError) as err:
        load(path)
    assert message in str(err.value)


def test_not_a_folder(tmp_path):
    with pytest.raises(CheckpointError, match="is not a checkpoint folder"):
        load(tmp_path / "nothing-here")


def test_an_empty_model_draws_no_random_numbers_and_a_fill_names_what_it_lacks(tokenizer):
    """Transformer.empty builds without initialising (no random numbers drawn: the generator's state is unchanged);
    fill takes the weights as they are, and a parameter given none is refused by its name."""
    model = small_model(tokenizer)
    weights = model.state_dict()
    state = torch.random.get_rng_state()
    empty = Transformer.empty(model.cfg)
    assert torch.equal(torch.random.get_rng_state(), state)
    empty.fill(weights)
    assert all(torch.equal(p, weights[n]) for n, p in empty.named_parameters())
    ids = torch.tensor([[1, 5, 7, 2]])
    assert torch.equal(empty(ids, ids[:, :3]), model(ids, ids[:, :3]))
    lacking = {n: w for n, w in weights.items() if n != "decoder.layers.0.ffn.linear1.weight"}
    with pytest.raises(ValueError, match=r"no weights for decoder\.layers\.0\.ffn\.linear1\.weight"):
        Transformer.empty(model.cfg).fill(lacking, strict=False)


def test_a_model_built_in_another_thread_meanwhile_is_initialised(tokenizer):
    """NoRandomInit holds in the thread that entered it only: a session training a new model while another loads one
    gets random weights, not empty memory."""
    built = {}
    with NoRandomInit():
        thread = threading.Thread(target=lambda: built.update(model=small_model(tokenizer)))
        thread.start()
        thread.join()
    assert torch.equal(built["model"].state_dict()["encoder.layers.0.ffn.linear1.weight"],
                       small_model(tokenizer).state_dict()["encoder.layers.0.ffn.linear1.weight"])


@pytest.mark.parametrize("dtype", [torch.float64, torch.float8_e4m3fn])
def test_weights_of_another_floating_type_load_in_float32(saved, dtype):
    """The model computes in float32: weights stored in float64 or float8 are read as float32 (1e300, finite in float64,
    is not: the case above)."""
    path, _ = saved
    rewrite_weights(path, lambda t: t.update({"generator.bias": t["generator.bias"].to(dtype)}))
    model = load(path).model
    assert {p.dtype for p in model.parameters()} == {torch.float32}
    want = load_st((path / "model.safetensors").read_bytes())["generator.bias"].float()
    assert torch.equal(model.generator.bias, want)


def test_finite_weights_whose_sum_overflows_load_as_they_are(saved):
    """Weights near float32's largest value are finite although their sum is not (the check's quick path): they load
    unchanged, and an infinity beside them is still refused."""
    path, _ = saved
    big = torch.finfo(torch.float32).max / 2
    rewrite_weights(path, lambda t: t["generator.bias"].fill_(big))
    assert torch.isinf(load_st((path / "model.safetensors").read_bytes())["generator.bias"].sum())
    bias = load(path).model.generator.bias
    assert torch.equal(bias, torch.full_like(bias, big))
    rewrite_weights(path, lambda t: t["generator.bias"][-1:].fill_(float("inf")))
    with pytest.raises(CheckpointError, match="generator.bias holds NaN or infinite values"):
        load(path)
