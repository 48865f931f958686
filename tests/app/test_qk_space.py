"""The explorer's queries and keys of a corpus as a user drives it: off until asked, then one point per token of the
held-out sentences (queries and keys), for the sidebar's head in the page's block, every hover escaped."""
import numpy as np

from core_model import checkpoints
from core_model.training.tasks import held_out
from tests.app.conftest import assert_clean, chart_names, decode, named_chart, open_page
from viz_app import loaders
from viz_app.views import qk_space as view

MODEL = "translate-en-fr"
CHART = "explorer.qk"


def held_out_pairs() -> tuple:
    """The first test pairs of translate-en-fr (seed 0), as core_model.training.evaluate reads them; tests/core/test_tasks.py
    checks `held_out` against the whole corpus."""
    return held_out(MODEL)["test"][:loaders.QK_SENTENCES]


def counted(chart: dict) -> tuple[int, int]:
    """How many points the chart's two clouds hold: (queries, keys)."""
    queries, keys = chart["data"]
    assert len(decode(queries["x"])) == len(decode(queries["y"])) and len(decode(keys["x"])) == len(decode(keys["y"]))
    return len(decode(queries["x"])), len(decode(keys["x"]))


def test_the_explorer_opens_without_running_the_model_over_a_corpus(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the corpus was traced before the user asked")

    monkeypatch.setattr(loaders.corpus, "qk_corpus", refuse)
    monkeypatch.setattr(loaders.corpus, "held_out", refuse)
    at = open_page("explorer")
    assert_clean(at)
    assert CHART not in chart_names(at)
    assert at.toggle(key="explorer.qk").value is False


def test_turned_on_it_draws_every_token_of_the_held_out_sentences_as_a_query_and_a_key():
    at = open_page("explorer")
    at.toggle(key="explorer.qk").set_value(True).run()
    assert_clean(at)
    chart = named_chart(at, CHART)
    src = checkpoints.load(loaders.model_folder(MODEL)).tokenizers["src"]
    tokens = sum(len(src.encode(s)) for s, _, _ in held_out_pairs())  # encoder self-attention: source tokens only
    assert counted(chart) == (tokens, tokens)
    assert at.query_params["explorer.qk"] == "1"  # in the link
    assert not at.get("progress")  # the bar is gone once the corpus is traced
    # the chart draws the view of the loader's vectors: sidebar layer 0 and head 0 of the encoder
    space = view.space(loaders.qk_corpus(MODEL, "encoder.self_attn", 0), 0)
    np.testing.assert_array_equal(decode(chart["data"][0]["x"]), space.queries[:, 0])
    np.testing.assert_array_equal(decode(chart["data"][1]["y"]), space.keys[:, 1])
    shares = [f"{v:.1%}" for v in space.share]
    assert any(all(s in c.value for s in shares) for c in at.caption)  # the explained variance is said


def test_cross_attention_reads_queries_from_the_targets_and_keys_from_the_sources_with_escaped_hovers():
    at = open_page("explorer", **{"explorer.kind": "decoder.cross_attn", "layer": 1, "head": 2, "explorer.qk": True})
    assert_clean(at)
    chart = named_chart(at, CHART)
    tokenizers = checkpoints.load(loaders.model_folder(MODEL)).tokenizers
    pairs = held_out_pairs()
    n_q = sum(1 + len(tokenizers["tgt"].encode(t)) for _, t, _ in pairs)  # <s> and the French target
    n_k = sum(len(tokenizers["src"].encode(s)) for s, _, _ in pairs)
    assert counted(chart) == (n_q, n_k)
    assert "Layer 1, head 2" in chart["layout"]["title"]["text"]
    # <s> is plotly markup (a strike-through) unless escaped; the first query is the first target's <s>
    assert chart["data"][0]["hovertext"][0] == f"<b>0·&lt;s&gt;</b><br>{pairs[0][1]}"
    first_key = tokenizers["src"].display_pieces(tokenizers["src"].encode(pairs[0][0]))[0].lstrip("▁")
    assert chart["data"][1]["hovertext"][0] == f"<b>0·{first_key}</b><br>{pairs[0][0]}"
    space = view.space(loaders.qk_corpus(MODEL, "decoder.cross_attn", 1), 2)
    np.testing.assert_array_equal(decode(chart["data"][1]["x"]), space.keys[:, 0])
    assert any("target sentences" in c.value for c in at.caption)


def test_it_is_said_in_chinese():
    at = open_page("explorer", lang="zh", **{"explorer.qk": True})
    assert_clean(at)
    layout = named_chart(at, CHART)["layout"]
    assert layout["title"]["text"].startswith("第 0 层") and layout["xaxis"]["title"]["text"] == "第一主成分轴"
    assert [e["name"] for e in named_chart(at, CHART)["data"]] == ["查询", "键"]
