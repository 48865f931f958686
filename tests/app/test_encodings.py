"""The positional page's four encodings side by side: off by default (no other model loaded), on through the toggle
or a link, each chart named and drawn from the shipped models' own numbers, hidden until the lab's guess under
predict-then-reveal, and in Chinese. Every expected value comes from core_model, never from the page's code."""
import functools
import html
import math
import re

import numpy as np
import torch
from streamlit.testing.v1 import AppTest

from core_model import load
from core_model.importers import bert
from core_model.nn.positional import alibi_bias, alibi_slopes, rope_angles, sinusoidal_table
from core_model.trace import run_with_trace
from viz_app import loaders
from viz_app.sidebar import EXAMPLES
from viz_app.text import token_labels

from .conftest import APP, assert_clean, chart_names, decode, named_chart, named_z, open_page
from .test_language import ENGLISH_PHRASE, model_words, ui_texts

SENTENCE = EXAMPLES[loaders.DEFAULT_MODEL]  # the sidebar's sentence for the default model
MODELS = {"sinusoidal": "translate-en-fr", "learned": bert.MINILM, "rope": "lm-en-rope", "alibi": "lm-en"}
CHARTS = [f"encodings.{kind}.{part}" for part in ("signal", "alone", "real") for kind in MODELS]
ON = {"positional.encodings": True}


@functools.lru_cache(maxsize=None)
def shipped(name):
    return load(loaders.model_folder(name))


def traced(name, text=SENTENCE):
    """(token labels, layer 0's self-attention weights [h, n, n]) of the model on the text, from the core."""
    model = shipped(name)
    cfg = model.config
    side = "src" if cfg.has_encoder else "tgt"
    ids = model.tokenizers[side].encode(text)
    if cfg.architecture == "decoder":
        src, tgt = None, [cfg.bos_id, *ids]
    elif cfg.architecture == "encoder":
        src, tgt = [cfg.bos_id, *ids, cfg.eos_id], None  # BERT's [CLS] … [SEP]
    else:
        src, tgt = ids, [cfg.bos_id]
    _, trace = run_with_trace(model.model, src, tgt)
    return token_labels(model.tokenizers[side], src or tgt), trace.attn("encoder" if src else "decoder", 0).pattern[0]


def test_off_by_default_and_then_no_other_model_is_loaded(monkeypatch):
    asked = []
    load_model = loaders.load_model

    def recording(name):
        asked.append(name)
        return load_model(name)

    monkeypatch.setattr(loaders.models, "load_model", recording)
    at = open_page("positional")
    assert_clean(at)
    assert at.toggle(key="positional.encodings").value is False
    assert not [c for c in chart_names(at) if c.startswith("encodings.")]
    assert set(asked) == {loaders.DEFAULT_MODEL}
    assert at.query_params["positional.encodings"] == "0"


def test_the_toggle_draws_every_chart_from_each_models_own_numbers():
    at = open_page("positional")
    at.toggle(key="positional.encodings").set_value(True).run()
    assert_clean(at)
    assert [c for c in chart_names(at) if c.startswith("encodings.")] == CHARTS
    assert at.query_params["positional.encodings"] == "1"
    labels = {kind: traced(name)[0] for kind, name in MODELS.items()}
    for kind in MODELS:  # each model's own tokens on its signal's rows
        ticks = named_chart(at, f"encodings.{kind}.signal")["data"][0]["y"]
        assert [html.unescape(y) for y in ticks] == list(labels[kind])  # the figure escapes <s> for plotly
    assert labels["learned"][0] == "0·[CLS]" and labels["sinusoidal"][0] != labels["learned"][0]
    n = {kind: len(found) for kind, found in labels.items()}
    np.testing.assert_allclose(named_z(at, "encodings.sinusoidal.signal"),
                               sinusoidal_table(n["sinusoidal"], 128).numpy(), atol=1e-6)
    minilm = shipped(bert.MINILM).model
    rows = minilm.src_embed.pos.weight[:n["learned"]].detach().numpy()
    np.testing.assert_array_equal(named_z(at, "encodings.learned.signal"), rows)  # every value sent, none clipped
    cmax = named_chart(at, "encodings.learned.signal")["layout"]["coloraxis"]["cmax"]
    assert np.mean(np.abs(rows) <= cmax) >= 0.989 and cmax < np.abs(rows).max() / 5  # 99th percentile, not the peak
    assert f"the largest, {np.abs(rows).max():.3g}" in " ".join(c.value for c in at.caption)
    angles = rope_angles(torch.arange(n["rope"]), 32, 10000.0)  # lm-en-rope: d_head 32, base 10000
    np.testing.assert_allclose(named_z(at, "encodings.rope.signal"), np.mod(angles.numpy(), 2 * math.pi), atol=1e-5)
    positions = torch.arange(n["alibi"])
    want = alibi_bias(4, positions, positions)[0, 0]  # lm-en: 4 heads
    np.testing.assert_allclose(named_z(at, "encodings.alibi.signal"), want, atol=1e-6)
    for kind, name in MODELS.items():  # head 0's real weights, from the core's own trace
        np.testing.assert_array_equal(named_z(at, f"encodings.{kind}.real"), traced(name)[1][0])
    alone = named_z(at, "encodings.alibi.alone")  # position alone is the bias alone, under lm-en's causal mask
    causal = torch.ones(n["alibi"], n["alibi"], dtype=torch.bool).tril()
    expected = torch.softmax(want.masked_fill(~causal, -math.inf), -1).numpy()
    np.testing.assert_allclose(alone, expected, atol=1e-6)  # weights lie in 0..1: a fixed bound (tests/tolerance.py)
    assert np.all(np.triu(alone, 1) == 0)


def test_a_link_opens_it_with_chosen_heads_and_names_a_head_a_model_lacks():
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"positional.encodings": "1", "positional.encodings.head.alibi": "3",
                            "positional.encodings.head.learned": "11", "positional.encodings.head.rope": "9"})
    at.switch_page("app_pages/positional.py")
    at.run()
    assert_clean(at)
    slope = alibi_slopes(4)[3].item()
    spec = named_chart(at, "encodings.alibi.signal")
    assert spec["layout"]["title"]["text"] == f"Bias of head 3: −{slope:.4g} × distance"
    distance = np.abs(np.subtract.outer(np.arange(len(spec["data"][0]["y"])), np.arange(len(spec["data"][0]["y"]))))
    np.testing.assert_allclose(decode(spec["data"][0]["z"]), -slope * distance, atol=1e-6)
    np.testing.assert_array_equal(named_z(at, "encodings.learned.real"), traced(bert.MINILM)[1][11])
    assert any("positional.encodings.head.rope = 9" in w.value for w in at.warning)
    np.testing.assert_array_equal(named_z(at, "encodings.rope.real"), traced("lm-en-rope")[1][0])


def test_under_predict_then_reveal_the_encodings_wait_for_the_labs_guess():
    at = open_page("positional", predict=True, **ON)
    assert_clean(at)
    assert not [c for c in chart_names(at) if c.startswith("encodings.")]
    assert any("wait until the lab's question" in i.value for i in at.info)
    pick = next(p for p in at.pills if p.key.startswith("predict.pick."))
    pick.set_value(pick.options.index("6")).run()
    assert_clean(at)
    assert [c for c in chart_names(at) if c.startswith("encodings.")] == CHARTS


def test_in_chinese_no_english_is_left():
    at = open_page("positional", lang="zh", **ON)
    assert_clean(at)
    assert "encodings.alibi.alone" in chart_names(at)
    texts = ui_texts(at)
    assert "四种位置编码，同一个句子" in [h.value for h in at.header]
    allowed = model_words(at) | {"MiniLM"}
    leftovers = [phrase for text in texts
                 for phrase in ENGLISH_PHRASE.findall(re.sub(r"\$[^$]*\$|\\\w+|`[^`]*`", " ", text))
                 if not set(re.findall(r"[A-Za-z]+", phrase)) <= allowed]
    assert not leftovers, leftovers
