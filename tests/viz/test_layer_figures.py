"""Residual stream, FFN and norm views and figures, checked against tiny models' traces."""
import numpy as np
import pytest
import torch

from core_model.config import ModelConfig
from core_model.nn.model import Transformer
from core_model.trace import run_with_trace
from viz_app.figures import layers as figs
from viz_app.views import ffn_norm as view


def traced(**overrides):
    cfg = ModelConfig(architecture="encoder-decoder", src_vocab_size=30, tgt_vocab_size=30, d_model=16, n_heads=2,
                      n_encoder_layers=2, n_decoder_layers=2, d_ff=32, dropout=0.0, max_len=16, **overrides)
    model = Transformer(cfg).eval()
    _, trace = run_with_trace(model, [[5, 6, 7, 8, 9]], [[2, 10, 11]])
    return cfg, model, trace


@pytest.mark.parametrize("placement", ["post", "pre"])
def test_stream_stages_follow_the_residual_stream(placement):
    _, model, trace = traced(norm_placement=placement)
    stages = view.stream_stages(trace.names, "decoder", "tgt", placement == "pre")
    names = [name for _, _, name in stages]
    assert names[0] == "tgt_embed.out"
    if placement == "post":  # the normalized sum is what the next sublayer reads
        per_layer = ["resid_mid", "norm1", "resid_cross", "norm2", "resid_post", "norm3"]
        assert names[1:] == [f"decoder.layers.{i}.{leaf}" for i in range(2) for leaf in per_layer]
        assert names[-1] == [n for n in trace.names if n.startswith("decoder.layers.1.")][-1]
    else:  # norms only feed sublayers; the stream is read out through the final norm
        per_layer = ["resid_mid", "resid_cross", "resid_post"]
        assert names[1:] == [f"decoder.layers.{i}.{leaf}" for i in range(2) for leaf in per_layer] + ["decoder.final_norm"]
    assert [(layer, leaf) for layer, leaf, _ in stages][:2] == [(None, "embed"), (0, "resid_mid")]


@pytest.mark.parametrize("placement", ["post", "pre"])
@pytest.mark.parametrize("norm", ["layernorm", "rmsnorm"])
def test_norm_input_is_what_norm1_normalizes(placement, norm):
    _, model, trace = traced(norm_placement=placement, norm=norm)
    for stack in ("encoder", "decoder"):
        for layer in range(2):
            x = torch.tensor(trace[view.norm_input_name(stack, layer, placement == "pre")])
            with torch.no_grad():
                expected = getattr(model, stack).layers[layer].norm1(x).numpy()
            assert np.allclose(expected, trace.layer(stack, layer, "norm1"), atol=1e-5)


@pytest.mark.parametrize("norm", ["layernorm", "rmsnorm"])
def test_standardized_is_the_norm_without_its_gain_and_bias(norm):
    x = torch.randn(16) * 3 + 2
    z = view.standardized(x.numpy(), norm, 1e-5)
    if norm == "layernorm":
        expected = torch.nn.functional.layer_norm(x, (16,), eps=1e-5)
        assert abs(view.moments(z)["mean"]) < 1e-6 and abs(view.moments(z)["std"] - 1) < 1e-4
    else:
        expected = x * torch.rsqrt(x.pow(2).mean() + 1e-5)
        assert abs(view.moments(z)["rms"] - 1) < 1e-4
    assert np.allclose(z, expected.numpy(), atol=1e-5)


def test_moments():
    m = view.moments([1.0, 2.0, 3.0, 6.0])
    assert m["mean"] == 3.0 and np.isclose(m["std"], np.std([1, 2, 3, 6])) and np.isclose(m["rms"], np.sqrt(12.5))


def test_norm_lines_draw_one_line_per_token_through_the_stages():
    norms = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)  # [stages, pos]
    fig = figs.norm_lines(norms, ["embed", "L0 resid_mid", "L0 norm1"], ["0·a", "1·<b>"], "t", "step", "norm")
    assert len(fig.data) == 2 and [d.name for d in fig.data] == ["0·a", "1·&lt;b&gt;"]
    assert np.array_equal(np.asarray(fig.data[1].y), norms[:, 1])
    assert list(fig.data[0].x) == ["embed", "L0 resid_mid", "L0 norm1"]
    assert fig.layout.xaxis.title.text == "step" and fig.layout.yaxis.title.text == "norm"


def test_inactive_fraction_counts_zeros_for_relu_and_negatives_for_gelu():
    hidden = np.array([[0.0, 0.0, 1.0, 2.0], [-0.1, 0.0, 0.5, -0.2]], np.float32)
    assert np.allclose(view.inactive_fraction(hidden, "relu"), [0.5, 0.25])
    assert np.allclose(view.inactive_fraction(hidden, "gelu"), [0.0, 0.5])


def test_fraction_bars_are_on_a_0_to_1_axis_row_0_on_top():
    fig = figs.fraction_bars([0.5, 0.25], ["0·a", "1·b"], "t")
    assert np.allclose(np.asarray(fig.data[0].x), [0.5, 0.25]) and list(fig.data[0].y) == ["0·a", "1·b"]
    assert tuple(fig.layout.xaxis.range) == (0, 1) and fig.layout.yaxis.autorange == "reversed"


def test_norm_histograms_overlay_the_two_vectors():
    before, after = np.arange(8, dtype=np.float32), np.linspace(-1, 1, 8, dtype=np.float32)
    fig = figs.norm_histograms(before, after, ["before", "after"], "Values of 0·<s>", "value", "count")
    assert fig.layout.title.text == "Values of 0·&lt;s&gt;"  # a token in a title is text, not a strike-through tag
    assert [d.type for d in fig.data] == ["histogram", "histogram"] and fig.layout.barmode == "overlay"
    assert np.array_equal(np.asarray(fig.data[0].x), before) and np.array_equal(np.asarray(fig.data[1].x), after)
    assert [d.name for d in fig.data] == ["before", "after"]


def test_lens_figure_colours_by_probability_and_writes_the_top_token():
    probs = np.array([[0.1, 0.2], [0.9, 0.6]], np.float32)
    fig = figs.lens_figure(probs, [["le", "<s>"], ["la", "chat"]], ["0·<s>", "1·la"], ["L0", "L1"], "t")
    heat = fig.data[0]
    assert np.allclose(np.asarray(heat.z), probs) and heat.texttemplate == "%{text}"
    assert heat.text.tolist() == [["le", "&lt;s&gt;"], ["la", "chat"]]
    assert (fig.layout.coloraxis.cmin, fig.layout.coloraxis.cmax) == (0, 1)
