"""Sampling's defaults on the Decoding page: a link that says nothing of top-k / top-p gets them on (the shipped
models keep ≈ ε = 0.1 of their probability spread over the vocabulary, so plain sampling at T = 1 often picked a
token with p < 0.001); 50 seeds on each of five sentences with those defaults pick no token with p < 0.01, those
through the page pick none below 0.001, and a link can still turn both filters off."""
from __future__ import annotations

import numpy as np
from streamlit.testing.v1 import AppTest

from tests.app.conftest import APP, assert_clean, decode, named_chart
from viz_app import loaders
from viz_app.examples import HESITANT
from viz_app.i18n import text
from viz_app.views.decoding import RARE
from viz_app.views import decoding as view

SRC = "the small girl does not see the red car"  # the sidebar's first sentence for translate-en-fr
SEEDS = 30


def open_link(**params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"model": "translate-en-fr", "src": SRC, "decoding.method": "sample", **params})
    at.switch_page("app_pages/decoding.py")
    return at.run()


def chosen_probabilities(at: AppTest) -> np.ndarray:
    """The steps table's model probability of each chosen token: view.steps_table over the run's step logits."""
    table = at.dataframe[0].value
    assert list(table.columns)[2] == text("decoding.table.p", "en")
    return table.iloc[:, 2].to_numpy(dtype=np.float64)


def test_a_link_without_top_k_or_top_p_gets_both_on_and_says_why():
    at = open_link()
    assert_clean(at)
    assert at.slider(key="decoding.temperature").value == 1.0
    assert at.number_input(key="decoding.top_k").value == 10
    assert at.slider(key="decoding.top_p").value == 0.8
    assert (at.query_params["decoding.top_k"], at.query_params["decoding.top_p"]) == ("10", "0.8")  # a copied link keeps them
    captions = [c.value for c in at.caption]
    assert text("decoding.sample.why", "en") in captions
    step = loaders.decode("translate-en-fr", SRC, "sample", temperature=1.0, top_k=10, top_p=0.8, seed=0).steps[0]
    rare = view.rare(step, RARE)
    assert 0.05 < rare.mass < 0.6 and rare.count > 1000  # label smoothing's share, on most of the 1,700 tokens
    assert text("decoding.sample.rare", "en", k=0, n=rare.count, mass=rare.mass) in captions


def test_on_the_default_sentence_thirty_seeds_give_three_outputs_and_draw_no_token_below_one_percent():
    """The default sentence has two nouns with two right French words each (girl: fille or fillette, car: voiture
    or auto; en_fr.OTHER_FRENCH), which the translator read in training two times in five: it hesitates at both,
    and the page's defaults (T 1, top-k 10, top-p 0.8) keep both words and nothing unlikely."""
    at = open_link()
    assert text("decoding.sample.one_choice", "en") not in [i.value for i in at.info]
    outputs, lowest = {}, 1.0  # 30 seeds through the page's own sampling path (loaders.decode, its defaults)
    for seed in range(SEEDS):
        decoded = loaders.decode("translate-en-fr", SRC, "sample", temperature=1.0, top_k=10, top_p=0.8, seed=seed)
        outputs.setdefault(decoded.ids, seed)
        lowest = min(lowest, min(view.chosen_p(step) for step in decoded.steps))
    assert len(outputs) >= 3 and lowest >= 0.01, (len(outputs), lowest)
    assert loaders.decode("translate-en-fr", SRC, "greedy").ids in outputs  # the reference, la petite fille … voiture
    shown = set()
    for seed in list(outputs.values())[:3]:  # the page itself shows three of them, each with its seed
        at.number_input(key="decoding.seed").set_value(seed).run()
        assert_clean(at)
        assert chosen_probabilities(at).min() >= 0.01 and "\ufffd" not in at.text[-1].value
        shown.add(at.text[-1].value)
    assert len(shown) == 3


def test_where_the_model_is_sure_the_page_says_so_and_offers_the_default_sentence():
    """A sentence whose nouns have one French word each: the translator is sure of every token, so no seed can
    change the output with the defaults; the page says so and offers the sentence where it hesitates."""
    sure = "i see him"
    at = open_link(src=sure)
    note = text("decoding.sample.one_choice", "en")
    assert note in [i.value for i in at.info]
    greedy = loaders.decode("translate-en-fr", sure, "greedy").ids
    assert {loaders.decode("translate-en-fr", sure, "sample", temperature=1.0, top_k=10, top_p=0.8, seed=seed).ids
            for seed in range(5)} == {greedy}  # the note's claim
    at.button(key="decoding.hesitant").click().run()
    assert HESITANT["translate-en-fr"] == SRC  # the default sentence is the one offered
    assert at.session_state["src"] == SRC and note not in [i.value for i in at.info]


def nucleus(logits, temperature: float, top_k: int, top_p: float) -> np.ndarray:
    """Sampling's distribution written out in numpy: softmax(z / T), the k most likely, then the smallest most
    likely set reaching top_p, renormalised."""
    p = np.exp((logits - logits.max()) / temperature)
    p /= p.sum()
    order = np.argsort(-p)
    keep = order[:top_k] if top_k else order
    mass = np.cumsum(p[keep]) / p[keep].sum()
    keep = keep[:int(np.searchsorted(mass, top_p)) + 1]
    out = np.zeros_like(p)
    out[keep] = p[keep]
    return out / out.sum()


def test_moving_the_temperature_redraws_the_steps_distribution_under_it():
    at = open_link()
    at.slider(key="decoding.temperature").set_value(2.0).run()
    at.number_input(key="decoding.top_k").set_value(5).run()
    assert_clean(at)
    logits = loaders.decode("translate-en-fr", SRC, "sample", temperature=2.0, top_k=5, top_p=0.8, seed=0).steps[0].logits
    expected = nucleus(logits.astype(np.float64), 2.0, 5, 0.8)
    bars = decode(named_chart(at, "decoding.top")["data"][1]["x"])
    np.testing.assert_allclose(bars, np.sort(expected[expected > 0])[::-1], rtol=1e-5)
    assert (at.query_params["decoding.temperature"], at.query_params["decoding.top_k"]) == ("2.0", "5")


# Sentences of words the translator read (one where a word is new to it, marked so on the page, leaves its next
# token nearly flat: no filter keeps every drawn p above 0.01 there).
SENTENCES = (SRC, "i see him", "the old man sees a book in the big house",
             "my friends ate the green apples near the bridge", "she gives the keys of the red bike to the children")


def test_fifty_seeds_with_the_defaults_pick_no_token_below_one_percent():
    """The app's own sampling path (loaders.decode, as the page calls it) with the defaults the page shows."""
    known = loaders.known_words("translate-en-fr")
    assert all(set(sentence.split()) <= known for sentence in SENTENCES)
    lowest, outputs = 1.0, {}
    for sentence in SENTENCES:
        for seed in range(50):
            decoded = loaders.decode("translate-en-fr", sentence, "sample", temperature=1.0, top_k=10, top_p=0.8,
                                     seed=seed)
            lowest = min(lowest, min(view.chosen_p(step) for step in decoded.steps))
            outputs.setdefault(sentence, set()).add(decoded.ids)
    assert lowest >= 0.01, f"a token with p = {lowest:.4f} was sampled"
    assert max(len(seen) for seen in outputs.values()) > 3  # sampling still varies where the model is unsure


def test_a_link_with_top_p_1_and_top_k_0_turns_both_off():
    at = open_link(**{"decoding.top_p": "1", "decoding.top_k": "0"})
    assert_clean(at)
    assert at.number_input(key="decoding.top_k").value == 0 and at.slider(key="decoding.top_p").value == 1.0
    assert not at.warning  # a valid link: nothing to report
    model_bars, sampled_bars = named_chart(at, "decoding.top")["data"]
    assert np.allclose(decode(sampled_bars["x"]), decode(model_bars["x"]), atol=1e-6)  # T = 1, no filter: the model's own


def test_the_note_is_said_in_chinese_too():
    at = open_link(lang="zh")
    assert_clean(at)
    captions = [c.value for c in at.caption]
    assert text("decoding.sample.why", "zh") in captions
    assert any(c.startswith("第 0 步：概率低于 0.001 的") for c in captions)
    assert not any(text("decoding.sample.why", "en") in c for c in captions)
