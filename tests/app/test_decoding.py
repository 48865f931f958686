"""The Decoding page, checked against the model: core_model.decoding run directly, and one traced
forward pass over the decoder input that decoding produced (so the page is tied to the real model,
not only to its own cached record)."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from core_model import ModelConfig, Transformer, checkpoints, decoding, run_with_trace
from tests.app.conftest import APP, assert_clean, decode, named_chart, named_z, open_page
from viz_app import loaders
from viz_app.text import token_chips, token_labels
from viz_app.i18n import decoding as strings

MODEL = "translate-en-fr"
SRC = "the small girl does not see the red car"


def model_and_source():
    loaded = loaders.load_model(MODEL)
    return loaded, list(loaders.run(MODEL, SRC).src_ids)


def reference(method="greedy", **kw):
    """The decoding the page should show, run with core_model directly."""
    loaded, src = model_and_source()
    fn = {"greedy": decoding.greedy, "beam": decoding.beam_search, "sample": decoding.sample}[method]
    return fn(loaded.model, src, max_len=loaded.config.max_len - 2, n_top=loaders.DECODE_TOP, **kw)


def forward_trace(decoded):
    """One traced pass over <s> + output: query position k is decoding step k."""
    loaded, src = model_and_source()
    _, trace = run_with_trace(loaded.model, src, [loaded.config.bos_id, *decoded.ids], pad_mask=False)
    return trace


def labels_of(decoded):
    final = decoded.steps[-1]
    return token_labels(loaders.load_model(MODEL).tokenizers["tgt"], final.prefix + (final.chosen,))


def open_decoding(**state):
    return open_page("decoding", src=SRC, **state)


def check_step(at, decoded, k, layer):
    """The chosen token, the top-k bars, and the cross / self rows of step k at `layer`."""
    step = decoded.steps[k]
    labels = labels_of(decoded)
    assert at.metric[0].value == labels[len(step.prefix)]
    chips = token_chips(labels[:len(step.prefix)], labels[len(step.prefix)])
    assert chips in [m.value for m in at.markdown]
    probs, ids = torch.topk(torch.softmax(torch.from_numpy(step.logits).double(), -1), loaders.DECODE_TOP)
    bars = named_chart(at, "decoding.top")["data"][-1]
    assert np.allclose(decode(bars["x"]), probs.numpy(), atol=1e-6)
    trace = forward_trace(decoded)
    cross = trace.attn("decoder", layer, "cross_attn").pattern[0, :, k, :]  # [h, src]
    assert np.allclose(named_z(at, "decoding.cross"), step.cross_attn[layer], atol=1e-6)
    assert np.allclose(named_z(at, "decoding.cross"), cross, atol=1e-5)
    assert np.allclose(decode(named_chart(at, "decoding.cross_mean")["data"][0]["y"]), cross.mean(0), atol=1e-5)
    self_rows = trace.attn("decoder", layer, "self_attn").pattern[0, :, k, :k + 1]  # [h, prefix]
    assert np.allclose(named_z(at, "decoding.self"), self_rows, atol=1e-5)


def test_first_step_shows_the_models_prediction_and_attention_rows():
    at = open_decoding(layer=1)
    assert_clean(at)
    decoded = reference()
    tokenizer = loaders.load_model(MODEL).tokenizers["tgt"]
    assert tokenizer.decode(list(decoded.ids)) in [t.value for t in at.text]
    check_step(at, decoded, 0, layer=1)
    table = at.dataframe[0].value
    softmax = [torch.softmax(torch.from_numpy(s.logits).double(), -1)[s.chosen].item() for s in decoded.steps]
    assert np.allclose(table.iloc[:, 2], softmax) and list(table.iloc[:, 1]) == [
        labels_of(decoded)[len(s.prefix)] for s in decoded.steps]


def test_next_and_previous_move_the_chosen_token_and_the_cross_attention_row():
    decoded = reference()
    assert len(decoded.steps) >= 2, "the example sentence should give at least two steps"
    at = open_decoding(layer=2)
    at.button(key="decoding.step.next").click().run()
    assert_clean(at)
    assert at.slider(key="decoding.step").value == 1 and at.query_params["decoding.step"] == "1"
    check_step(at, decoded, 1, layer=2)
    at.button(key="decoding.step.back").click().run()
    check_step(at, decoded, 0, layer=2)
    assert at.button(key="decoding.step.back").disabled


def test_stepping_redraws_from_the_cached_decoding_without_running_the_model(monkeypatch):
    at = open_decoding(layer=0)
    decoded = reference()

    def refuse(*args, **kwargs):
        raise AssertionError("the model was run again")

    for name in ("greedy", "beam_search", "sample"):
        monkeypatch.setattr(decoding, name, refuse)
    at.button(key="decoding.step.next").click().run()
    assert_clean(at)
    assert at.metric[0].value == labels_of(decoded)[len(decoded.steps[1].prefix)]


def test_the_slider_reaches_the_last_step_and_the_all_steps_matrix_is_the_alignment():
    decoded = reference()
    last = len(decoded.steps) - 1
    at = open_decoding(layer=0)
    at.slider(key="decoding.step").set_value(last).run()
    assert_clean(at)
    check_step(at, decoded, last, layer=0)
    assert at.button(key="decoding.step.next").disabled
    cross = forward_trace(decoded).attn("decoder", 0, "cross_attn").pattern[0].mean(0)  # [steps, src]
    assert np.allclose(named_z(at, "decoding.all"), cross, atol=1e-5)
    (outline,) = named_chart(at, "decoding.all")["layout"]["shapes"]
    assert (outline["y0"], outline["y1"]) == (last - 0.5, last + 0.5)


def test_beam_width_one_is_greedy():
    at = open_decoding(**{"decoding.method": "beam", "decoding.width": 1})
    assert_clean(at)
    greedy = reference()
    tokenizer = loaders.load_model(MODEL).tokenizers["tgt"]
    assert tokenizer.decode(list(greedy.ids)) == at.text[-1].value
    beam_table = at.dataframe[0].value
    assert list(beam_table.iloc[:, 1]) == [labels_of(greedy)[len(s.prefix)] for s in greedy.steps]


def test_the_beam_tree_has_one_node_per_beam_linked_to_its_parent():
    at = open_decoding(**{"decoding.method": "beam", "decoding.width": 3, "decoding.alpha": 0.6})
    assert_clean(at)
    result = reference("beam", width=3, length_penalty=0.6)
    data = named_chart(at, "decoding.tree")["data"]
    nodes = data[-1]
    expected = [(s.index, r) for s in result.beams for r in range(len(s.beams))]
    assert list(zip(nodes["x"], nodes["y"])) == expected
    symbols = ["diamond" if b.finished else "circle" for s in result.beams for b in s.beams]
    assert nodes["marker"]["symbol"] == symbols
    segments = set()
    for edges in data[:2]:
        xs, ys = edges["x"], edges["y"]
        segments |= {((xs[i], ys[i]), (xs[i + 1], ys[i + 1])) for i in range(0, len(xs), 3)}
    parents = {((s.index - 1, max(b.parent, 0)), (s.index, r)) for s in result.beams for r, b in enumerate(s.beams)}
    assert segments == parents
    hyps = at.dataframe[1].value
    assert np.allclose(hyps.iloc[:, 1], [h.score for h in result.hypotheses])
    assert np.allclose(hyps.iloc[:, 2], [h.normalized for h in result.hypotheses])


def test_sampling_is_repeatable_with_a_seed_and_shows_the_filtered_distribution():
    params = dict(temperature=2.0, top_k=50, top_p=0.9)
    tokenizer = loaders.load_model(MODEL).tokenizers["tgt"]
    first = reference("sample", seed=0, **params)
    other = next(s for s in range(1, 50) if reference("sample", seed=s, **params).ids != first.ids)
    state = {f"decoding.{k}": v for k, v in params.items()}
    at = open_decoding(**{"decoding.method": "sample", "decoding.seed": 0}, **state)
    assert_clean(at)
    assert at.text[-1].value == tokenizer.decode(list(first.ids))
    at.run()
    assert at.text[-1].value == tokenizer.decode(list(first.ids))
    logits = torch.from_numpy(first.steps[0].logits)
    shown = decoding.sampling_distribution(logits, **params)
    probs, ids = torch.topk(shown, loaders.DECODE_TOP)
    model_bars, sampled_bars = named_chart(at, "decoding.top")["data"]
    assert np.allclose(decode(sampled_bars["x"]), probs.numpy(), atol=1e-6)
    assert np.allclose(decode(model_bars["x"]), torch.softmax(logits.double(), -1)[ids].numpy(), atol=1e-6)
    at.number_input(key="decoding.seed").set_value(other).run()
    assert at.text[-1].value == tokenizer.decode(list(reference("sample", seed=other, **params).ids))


def test_a_bad_link_is_reported_and_the_defaults_used():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in {"decoding.method": "sample", "decoding.temperature": "-1", "decoding.step": "x"}.items():
        at.query_params[key] = value
    at.switch_page("app_pages/decoding.py")
    at.run()
    assert_clean(at)
    warnings = " ".join(w.value for w in at.warning)
    assert "decoding.temperature" in warnings and "decoding.step" in warnings
    assert at.slider(key="decoding.temperature").value == 1.0 and at.query_params["decoding.temperature"] == "1.0"


def test_chinese_page_has_no_english_ui_strings():
    at = open_decoding(lang="zh", **{"decoding.method": "beam"})
    assert_clean(at)
    shown = []
    for node in (n for root in (at.main, at.sidebar) for n in walk(root)):
        for attr in ("value", "label", "help", "options"):
            value = getattr(node, attr, None)
            shown += [value] if isinstance(value, str) else [str(v) for v in value or []] if attr == "options" else []
    shown += [json.dumps(json.loads(c.proto.spec), ensure_ascii=False) for c in at.get("plotly_chart")]
    english = [v["en"] for v in strings.STRINGS.values() if "{" not in v["en"] and len(v["en"]) > 4]
    assert [e for e in english if any(e in text for text in shown)] == []
    assert at.title[0].value == "解码" and any("束搜索" in text for text in shown)


def walk(node):
    yield node
    for child in (getattr(node, "children", None) or {}).values():
        yield from walk(child)


# ----- architectures without a shipped model: tiny random checkpoints in a temporary folder --------

@pytest.fixture(scope="module")
def other_models(tmp_path_factory):
    """An encoder-only and a decoder-only checkpoint, with the shipped model's tokenizers."""
    folder = tmp_path_factory.mktemp("models")
    tokenizers = loaders.load_model(MODEL).tokenizers
    torch.manual_seed(0)
    for name, arch in (("test-encoder-only", "encoder"), ("test-decoder-only", "decoder")):
        cfg = ModelConfig(architecture=arch, src_vocab_size=tokenizers["src"].vocab_size,
                          tgt_vocab_size=tokenizers["tgt"].vocab_size, d_model=32, n_heads=2,
                          n_encoder_layers=1 if arch == "encoder" else 0,
                          n_decoder_layers=2 if arch == "decoder" else 0, d_ff=64, max_len=64)
        checkpoints.save(folder / name, Transformer(cfg).eval(), tokenizers)
    return folder


def test_decoding_applies_only_to_models_with_a_decoder():
    assert loaders.decoding_applies("encoder-decoder") and loaders.decoding_applies("decoder")
    assert not loaders.decoding_applies("encoder")


def test_an_encoder_only_model_is_told_why_there_is_no_decoding(other_models, monkeypatch):
    monkeypatch.setattr(loaders.models, "MODELS_DIR", other_models)
    at = open_page("decoding", model="test-encoder-only", src="the red car")
    assert_clean(at)
    assert [i.value for i in at.info] == [strings.STRINGS["decoding.no_decoder"]["en"]]
    assert not at.get("plotly_chart") and not at.main.radio  # no method to choose


def test_a_decoder_only_model_has_no_cross_attention_and_attends_over_prompt_and_output(other_models, monkeypatch):
    monkeypatch.setattr(loaders.models, "MODELS_DIR", other_models)
    at = open_page("decoding", model="test-decoder-only", src="the red car", **{"decoding.step": 2})
    assert_clean(at)
    assert strings.STRINGS["decoding.no_cross"]["en"] in [i.value for i in at.info]
    loaded = loaders.load_model("test-decoder-only")
    prompt = list(loaders.run("test-decoder-only", "the red car").tgt_ids[1:])
    result = decoding.greedy(loaded.model, prompt, max_len=loaders.LM_NEW_TOKENS, n_top=loaders.DECODE_TOP)
    _, trace = run_with_trace(loaded.model, None, [loaded.config.bos_id, *prompt, *result.ids], pad_mask=False)
    query = len(prompt) + 2  # step 2 reads <s> + prompt + two generated tokens
    pattern = trace.attn("decoder", 0, "self_attn").pattern[0]  # [h, q, k]
    assert np.allclose(named_z(at, "decoding.self"), pattern[:, query, :query + 1], atol=1e-5)
    stacked = named_z(at, "decoding.all")  # [steps, keys]; the keys not yet written are empty cells
    assert np.isnan(stacked[0, len(prompt) + 1:]).all()
    rows = pattern.mean(0)[len(prompt):len(prompt) + len(result.steps), :stacked.shape[1]]  # [steps, keys]
    assert np.allclose(np.nan_to_num(stacked), np.tril(rows, k=len(prompt)), atol=1e-5)


@pytest.fixture
def with_generation(tmp_path, monkeypatch):
    """The shipped translator under a name of the test's own (the loaders cache by name), with a
    generation_config.json of the test's own; the returned function writes it and gives the name."""
    shipped = loaders.MODELS_DIR / MODEL

    def write(settings) -> str:
        name = f"translate-{tmp_path.name}"  # one test, one name: nothing cached by an earlier test is reused
        (tmp_path / name).mkdir()
        for f in shipped.iterdir():
            (tmp_path / name / f.name).symlink_to(f)
        (tmp_path / name / "generation_config.json").write_text(json.dumps(settings))
        return name

    (tmp_path / MODEL).symlink_to(shipped)  # the reference decoding loads the shipped model itself
    monkeypatch.setattr(loaders.models, "MODELS_DIR", tmp_path)
    return write


def test_a_generation_config_asking_for_sampling_opens_the_page_sampling(with_generation):
    at = open_decoding(model=with_generation({"do_sample": True, "temperature": 0.7, "top_k": 20}),
                       **{"decoding.seed": 3})
    assert_clean(at)
    assert at.radio(key="decoding.method").value == "sample"
    assert at.slider(key="decoding.temperature").value == 0.7 and at.number_input(key="decoding.top_k").value == 20
    top_p = at.slider(key="decoding.top_p").value
    want = reference("sample", temperature=0.7, top_k=20, top_p=top_p, seed=3)
    assert at.metric[0].value == labels_of(want)[len(want.steps[0].prefix)]


def test_sampling_picked_over_a_config_asking_for_beams_keeps_the_pages_seed(with_generation):
    at = open_decoding(model=with_generation({"num_beams": 4}), **{"decoding.method": "sample"})  # as Marian ships
    assert_clean(at)
    assert at.radio(key="decoding.method").value == "sample"
    assert at.number_input(key="decoding.seed").value == 0  # the page's own: no generation_config.json names a seed


@pytest.mark.parametrize("fields, said_too", [({"num_beams": True}, "must be a number"),
                                              ({"max_new_tokens": -5}, "max_new_tokens is -5, but it must be in [1, ∞)")])
def test_a_generation_config_the_loader_refuses_is_said_and_the_page_keeps_its_defaults(with_generation, fields,
                                                                                      said_too):
    at = open_decoding(model=with_generation(fields))
    assert_clean(at)
    said = " ".join(w.value for w in at.warning)
    assert "generation_config.json" in said and next(iter(fields)) in said and said_too in said
    assert at.radio(key="decoding.method").value == "greedy"
    assert at.metric[0].value  # the page goes on: the first step's token is shown


def test_sampling_shows_no_empty_bar_of_a_token_it_cannot_draw():
    """A small nucleus leaves a few tokens: the chart shows those, not zeros for <pad> or <s>."""
    params = dict(temperature=0.7, top_k=0, top_p=0.5)
    at = open_decoding(**{"decoding.method": "sample", "decoding.seed": 0},
                       **{f"decoding.{k}": v for k, v in params.items()})
    assert_clean(at)
    _, sampled = named_chart(at, "decoding.top")["data"]
    bars = decode(sampled["x"])
    logits = torch.from_numpy(reference("sample", seed=0, **params).steps[0].logits)
    drawable = int((decoding.sampling_distribution(logits, **params) > 0).sum())
    assert len(bars) == min(drawable, loaders.DECODE_TOP) and (bars > 0).all()
