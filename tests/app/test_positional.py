import json
import math

import numpy as np
import pytest
import torch

from core_model import ModelConfig, Transformer, checkpoints
from core_model.nn.positional import alibi_slopes, sinusoidal_table
from streamlit.testing.v1 import AppTest

from tests.app.conftest import APP, assert_clean, chart_names, decode, named_chart, open_page
from viz_app import loaders

TOY = dict(d_model=32, n_heads=4, n_encoder_layers=1, n_decoder_layers=1, d_ff=64, max_len=40)


def save_toy(folder, **fields):
    """A small random checkpoint using the shipped source tokenizer on every side."""
    tokenizer = loaders.load_model(loaders.DEFAULT_MODEL).tokenizers["src"]
    torch.manual_seed(0)
    sizes = dict(src_vocab_size=tokenizer.vocab_size, tgt_vocab_size=tokenizer.vocab_size)
    model = Transformer(ModelConfig(**{**TOY, **sizes, **fields}))
    checkpoints.save(folder, model, {"src": tokenizer, "tgt": tokenizer})


@pytest.fixture(scope="module")
def toys(tmp_path_factory):
    """Toy models of every positional kind and architecture, in their own models folder."""
    root = tmp_path_factory.mktemp("models")
    kinds = {"toy-learned-ed": dict(positional="learned"), "toy-rope-lm": dict(architecture="decoder", positional="rope"),
             "toy-alibi-enc": dict(architecture="encoder", positional="alibi"),
             "toy-none-lm": dict(architecture="decoder", positional="none", scale_embedding=False),
             "toy-relative-ed": dict(positional="relative", norm_placement="pre", scale_scores=False,
                                     relative_buckets=8, relative_max_distance=20)}
    for name, fields in kinds.items():
        save_toy(root / name, **fields)
    return root


@pytest.fixture
def toy_models(toys, monkeypatch):
    monkeypatch.setattr(loaders.models, "MODELS_DIR", toys)
    return toys


def z(at, name, trace=0):
    return decode(named_chart(at, name)["data"][trace]["z"])


def expected_table(length, d, base):
    """The paper's formula, written out here independently of core_model."""
    pos = np.arange(length)[:, None]
    freq = base ** (-np.arange(0, d, 2) / d)
    out = np.zeros((length, d))
    out[:, 0::2], out[:, 1::2] = np.sin(pos * freq), np.cos(pos * freq)
    return out


def test_lab_defaults_draw_the_sinusoidal_table_its_curves_and_similarity():
    at = open_page("positional")
    assert_clean(at)
    table = z(at, "positional.table")
    assert table.shape == (100, 128)
    np.testing.assert_allclose(table, sinusoidal_table(100, 128, 10000).numpy(), atol=1e-6)
    np.testing.assert_allclose(table, expected_table(100, 128, 10000), atol=1e-5)
    sim = z(at, "positional.similarity")
    pe = expected_table(100, 128, 10000)
    np.testing.assert_allclose(sim, sim.T, atol=1e-5)
    np.testing.assert_allclose(sim, pe @ pe.T, atol=1e-3)
    lines = named_chart(at, "positional.curves")["data"]
    assert [line["name"] for line in lines] == ["dim 0 (sin)", "dim 1 (cos)", "dim 8 (sin)", "dim 16 (sin)"]
    for line, dim in zip(lines, (0, 1, 8, 16)):
        np.testing.assert_allclose(decode(line["y"]), pe[:, dim], atol=1e-5)


def test_sliders_reshape_the_table_and_follow_the_url():
    at = open_page("positional")
    at.slider(key="positional.d_model").set_value(64).run()
    at.slider(key="positional.length").set_value(30).run()
    at.select_slider(key="positional.base").set_value(100).run()
    assert_clean(at)
    table = z(at, "positional.table")
    assert table.shape == (30, 64)
    np.testing.assert_allclose(table, sinusoidal_table(30, 64, 100).numpy(), atol=1e-6)
    assert z(at, "positional.similarity").shape == (30, 30)
    assert at.query_params["positional.d_model"] == "64" and at.query_params["positional.base"] == "100"


def test_a_shared_link_reopens_the_same_lab():
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in {"positional.d_model": "48", "positional.length": "24", "positional.base": "1000",
                       "positional.dims": "[2, 3]"}.items():
        at.query_params[key] = value
    at.switch_page("app_pages/positional.py")
    at.run()
    assert_clean(at)
    np.testing.assert_allclose(z(at, "positional.table"), sinusoidal_table(24, 48, 1000).numpy(), atol=1e-6)
    assert [line["name"] for line in named_chart(at, "positional.curves")["data"]] == ["dim 2 (sin)", "dim 3 (cos)"]


def test_narrowing_d_model_drops_dimensions_it_no_longer_has():
    at = open_page("positional", **{"positional.dims": [0, 20, 40]})
    at.slider(key="positional.d_model").set_value(32).run()
    assert_clean(at)
    assert at.multiselect(key="positional.dims").value == [0, 20]
    pe = sinusoidal_table(100, 32, 10000).numpy()
    np.testing.assert_allclose(decode(named_chart(at, "positional.curves")["data"][1]["y"]), pe[:, 20], atol=1e-6)


def test_no_dimension_chosen_says_so():
    at = open_page("positional", **{"positional.dims": []})
    assert_clean(at)
    assert at.info[0].value == "Choose at least one dimension to draw its curve."


def test_a_bad_link_value_is_named_and_replaced():
    at = open_page("positional", **{"positional.d_model": 100, "positional.base": 7})
    assert_clean(at)
    warnings = " ".join(w.value for w in at.warning)
    assert "positional.d_model = 100" in warnings and "positional.base = 7" in warnings
    assert z(at, "positional.table").shape == (100, 128)


def test_sinusoidal_model_shows_its_own_table_and_the_sentence_sum():
    at = open_page("positional", src="the cat sees the dog")
    assert_clean(at)
    loaded = loaders.load_model("translate-en-fr")
    n = min(100, loaded.config.max_len)
    own = z(at, "positional.model.src.table")
    np.testing.assert_allclose(own, loaded.model.src_embed.pos.table[:n].numpy(), atol=1e-6)
    np.testing.assert_allclose(z(at, "positional.model.src.similarity"), own @ own.T, atol=1e-3)
    emb = loaders.run("translate-en-fr", "the cat sees the dog").trace.embed("src")
    for key in ("scaled", "pos", "out"):
        np.testing.assert_allclose(z(at, f"positional.sentence.{key}"), getattr(emb, key)[0], atol=1e-6)


def test_learned_positions_show_the_weights_of_each_side_with_cosine_similarity(toy_models):
    at = open_page("positional", model="toy-learned-ed", src="the cat")
    assert_clean(at)
    model = loaders.load_model("toy-learned-ed").model
    for side in ("src", "tgt"):
        weight = getattr(model, f"{side}_embed").pos.weight[:40].detach().numpy()  # max_len 40 < length 100
        np.testing.assert_allclose(z(at, f"positional.model.{side}.table"), weight, atol=1e-6)
        unit = weight / np.linalg.norm(weight, axis=1, keepdims=True)
        np.testing.assert_allclose(z(at, f"positional.model.{side}.similarity"), unit @ unit.T, atol=1e-5)


def test_rope_shows_rotation_angles_and_a_score_that_depends_only_on_the_offset(toy_models):
    at = open_page("positional", model="toy-rope-lm", src="the cat", **{"positional.length": 20})
    assert_clean(at)
    d_head = TOY["d_model"] // TOY["n_heads"]
    angles = np.arange(20)[:, None] * 10000.0 ** (-np.arange(0, d_head, 2) / d_head)
    np.testing.assert_allclose(z(at, "positional.model.rope.angles"), np.mod(angles, 2 * math.pi), atol=1e-4)
    offset = z(at, "positional.model.rope.offset")
    assert offset.shape == (20, 20)
    np.testing.assert_allclose(offset[1:, 1:], offset[:-1, :-1], atol=1e-4)  # constant along diagonals
    assert at.info and "no position vector" in at.info[0].value  # the sentence gets no added positions
    assert "positional.sentence.pos" not in chart_names(at)


def test_alibi_shows_one_bias_matrix_per_head(toy_models):
    at = open_page("positional", model="toy-alibi-enc", src="the cat", **{"positional.length": 12})
    assert_clean(at)
    spec = named_chart(at, "positional.model.alibi")
    assert len(spec["data"]) == TOY["n_heads"]
    distance = np.abs(np.arange(12)[:, None] - np.arange(12)[None, :])
    for head, slope in enumerate(alibi_slopes(TOY["n_heads"]).tolist()):
        np.testing.assert_allclose(decode(spec["data"][head]["z"]), -slope * distance, atol=1e-6)


def test_t5s_relative_bias_shows_each_stacks_table_and_each_heads_bias(toy_models):
    at = open_page("positional", model="toy-relative-ed", src="the cat", **{"positional.length": 12})
    assert_clean(at)
    model = loaders.load_model("toy-relative-ed").model
    for side, stack in (("src", "encoder"), ("tgt", "decoder")):
        table = getattr(model, stack).relative_bias
        np.testing.assert_array_equal(z(at, f"positional.model.relative.{side}.buckets"), table.weight.detach().T)
        spec = named_chart(at, f"positional.model.relative.{side}")
        assert len(spec["data"]) == TOY["n_heads"]
        bias = table(0, 12, 12)[0].detach().numpy()  # [h, 12, 12]
        for head in range(TOY["n_heads"]):
            np.testing.assert_array_equal(decode(spec["data"][head]["z"]), bias[head])
    captions = " ".join(c.value for c in at.caption)
    assert "tell keys before the query from keys after it" in captions and "causal mask hides it" in captions
    assert "relative position bias" in " ".join(m.value for m in at.markdown)
    at = open_page("positional", model="toy-relative-ed", src="the cat", lang="zh", **{"positional.length": 12})
    assert "编码器的桶区分查询之前和之后的键" in " ".join(c.value for c in at.caption)
    assert named_chart(at, "positional.model.relative.src.buckets")["layout"]["xaxis"]["title"]["text"] == "桶"


def test_no_positional_encoding_is_said(toy_models):
    at = open_page("positional", model="toy-none-lm", src="the cat")
    assert_clean(at)
    assert "no positional encoding at all" in " ".join(m.value for m in at.markdown)
    assert not any(".model." in name for name in chart_names(at))


def test_chinese_interface():
    at = open_page("positional", lang="zh")
    assert_clean(at)
    assert at.title[0].value == "位置编码实验室"
    assert named_chart(at, "positional.table")["layout"]["xaxis"]["title"]["text"] == "维度"
    assert named_chart(at, "positional.curves")["data"][0]["name"] == "第 0 维（正弦）"


def test_the_lab_works_without_a_sentence():
    at = open_page("positional", src="")
    assert_clean(at)
    assert z(at, "positional.table").shape == (100, 128)
    assert at.info[-1].value == "Type a sentence in the sidebar to start."
    assert not any(name.startswith("positional.sentence") for name in chart_names(at))


def test_each_alibi_head_and_each_sentence_matrix_gets_its_own_colour_range_and_the_caption_says_so():
    """lm-en: ALiBi slopes from 1/4 to 1/256, so on one range the gentle heads were blank; the sentence's scaled
    embedding dwarfed nothing there, but each panel is on its own range all the same, said in the caption."""
    at = open_page("positional", model="lm-en", src="the cat sees the dog", **{"positional.length": 30})
    assert_clean(at)
    heads = named_chart(at, "positional.model.alibi")["data"]
    for trace in heads:
        bound = np.abs(decode(trace["z"])).max()
        assert (trace["zmin"], trace["zmax"]) == pytest.approx((-bound, bound), rel=1e-6)
    assert len({round(trace["zmax"], 6) for trace in heads}) == len(heads)  # four different ranges, four bars
    assert len({json.dumps(trace["colorbar"], sort_keys=True) for trace in heads}) == len(heads)
    slopes = alibi_slopes(len(heads)).tolist()
    captions = " ".join(c.value for c in at.caption)
    assert f"from {max(slopes):.4g} to {min(slopes):.4g}" in captions
    for key in ("scaled", "out"):  # ALiBi adds no position vector: two matrices
        spec = named_chart(at, f"positional.sentence.{key}")
        bound = np.abs(decode(spec["data"][0]["z"])).max()
        assert spec["layout"]["coloraxis"]["cmax"] == pytest.approx(bound, rel=1e-6)
        assert f"±{bound:.3g}" in captions
    assert "Each matrix has its own colour range" in captions


def test_a_model_that_does_not_scale_its_embeddings_does_not_say_scaled(tmp_path, monkeypatch):
    """As MiniLM (BERT does not multiply by √d_model): the title says what the config says the model does."""
    save_toy(tmp_path / "toy-learned-unscaled", architecture="encoder", positional="learned", scale_embedding=False)
    monkeypatch.setattr(loaders.models, "MODELS_DIR", tmp_path)
    at = open_page("positional", model="toy-learned-unscaled", src="the cat")
    assert_clean(at)
    title = named_chart(at, "positional.sentence.scaled")["layout"]["title"]["text"]
    assert title == "token embedding (not scaled)"
    monkeypatch.undo()
    scaled = open_page("positional", src="the cat")
    title = named_chart(scaled, "positional.sentence.scaled")["layout"]["title"]["text"]
    assert title == "token embedding × √d_model"
