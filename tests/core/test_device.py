"""`--device cuda` without a GPU: every tensor a forward makes must be made where the model is (issue 36).

The model and its ids go to torch's `meta` device, which keeps shapes and no values. Under OneDevice, a dispatch mode
that refuses any op whose tensors sit on two devices, a tensor made on the host (a torch.arange without device=) and
mixed into the forward raises, as it would next to a GPU's. It catches more than plain meta does: meta lets a meta
table be indexed by a host index tensor, which a GPU copies over on every call. A 0-dim host tensor is a scalar, and
torch mixes those with any device. Meta tensors have no values, so a forward's question about one (`mask.all()` as a
bool) is answered False here: "something is masked", and the masking runs, reading the mask where the scores are.
"""
from __future__ import annotations

import pytest
import torch
from torch.utils import _pytree as pytree
from torch.utils._python_dispatch import TorchDispatchMode

from core_model.config import ModelConfig
from core_model.nn import model as model_module
from core_model.nn.masks import causal_mask
from core_model.nn.model import Transformer
from core_model.trace import recording, run_with_trace

VOCAB, PAD = 50, 0
BASE = dict(src_vocab_size=VOCAB, tgt_vocab_size=VOCAB, d_model=16, n_heads=2, d_ff=32, dropout=0.0,
            n_encoder_layers=2, n_decoder_layers=2, max_len=32)
CONFIGS = {  # name → ModelConfig fields over BASE
    "sinusoidal": dict(),  # encoder-decoder: cross-attention, both sides' padding masks
    "learned-bert": dict(architecture="encoder", positional="learned", type_vocab_size=2, embed_norm=True,
                         mlm_head=True, n_decoder_layers=0),
    "rope-gqa": dict(architecture="decoder", positional="rope", rope_layout="halves", n_heads=4, n_kv_heads=2,
                     norm="rmsnorm", norm_placement="pre", n_encoder_layers=0),
    "rope-llama3": dict(architecture="decoder", positional="rope", rope_scaling="llama3", rope_factor=8.0,
                        rope_original_max_len=16, n_encoder_layers=0),
    "rope-linear-partial": dict(architecture="decoder", positional="rope", rope_scaling="linear", rope_factor=2.0,
                                rope_dims=4, block="parallel", norm_placement="pre", n_encoder_layers=0),
    "alibi": dict(architecture="decoder", positional="alibi", max_len=256, n_encoder_layers=0),
    "relative-t5": dict(positional="relative", scale_scores=False, norm="rmsnorm", norm_placement="pre",
                        relative_buckets=8, relative_max_distance=16),
    "window": dict(architecture="decoder", positional="learned", window=2, window_layers=(0,), n_encoder_layers=0),
    "start-is-pad": dict(bos_id=PAD),  # Marian: the decoder's first position holds <pad> and stays unmasked
}


class MixedDevices(RuntimeError):
    pass


class OneDevice(TorchDispatchMode):
    """Refuse an op whose tensors sit on two devices; answer False for a meta tensor's value (module docstring)."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        tensors = [a for a in pytree.tree_leaves((args, kwargs)) if isinstance(a, torch.Tensor)]
        devices = {t.device.type for t in tensors if not (t.device.type == "cpu" and t.dim() == 0)}
        if len(devices) > 1:
            raise MixedDevices(f"{func} mixes tensors on {sorted(devices)}")
        if func is torch.ops.aten._local_scalar_dense.default and devices == {"meta"}:
            return False
        return func(*args, **kwargs)


def on_meta(name: str) -> Transformer:
    torch.manual_seed(0)
    return Transformer(ModelConfig(**{**BASE, **CONFIGS[name]})).eval().to("meta")


def ids(n: int = 6, device="meta") -> torch.Tensor:
    """Two rows, the second padded at its end: [2, n]."""
    rows = torch.tensor([[2, *(4 + i % 40 for i in range(n - 2)), 3], [2, 5, 6, 3, *[PAD] * (n - 4)]])
    return rows.to(device)


def forward(model: Transformer, x: torch.Tensor) -> torch.Tensor:
    cfg = model.cfg
    with torch.no_grad(), OneDevice():
        return model(x if cfg.has_encoder else None, x if cfg.has_decoder else None)


def test_a_host_tensor_mixed_into_meta_is_caught():
    with OneDevice():
        table = torch.ones(8, 4, device="meta")
        assert (table + torch.ones(4, device="meta")).device.type == "meta"  # one device: no complaint
        assert table[torch.arange(3, device="meta")].shape == (3, 4)
        with pytest.raises(MixedDevices, match=r"\['cpu', 'meta'\]"):
            table + torch.arange(4)  # the bug the fixes remove: positions made on the host
        with pytest.raises(MixedDevices):
            table[torch.arange(3)]  # plain meta lets this one through
        assert bool(torch.ones(2, dtype=torch.bool, device="meta").all()) is False


def test_a_forward_with_a_host_mask_is_caught(monkeypatch):
    """The harness catches the real thing: the decoder's causal mask made on the host, as before this change."""
    def on_host(q_len, k_len=None, offset=0, device=None, window=0):
        return causal_mask(q_len, k_len, offset, None, window)

    model = on_meta("sinusoidal")
    assert forward(model, ids()).shape == (2, 6, VOCAB)
    monkeypatch.setattr(model_module, "causal_mask", on_host)
    with pytest.raises(MixedDevices):
        forward(model, ids())


@pytest.mark.parametrize("name", CONFIGS)
def test_a_forward_on_meta_makes_every_tensor_there(name):
    model = on_meta(name)
    n = 200 if name == "alibi" else 6  # 2 heads × 200 × 200 is past SMALL_BIAS: the bias is built, not cached
    out = forward(model, ids(n))
    width = model.cfg.d_model if model.cfg.architecture == "encoder" and not model.cfg.mlm_head else VOCAB
    assert out.device.type == "meta" and out.shape == (2, n, width)


def test_a_trace_runs_where_the_model_is_and_keeps_its_values_there():
    """run_with_trace takes host ids to the model's device; what it keeps stays there until read."""
    model = on_meta("relative-t5")
    with OneDevice():
        out, trace = run_with_trace(model, ids(device="cpu"), ids(device="cpu").tolist(), names="*.pattern")
    assert out.device.type == "meta" and out.shape == (2, 6, VOCAB)
    kept = trace._recorder.values
    assert len(kept) == 6 and all(n.endswith(".pattern") for n in kept)  # 2 + 2 self, 2 cross
    assert all(v.device.type == "meta" and v.shape == (2, 2, 6, 6) for v in kept.values())


@pytest.mark.parametrize("name", ["sinusoidal", "rope-gqa", "alibi", "relative-t5", "window"])
def test_a_cached_decoding_step_on_meta(name):
    model, x = on_meta(name), ids()
    cfg, cache = model.cfg, model.new_cache()
    with torch.no_grad(), OneDevice():
        memory, memory_mask = model.encode(x) if cfg.has_encoder else (None, None)
        for tokens in (x[:, :4], x[:, 4:5]):  # the prompt, then one step, each traced as decoding traces it
            with recording(names="decoder.layers.*.pattern"):
                logits = model.project(model.decode(tokens, memory, memory_mask, pad_mask=False, cache=cache))
            cache.reorder(torch.tensor([1, 0]))  # beam search's rows, chosen on the host
    keys = cache.layers[0]["self_attn"]["k"]
    assert logits.device.type == "meta" and logits.shape == (2, 1, VOCAB) and cache.length == 5
    assert keys.device.type == "meta" and keys.shape[2] == 5
