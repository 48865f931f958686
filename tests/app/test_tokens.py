import math

import numpy as np
import pytest

from tests.app.conftest import assert_clean, decode, named_chart, open_page
from tests.app.test_positional import save_toy, z
from viz_app import loaders
from viz_app.i18n import text
from viz_app.text import safe_labels

SENTENCE = "the cat sees the dog"


@pytest.fixture
def toy_models(tmp_path_factory, monkeypatch):
    root = tmp_path_factory.mktemp("token-models")
    save_toy(root / "toy-tok-lm", architecture="decoder", scale_embedding=False)
    save_toy(root / "toy-tok-enc", architecture="encoder")
    monkeypatch.setattr(loaders.models, "MODELS_DIR", root)
    return root


def tables(at):
    return [d.value for d in at.dataframe]


def test_table_lists_exactly_the_runs_pieces_and_ids_on_both_sides():
    at = open_page("tokens", src=SENTENCE)
    assert_clean(at)
    run = loaders.run("translate-en-fr", SENTENCE)
    tokenizers = loaders.load_model("translate-en-fr").tokenizers
    assert [tab.label for tab in at.tabs] == ["Source (encoder input)", "Decoder input"]
    src, tgt = at.tabs[0].dataframe[0].value, at.tabs[1].dataframe[0].value
    assert list(src["id"]) == list(run.src_ids) == tokenizers["src"].encode(SENTENCE)
    assert list(src["piece"]) == tokenizers["src"].display_pieces(run.src_ids)
    assert list(src["position"]) == list(range(len(run.src_ids)))
    assert list(src["word index"]) == [str(w) for w in tokenizers["src"].word_ids(run.src_ids)]  # a word per piece
    assert list(tgt["id"]) == list(run.tgt_ids) and tgt["id"][0] == 2  # <s> first
    assert tgt["piece"][0] == "<s>" and tgt["word index"][0] == "—"  # a special belongs to no word


def test_embedding_heatmaps_are_the_trace_before_and_after_scaling():
    at = open_page("tokens", src=SENTENCE)
    run = loaders.run("translate-en-fr", SENTENCE)
    emb = run.trace.embed("src")
    d_model = loaders.load_model("translate-en-fr").config.d_model
    tok, scaled = z(at, "tokens.src.tok"), z(at, "tokens.src.scaled")
    np.testing.assert_array_equal(tok, emb.tok[0])
    np.testing.assert_allclose(scaled, emb.tok[0] * math.sqrt(d_model), rtol=1e-6)
    spec = named_chart(at, "tokens.src.tok")
    assert spec["data"][0]["y"] == list(run.src_labels)
    # each on its own range (on the scaled one's, the looked-up rows were pale), and the caption gives both
    captions = " ".join(c.value for c in at.caption)
    for name, values in (("tokens.src.tok", tok), ("tokens.src.scaled", scaled)):
        bound = float(np.abs(values).max())
        assert named_chart(at, name)["layout"]["coloraxis"]["cmax"] == pytest.approx(bound, rel=1e-6)
        assert f"±{bound:.3g}" in captions
    assert "Each heatmap has its own colour range" in captions
    np.testing.assert_array_equal(z(at, "tokens.tgt.tok"), run.trace.embed("tgt").tok[0])


def test_norm_bars_show_the_lengths_before_and_after_and_the_factor():
    at = open_page("tokens", src=SENTENCE)
    emb = loaders.run("translate-en-fr", SENTENCE).trace.embed("src")
    bars = named_chart(at, "tokens.src.norms")["data"]
    assert [b["name"] for b in bars] == ["‖E[token]‖", "‖E[token] × √d_model‖", "‖position vector‖"]
    before, after, pos = (decode(b["y"]) for b in bars)
    np.testing.assert_allclose(before, np.linalg.norm(emb.tok[0], axis=1), rtol=1e-5)
    np.testing.assert_allclose(after / before, math.sqrt(128), rtol=1e-4)
    np.testing.assert_allclose(pos, np.linalg.norm(emb.pos[0], axis=1), rtol=1e-5)
    text = " ".join(m.value for m in at.markdown)
    assert "√128 = 11.31" in text


def test_projection_and_neighbours_come_from_the_whole_embedding_matrix():
    at = open_page("tokens", src=SENTENCE, **{"tokens.k": 3})
    assert_clean(at)
    run = loaders.run("translate-en-fr", SENTENCE)
    loaded = loaders.load_model("translate-en-fr")
    weight = loaded.model.src_embed.tok.weight.detach().numpy()
    unit = weight / np.linalg.norm(weight, axis=1, keepdims=True)
    spec = named_chart(at, "tokens.src.projection")
    faint, points = spec["data"]
    assert len(decode(points["x"])) == len(run.src_ids) and len(decode(faint["x"])) == 3 * len(run.src_ids)
    neighbours = at.tabs[0].dataframe[1].value
    pieces = loaded.tokenizers["src"].display_pieces
    for i, token in enumerate(run.src_ids):
        cos = unit @ unit[token]
        cos[[token, 0, 1, 2, 3]] = -np.inf  # itself and the special tokens are left out
        best = np.argsort(-cos)[:3]
        assert list(neighbours.iloc[i, 1:]) == [f"{pieces([j])[0]} ({cos[j]:.3f})" for j in best]
    # the points are the sentence's rows on their own two principal axes
    rows = run.trace.embed("src").tok[0].astype(np.float64)
    centred = rows - rows.mean(axis=0)
    xy = np.stack([decode(points["x"]), decode(points["y"])], axis=1)
    np.testing.assert_allclose(np.abs(xy), np.abs(centred @ np.linalg.svd(centred)[2][:2].T), atol=1e-4)


def test_changing_the_sentence_or_k_redraws_from_the_new_run():
    at = open_page("tokens", src=SENTENCE)
    at.sidebar.text_input(key="src").set_value("i see him").run()
    assert_clean(at)
    run = loaders.run("translate-en-fr", "i see him")
    assert list(at.tabs[0].dataframe[0].value["id"]) == list(run.src_ids)
    np.testing.assert_array_equal(z(at, "tokens.src.tok"), run.trace.embed("src").tok[0])
    at.number_input(key="tokens.k").set_value(2).run()
    assert at.tabs[0].dataframe[1].value.shape[1] == 1 + 2
    assert at.query_params["tokens.k"] == "2"


def test_a_decoder_only_model_without_scaling_says_so(toy_models):
    at = open_page("tokens", model="toy-tok-lm", src="the cat")
    assert_clean(at)
    run = loaders.run("toy-tok-lm", "the cat")
    assert not at.tabs
    assert list(at.dataframe[0].value["id"]) == list(run.tgt_ids)
    assert "does not scale its embeddings" in " ".join(m.value for m in at.markdown)
    np.testing.assert_array_equal(z(at, "tokens.tgt.scaled"), run.trace.embed("tgt").tok[0])


def test_an_encoder_only_model_shows_its_source_tokens(toy_models):
    at = open_page("tokens", model="toy-tok-enc", src="the cat")
    assert_clean(at)
    run = loaders.run("toy-tok-enc", "the cat")
    assert list(at.dataframe[0].value["id"]) == list(run.src_ids)
    assert "projected" in " ".join(m.value for m in at.markdown)
    assert at.caption and any("fewer than three" in c.value for c in at.caption)  # 2 tokens: axes fitted with neighbours


def test_a_bad_k_in_the_link_is_replaced():
    at = open_page("tokens", src=SENTENCE, **{"tokens.k": 99})
    assert_clean(at)
    assert "tokens.k = 99" in " ".join(w.value for w in at.warning)
    assert at.number_input(key="tokens.k").value == 5


def test_chinese_interface():
    at = open_page("tokens", src=SENTENCE, lang="zh")
    assert_clean(at)
    assert [tab.label for tab in at.tabs] == ["源句（编码器输入）", "解码器输入"]
    assert list(at.tabs[0].dataframe[0].value.columns) == ["位置", "片段", "编号", "词序号"]
    assert named_chart(at, "tokens.src.projection")["layout"]["xaxis"]["title"]["text"] == "第 1 主成分"


def test_the_map_labels_only_tokens_whose_labels_do_not_overlap_and_names_every_token_on_hover():
    """lm-en on a long sentence: close points' labels piled up; now a label is written only where it has room."""
    from viz_app.views.tokens import label_boxes

    sentence = "the dog sees the cat and the cat sees the dog and you all see them and i see him too"
    at = open_page("tokens", model="lm-en", src=sentence)
    assert_clean(at)
    labels = loaders.run("lm-en", sentence).tgt_labels
    traces = named_chart(at, "tokens.tgt.projection")["data"]
    tokens = next(t for t in traces if t["name"] == text("tokens.proj.tokens", "en"))
    assert tokens["hovertext"] == safe_labels(labels)  # every token, escaped as any label
    shown = np.array([bool(label) for label in tokens["text"]])
    assert 0 < shown.sum() < len(labels)
    assert [label for label in tokens["text"] if label] == [label for label, k in zip(safe_labels(labels), shown) if k]
    spec = named_chart(at, "tokens.tgt.projection")["data"]
    both = np.vstack([np.column_stack([decode(t["x"]), decode(t["y"])]) for t in spec])
    centres, half = label_boxes(np.column_stack([decode(tokens["x"]), decode(tokens["y"])]), labels,
                                float(np.ptp(both, axis=0).max()))
    kept = np.flatnonzero(shown)
    for a in kept:
        for b in kept[kept > a]:
            assert (np.abs(centres[a] - centres[b]) >= half[a] + half[b]).any(), (labels[a], labels[b])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_special_tokens_word_index_is_a_dash_not_none(lang):
    at = open_page("tokens", model="lm-en", src="the old man", lang=lang)  # the decoder reads <s> first
    assert_clean(at)
    words = list(at.dataframe[0].value[text("tokens.col.word", lang)])
    assert words == ["—", "0", "1", "2"]  # <s>, then "▁the", "▁old", "▁man": each word's space in its first piece
