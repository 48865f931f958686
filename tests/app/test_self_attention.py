"""Self-attention step by step: every heatmap holds the trace's values for the chosen block, layer,
head and query; the ÷√d_k switch shows the unscaled run."""
import numpy as np
import pytest

from core_model import ModelConfig, Transformer, checkpoints, load
from core_model.trace import run_with_trace
from core_model.tokenizers import Tokenizer
from viz_app import loaders
from viz_app.sidebar import EXAMPLES
from viz_app.text import safe_labels
from tests.app.conftest import assert_clean, decode, named_chart, named_z, open_page

MODEL, SRC = "translate-en-fr", "the cat sees the dog"


def spec(at, name: str) -> dict:
    return named_chart(at, f"self_attention.{name}")


def z(at, name: str) -> np.ndarray:
    return decode(spec(at, name)["data"][0]["z"])


def softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_heatmaps_are_the_traced_head_and_follow_the_head_choice():
    at = open_page("self_attention", src=SRC, layer=1, head=0)
    assert_clean(at)
    run = loaders.run(MODEL, SRC)
    view = run.trace.attn("encoder", 1, "self_attn")
    for head in (0, 1):
        if head:
            at.sidebar.selectbox(key="head").set_value(1).run()
            assert_clean(at)
        np.testing.assert_array_equal(z(at, "q"), view.q[0, head])
        np.testing.assert_array_equal(z(at, "k"), view.k[0, head])
        np.testing.assert_array_equal(z(at, "v"), view.v[0, head])
        np.testing.assert_array_equal(z(at, "scores"), view.scores[0, head])
        np.testing.assert_array_equal(z(at, "scaled"), view.scores_scaled[0, head])
        np.testing.assert_array_equal(z(at, "pattern"), view.pattern[0, head])
        np.testing.assert_array_equal(z(at, "z"), view.z[0, head])
        np.testing.assert_array_equal(z(at, "concat"), view.concat[0])
        np.testing.assert_array_equal(z(at, "out"), view.out[0])
        assert (z(at, "mask") == 1).all()  # the encoder sees every token
        assert spec(at, "pattern")["data"][0]["x"] == safe_labels(run.src_labels)
    assert not np.allclose(view.q[0, 0], view.q[0, 1])


def test_input_times_the_shown_weights_is_the_shown_q():
    at = open_page("self_attention", src=SRC, layer=1, head=2)
    assert_clean(at)
    trace = loaders.run(MODEL, SRC).trace
    x = trace["encoder.layers.0.norm2"][0]  # post-norm: layer 1 reads layer 0's last norm
    proj = loaders.load_model(MODEL).model.encoder.layers[1].self_attn.q_proj
    d = proj.weight.shape[0] // 4
    w = proj.weight.detach().numpy()[2 * d:3 * d].T  # [d_model, d_head]
    b = proj.bias.detach().numpy()[2 * d:3 * d]
    np.testing.assert_array_equal(z(at, "x"), x)
    np.testing.assert_array_equal(z(at, "w_q"), w)
    np.testing.assert_allclose(z(at, "x") @ z(at, "w_q") + b, z(at, "q"), atol=1e-4)


def test_query_choice_outlines_its_row_and_charts_its_numbers():
    at = open_page("self_attention", src=SRC, layer=0, head=1)
    at.selectbox(key="self_attention.query").set_value(3).run()
    assert_clean(at)
    view = loaders.run(MODEL, SRC).trace.attn("encoder", 0, "self_attn")
    shape = spec(at, "pattern")["layout"]["shapes"][0]
    assert (shape["y0"], shape["y1"]) == (2.5, 3.5)
    bars = spec(at, "row")["data"]
    for bar, leaf in zip(bars, ("scores", "scores_masked", "pattern")):
        np.testing.assert_allclose(decode(bar["y"]).astype(float), getattr(view, leaf)[0, 1, 3], rtol=1e-6)


def test_dropping_the_scaling_shows_the_unscaled_run_and_its_saturation():
    at = open_page("self_attention", src=SRC, layer=0, head=0)
    at.toggle(key="self_attention.unscaled").set_value(True).run()
    assert_clean(at)
    bare = loaders.run(MODEL, SRC, scale=False).trace.attn("encoder", 0, "self_attn")
    scaled = loaders.run(MODEL, SRC).trace.attn("encoder", 0, "self_attn")
    np.testing.assert_array_equal(z(at, "scaled"), z(at, "scores"))
    np.testing.assert_array_equal(z(at, "scores"), bare.scores[0, 0])
    np.testing.assert_allclose(z(at, "pattern"), softmax(bare.scores[0, 0].astype(np.float64)), atol=1e-6)
    with_row, without_row = scaled.pattern[0, 0, 0], bare.pattern[0, 0, 0]

    def entropy(p):
        p = p[p > 0].astype(np.float64)
        return -(p * np.log2(p)).sum()

    metrics = [m.value for m in at.metric]
    assert metrics == [f"{entropy(with_row):.3f}", f"{with_row.max():.3f}",
                       f"{entropy(without_row):.3f}", f"{without_row.max():.3f}"]
    assert entropy(without_row) < entropy(with_row)  # the softmax saturates
    bars = spec(at, "saturation")["data"]
    np.testing.assert_allclose(decode(bars[0]["y"]), with_row, rtol=1e-6)
    np.testing.assert_allclose(decode(bars[1]["y"]), without_row, rtol=1e-6)


def test_cross_attention_reads_the_source_as_keys():
    at = open_page("self_attention", src=SRC, layer=2, head=3)
    at.selectbox(key="self_attention.kind").set_value("decoder.cross_attn").run()
    assert_clean(at)
    run = loaders.run(MODEL, SRC)
    view = run.trace.attn("decoder", 2, "cross_attn")
    pattern = spec(at, "pattern")["data"][0]
    assert pattern["x"] == safe_labels(run.src_labels) and pattern["y"] == safe_labels(run.tgt_labels)  # "<s>" escaped
    np.testing.assert_array_equal(z(at, "pattern"), view.pattern[0, 3])
    np.testing.assert_array_equal(z(at, "memory"), run.trace["encoder.layers.2.norm2"][0])  # the encoder's output
    np.testing.assert_array_equal(z(at, "x"), run.trace["decoder.layers.2.norm1"][0])


def test_decoder_self_attention_shows_the_causal_mask_as_empty_cells():
    at = open_page("self_attention", src=SRC, layer=0, head=0)
    at.selectbox(key="self_attention.kind").set_value("decoder.self_attn").run()
    assert_clean(at)
    view = loaders.run(MODEL, SRC).trace.attn("decoder", 0, "self_attn")
    n = view.pattern.shape[-1]
    np.testing.assert_array_equal(z(at, "mask"), np.tril(np.ones((n, n))))
    masked = z(at, "masked")
    assert np.isnan(masked[np.triu_indices(n, 1)]).all()
    np.testing.assert_array_equal(masked[np.tril_indices(n)], view.scores_masked[0, 0][np.tril_indices(n)])
    row = spec(at, "row")["data"][1]  # query 0: only key 0 is allowed
    assert row["text"][1:] == ["−∞"] * (n - 1) and np.isnan(decode(row["y"]).astype(float)[1:]).all()


def test_a_link_to_a_missing_block_says_so_and_shows_the_first():
    at = open_page("self_attention", src=SRC, **{"self_attention.kind": "encoder.cross_attn"})
    assert_clean(at)
    assert any("encoder.cross_attn" in w.value for w in at.warning)
    assert at.selectbox(key="self_attention.kind").value == "encoder.self_attn"


def test_chinese_page_renders():
    at = open_page("self_attention", src=SRC, lang="zh")
    assert_clean(at)
    assert at.title[0].value == "自注意力逐步计算"
    assert spec(at, "pattern")["layout"]["xaxis"]["title"]["text"] == "键词元"


@pytest.mark.parametrize("name,fields", [
    ("tiny-lm-prenorm", dict(architecture="decoder", norm_placement="pre", positional="learned")),
    ("tiny-encoder-rope", dict(architecture="encoder", positional="rope")),
])
def test_other_architectures_show_their_only_block(monkeypatch, tmp_path, name, fields):
    shipped = loaders.MODELS_DIR / MODEL
    tokenizers = {side: Tokenizer.load(shipped / f"{side}.model") for side in ("src", "tgt")}
    cfg = ModelConfig(src_vocab_size=tokenizers["src"].vocab_size, tgt_vocab_size=tokenizers["tgt"].vocab_size,
                      d_model=16, n_heads=2, d_ff=32, n_encoder_layers=2, n_decoder_layers=2, max_len=64, **fields)
    checkpoints.save(tmp_path / name, Transformer(cfg), tokenizers)
    monkeypatch.setattr(loaders.models, "MODELS_DIR", tmp_path)
    # the block of the model seen before (cross-attention) is not in this one: say so, show the one it has
    at = open_page("self_attention", model=name, src="the cat", layer=1, head=1,
                   **{"self_attention.kind": "decoder.cross_attn"})
    assert_clean(at)
    assert any("cross" in i.value.lower() for i in at.info)
    stack = "decoder" if cfg.has_decoder else "encoder"
    kind = at.selectbox(key="self_attention.kind")
    assert kind.value == f"{stack}.self_attn" and len(kind.options) == 1
    trace = loaders.run(name, "the cat").trace
    view = trace.attn(stack, 1, "self_attn")
    np.testing.assert_array_equal(z(at, "q"), view.q[0, 1])
    if cfg.norm_placement == "pre":  # the block reads its layer's norm1
        np.testing.assert_array_equal(z(at, "x"), trace.layer(stack, 1, "norm1")[0])
        bias = loaders.load_model(name).model.decoder.layers[1].self_attn.q_proj.bias.detach().numpy()[8:16]
        np.testing.assert_allclose(z(at, "x") @ z(at, "w_q") + bias, z(at, "q"), atol=1e-5)
    else:  # RoPE turns the projection by position, and the page says so
        assert any("RoPE" in c.value for c in at.caption)


@pytest.mark.parametrize("model", ["translate-en-fr", "lm-en-rope"])  # RoPE: q and k as rotated
def test_inside_q_dot_k_each_row_of_products_sums_to_the_traces_raw_score(model):
    loaded = load(loaders.MODELS_DIR / model)
    ids = loaded.tokenizers["tgt" if model.startswith("lm") else "src"].encode(EXAMPLES[model])
    src, tgt = (None, [loaded.config.bos_id] + ids) if model.startswith("lm") else (ids, [loaded.config.bos_id])
    _, trace = run_with_trace(loaded.model, src, tgt)
    stack = "decoder" if model.startswith("lm") else "encoder"
    query = 2
    raw = np.asarray(trace.attn(stack, 0, "self_attn").scores[0, 0, query], dtype=np.float64)
    at = open_page("self_attention", model=model, **{"self_attention.query": query})
    products = named_z(at, "self_attention.neuron").astype(np.float64)  # [keys, d_head]
    keys = products.shape[0]
    # float32 products summed over d_head: a few float32 steps of the largest product
    np.testing.assert_allclose(products.sum(-1), raw[:keys], atol=1e-5 * np.abs(products).sum(-1).max())
    assert products.shape[1] == loaded.config.d_head
