"""The FFN, residual & normalization page, checked against the trace and the model's own prediction."""
import html

import numpy as np
import pytest

from tests.app.conftest import assert_clean, decode, chart_names, named_chart, named_z, open_page
from tests.app.test_masks import tiny_models
from viz_app import loaders

MODEL = "translate-en-fr"
SRC = "the small girl does not see the red car"


@pytest.fixture
def other_models(tmp_path, monkeypatch):
    tiny_models(tmp_path, loaders.load_model(MODEL).tokenizers["src"])
    monkeypatch.setattr(loaders.models, "MODELS_DIR", tmp_path)


def stream_names(cfg, stack, side):
    """The residual stream's states, written out here from the layer layout rather than taken from the page."""
    leaves = ["resid_mid", "norm1"] + (["resid_cross", "norm2"] if stack == "decoder" and cfg.has_encoder else [])
    leaves += ["resid_post", f"norm{len(leaves) // 2 + 1}"]
    if cfg.norm_placement == "pre":  # norms only feed the sublayers there
        leaves = [leaf for leaf in leaves if leaf.startswith("resid")]
    n = cfg.n_encoder_layers if stack == "encoder" else cfg.n_decoder_layers
    names = [f"{side}_embed.out"] + [f"{stack}.layers.{i}.{leaf}" for i in range(n) for leaf in leaves]
    return names + ([f"{stack}.final_norm"] if cfg.norm_placement == "pre" else [])


def lines(at):
    return [decode(d["y"]) for d in named_chart(at, "ffn_norm.stream")["data"]]


def test_stream_norms_equal_the_norms_of_the_trace_values():
    at = open_page("ffn_norm", src=SRC)
    assert_clean(at)
    run = loaders.run(MODEL, SRC)
    cfg = loaders.load_model(MODEL).config
    expected = np.stack([np.linalg.norm(run.trace[n][0], axis=-1) for n in stream_names(cfg, "encoder", "src")])
    got = lines(at)
    assert len(got) == len(run.src_labels)  # one line per token
    assert np.allclose(np.stack(got, 1), expected, atol=1e-5)


def test_ffn_hidden_units_and_their_zero_share_follow_the_layer():
    at = open_page("ffn_norm", src=SRC)
    at.sidebar.selectbox(key="layer").set_value(2).run()
    assert_clean(at)
    hidden = loaders.run(MODEL, SRC).trace["encoder.layers.2.ffn.hidden"][0]  # [pos, d_ff]
    assert np.allclose(named_z(at, "ffn_norm.hidden"), hidden)
    assert np.allclose(decode(named_chart(at, "ffn_norm.inactive")["data"][0]["x"]), (hidden == 0).mean(-1))  # ReLU zeros


def test_histograms_hold_the_values_before_and_after_norm1_of_the_chosen_token():
    at = open_page("ffn_norm", src=SRC, layer=1)
    at.selectbox(key="ffn_norm.token").set_value(3).run()
    assert_clean(at)
    trace = loaders.run(MODEL, SRC).trace
    before, after = trace["encoder.layers.1.resid_mid"][0, 3], trace["encoder.layers.1.norm1"][0, 3]
    data = named_chart(at, "ffn_norm.hist")["data"]
    assert np.array_equal(decode(data[0]["x"]), before) and np.array_equal(decode(data[1]["x"]), after)
    stats = [m.value for m in at.markdown if m.value.startswith("Before")][0]
    assert f"mean {before.mean():.3f}, std {before.std():.3f}" in stats
    assert f"mean {after.mean():.3f}, std {after.std():.3f}" in stats
    assert "mean 0.000 and std 1.000" in stats or "mean -0.000 and std 1.000" in stats  # LayerNorm before γ, β


def test_decoder_stack_and_logit_lens_match_the_model():
    at = open_page("ffn_norm", src=SRC)
    at.radio(key="ffn_norm.stack").set_value("decoder").run()
    assert_clean(at)
    run = loaders.run(MODEL, SRC)
    cfg = loaders.load_model(MODEL).config
    expected = np.stack([np.linalg.norm(run.trace[n][0], axis=-1) for n in stream_names(cfg, "decoder", "tgt")])
    assert np.allclose(np.stack(lines(at), 1), expected, atol=1e-5)
    lens = named_chart(at, "ffn_norm.lens")["data"][0]
    z = decode(lens["z"])  # [layers, pos]
    model_top = run.trace["logits"][0].argmax(-1)  # the model's own prediction at each position
    pieces = loaders.load_model(MODEL).tokenizers["tgt"].display_pieces(model_top.tolist())
    shown = [p[1:] if p.startswith("▁") and len(p) > 1 else p for p in pieces]
    assert [html.unescape(p) for p in lens["text"][-1]] == shown  # the last layer's readout is the model's output
    assert np.allclose(z[-1], run.trace["probs"][0].max(-1), atol=1e-5)
    assert z.shape == (cfg.n_decoder_layers, len(run.tgt_labels)) and ((0 <= z) & (z <= 1)).all()
    table = at.dataframe[-1].value
    assert list(table.index) == list(run.tgt_labels) and table.shape[1] == cfg.n_decoder_layers


def test_pre_norm_decoder_only_reads_through_the_final_norm(other_models):
    at = open_page("ffn_norm", model="tiny-lm", src="i see him", layer=1)
    assert_clean(at)
    cfg = loaders.load_model("tiny-lm").config
    run = loaders.run("tiny-lm", "i see him")
    assert at.radio(key="ffn_norm.stack").options == ["decoder"]
    expected = np.stack([np.linalg.norm(run.trace[n][0], axis=-1) for n in stream_names(cfg, "decoder", "tgt")])
    assert np.allclose(np.stack(lines(at), 1), expected, atol=1e-5)
    hidden = run.trace["decoder.layers.1.ffn.hidden"][0]
    assert np.allclose(decode(named_chart(at, "ffn_norm.inactive")["data"][0]["x"]), (hidden < 0).mean(-1))  # GELU negatives
    data = named_chart(at, "ffn_norm.hist")["data"]  # pre-norm: norm1 normalizes the layer's input, layer 0's output
    assert np.array_equal(decode(data[0]["x"]), run.trace["decoder.layers.0.resid_post"][0, 0])
    assert any("rms 1.000" in m.value for m in at.markdown)  # RMSNorm before γ
    lens = loaders.logit_lens("tiny-lm", "i see him")
    assert np.array_equal(lens.top_ids[-1, :, 0], run.trace["logits"][0].argmax(-1))
    assert np.allclose(lens.top_probs[-1, :, 0], run.trace["probs"][0].max(-1), atol=1e-5)


def test_encoder_only_model_says_the_lens_does_not_apply(other_models):
    at = open_page("ffn_norm", model="tiny-encoder", src="i see him")
    assert_clean(at)
    assert chart_names(at) == ["ffn_norm.stream", "ffn_norm.hidden", "ffn_norm.inactive", "ffn_norm.hist"]
    assert any("does not apply" in i.value for i in at.info)
