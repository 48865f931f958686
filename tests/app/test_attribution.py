"""The attribution page: the four methods over the input tokens, for a chosen output, are the model's numbers."""
import functools

import numpy as np
import pytest
import torch

from core_model import decoding, load
from core_model.trace import run_with_trace
from viz_app.loaders import ATTRIBUTED_TOKENS, DEFAULT_MODEL, model_folder
from viz_app.sidebar import EXAMPLES
from viz_app.text import piece, token_labels

from .conftest import assert_clean, chart_names, named_chart, named_z, open_page

METHODS = ["Attention rollout", "Attention flow", "Gradient × input", "Integrated gradients"]


@functools.lru_cache(maxsize=None)
def shipped(name: str):
    return load(model_folder(name))


def mixed(pattern):
    """½ · (the layer's weights averaged over heads) + ½ · I, rows renormalised: Abnar & Zuidema's residual."""
    m = 0.5 * pattern.astype(np.float64).mean(0) + 0.5 * np.eye(pattern.shape[-1])
    return m / m.sum(-1, keepdims=True)


def column(at, name: str) -> np.ndarray:
    table = at.dataframe[0].value
    return table[name].to_numpy(dtype=np.float64)


@pytest.fixture(scope="module")
def translator_page():
    return open_page("attribution", timeout=120, **{"attribution.output": 2})


def test_the_translators_attributions_are_its_own_numbers(translator_page):
    at = translator_page
    assert_clean(at)
    loaded = shipped(DEFAULT_MODEL)
    cfg, model = loaded.config, loaded.model
    src = loaded.tokenizers["src"].encode(EXAMPLES[DEFAULT_MODEL])
    tgt = [cfg.bos_id, *decoding.greedy(model, src).ids]
    _, trace = run_with_trace(model, src, tgt)
    # rollout: output 2's cross-attention row, averaged over the decoder's layers and heads, down the encoder
    row = np.mean([trace.attn("decoder", i, "cross_attn").pattern[0, :, 2] for i in range(cfg.n_decoder_layers)],
                  axis=(0, 1))
    for i in reversed(range(cfg.n_encoder_layers)):
        row = row @ mixed(trace.attn("encoder", i, "self_attn").pattern[0])
    np.testing.assert_allclose(column(at, "Attention rollout"), row, rtol=1e-5, atol=1e-7)
    # integrated gradients add up to the change of output 2's log-probability of its token from the baseline
    baseline = [cfg.pad_id] * len(src)

    def log_prob(ids):
        with torch.no_grad():
            logits = model(torch.tensor([ids]), torch.tensor([tgt]), pad_mask=False)
        return float(torch.log_softmax(logits[0, 2], -1)[tgt[3]])
    change = log_prob(src) - log_prob(baseline)
    assert abs(column(at, "Integrated gradients").sum() - change) <= 0.01 * abs(change)
    # the chart: one row per method, each row the table's column over its largest magnitude
    spec = named_chart(at, "attribution.methods")
    assert list(spec["data"][0]["y"]) == METHODS
    assert list(spec["data"][0]["x"]) == list(token_labels(loaded.tokenizers["src"], src))
    z = named_z(at, "attribution.methods")
    for k, name in enumerate(METHODS):
        values = column(at, name)
        np.testing.assert_allclose(z[k], values / np.abs(values).max(), rtol=1e-6, atol=1e-7)
    assert f"«{piece(loaded.tokenizers['tgt'], tgt[3])}»" in spec["layout"]["title"]["text"]
    assert at.query_params["attribution.output"] == "2"  # in the link


def test_choosing_another_output_explains_that_token(translator_page):
    at = translator_page
    before = column(at, "Integrated gradients")
    at.selectbox(key="attribution.output").set_value(0).run()
    assert_clean(at)
    loaded = shipped(DEFAULT_MODEL)
    src = loaded.tokenizers["src"].encode(EXAMPLES[DEFAULT_MODEL])
    first = decoding.greedy(loaded.model, src).ids[0]
    assert f"«{piece(loaded.tokenizers['tgt'], first)}»" in named_chart(at, "attribution.methods")["layout"]["title"]["text"]
    assert not np.allclose(column(at, "Integrated gradients"), before)
    assert at.query_params["attribution.output"] == "0"


def test_lm_en_explains_its_next_token_over_the_tokens_it_read():
    at = open_page("attribution", timeout=120, model="lm-en")
    assert_clean(at)
    loaded = shipped("lm-en")
    tgt = [loaded.config.bos_id, *loaded.tokenizers["tgt"].encode(EXAMPLES["lm-en"])]
    with torch.no_grad():
        pick = int(loaded.model(None, torch.tensor([tgt]))[0, -1].argmax())
    assert at.selectbox(key="attribution.output").value == len(tgt) - 1  # the next token, by default
    spec = named_chart(at, "attribution.methods")
    assert f"«{piece(loaded.tokenizers['tgt'], pick)}»" in spec["layout"]["title"]["text"]
    assert len(spec["data"][0]["x"]) == len(tgt)
    assert column(at, "Attention rollout").sum() == pytest.approx(1.0)  # one position's share, spread over its inputs
    flow = column(at, "Attention flow")
    assert ((0 <= flow) & (flow <= 1 + 1e-9)).all()  # no input sends more than the output's one unit


def test_minilm_explains_its_cls_vector_and_refuses_a_text_too_long_for_it():
    at = open_page("attribution", timeout=120, model="all-MiniLM-L6-v2")
    assert_clean(at)
    assert not at.selectbox.values or "attribution.output" not in [s.key for s in at.selectbox]
    assert any("[CLS] vector" in c.value for c in at.caption)
    assert "[CLS]" in named_chart(at, "attribution.methods")["layout"]["title"]["text"]
    long = open_page("attribution", timeout=120, model="all-MiniLM-L6-v2", src="word " * (ATTRIBUTED_TOKENS + 10))
    assert_clean(long)
    assert any(f"at most {ATTRIBUTED_TOKENS} tokens" in i.value for i in long.info)
    assert "attribution.methods" not in chart_names(long)


@pytest.mark.parametrize("name, text", [("lm-en", "the old man sees a small dog"), (DEFAULT_MODEL, "the cat sees a dog")])
def test_every_output_explains_the_token_its_label_names(name, text):
    """The picker's "i: read → next" and the chart's title name one token: the one whose attribution is drawn."""
    from viz_app import loaders
    from viz_app.views import attribution as view

    run = loaders.run(name, text)  # lm-en reads the text as its prompt
    choices = view.outputs(loaders.read_and_next(run), ATTRIBUTED_TOKENS)
    assert len(choices) >= 5
    for position, label in enumerate(choices):
        found = loaders.attribution(name, text, position=position)
        assert found.explained == label.split(" → ")[1], (position, label)
