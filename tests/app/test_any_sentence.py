"""Any sentence welcome on the shipped models: typed text is written as their training text is and the page says
so, words they never read are marked with the known words spelt most like them one click away, and ordinary
sentences, once written so (and a typo replaced), get the translation the training data gives them."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core_model.training.data.en_fr import Clause, NounPhrase, PrepPhrase, translate, translations
from tests.app.conftest import APP, assert_clean
from viz_app import loaders
from viz_app.i18n import text
from viz_app.text import clean, nearest, normalised, replaced


def opened(sentence: str, model: str = "translate-en-fr", lang: str = "en") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"model": model, "src": sentence, "lang": lang})
    return at.run()


def fixes(at: AppTest) -> dict:
    """The sidebar's replacement offers: label → options."""
    return {group.label: list(group.options) for group in at.sidebar.get("button_group")}


def test_the_cat_sat_on_the_mat_is_written_as_the_model_reads_it_and_its_unseen_words_get_offers():
    at = opened("The cat sat on the mat.")
    assert_clean(at)
    warnings = [w.value for w in at.warning]
    assert text("input.lowered", "en") in warnings
    assert text("input.punctuation", "en", marks="`.`") in warnings
    assert text("input.unseen", "en", words="`“sat”, “mat”`") in warnings
    assert "the cat :red-background[sat] on the :red-background[mat]" in [m.value for m in at.sidebar.markdown]
    offers = fixes(at)
    sat, mat = text("words.fix", "en", word="sat"), text("words.fix", "en", word="mat")
    assert set(offers) == {sat, mat} and "saw" in offers[sat]
    next(g for g in at.sidebar.get("button_group") if g.label == sat).set_value("saw").run()
    assert at.session_state["src"] == "the cat saw on the mat"
    assert set(fixes(at)) == {mat}  # "sat" is gone; "mat" still waits
    assert text("input.lowered", "en") not in [w.value for w in at.warning]  # the sentence is now written so


def test_a_long_text_is_not_repeated_in_the_sidebar_and_a_long_word_is_named_by_its_start():
    word = "z" * 5000
    at = opened("the old man " * 40 + word)  # 485 characters of known words, then one 5,000 letters long
    assert_clean(at)
    assert not [m for m in at.sidebar.markdown if ":red-background[" in m.value]  # past MAX_MARKED: not repeated
    assert list(fixes(at)) == [] and text("words.no_fix", "en", word="z" * 40 + "…") in [c.value for c in at.sidebar.caption]


def test_the_words_it_knows_are_listed_and_searched():
    at = opened("the old man")
    assert not fixes(at)  # nothing unknown, nothing offered
    at.sidebar.text_input(key="words.search").set_value("grand").run()
    listed = [m.value for m in at.sidebar.markdown if "grand" in m.value]
    assert listed == ["grandfather · grandfathers · grandmother · grandmothers"]


def test_the_notices_speak_chinese():
    at = opened("The cat sat.", lang="zh")
    warnings = [w.value for w in at.warning]
    assert text("input.lowered", "zh") in warnings and text("input.unseen", "zh", words="`“sat”`") in warnings


# Five ordinary sentences, as a visitor types them, and the sentence of the training grammar each is: once written
# as the training text is, and a typo replaced by the known word offered for it, the translator gives exactly the
# translation the grammar gives that sentence (or one of them: en_fr.OTHER_FRENCH).
SENTENCES = [
    ("The old man sees the red car.", {}, Clause(NounPhrase("man", adjectives=("old",)), "see",
                                                 NounPhrase("car", adjectives=("red",)))),
    ("She doesn't see the cat.", {}, Clause("she", "see", NounPhrase("cat"), negated=True)),
    ("My sister feeds the hourse!", {"hourse": "horse"}, Clause(NounPhrase("sister", det="my"), "feed",
                                                                 NounPhrase("horse"))),
    ("The children ate some apples yesterday.", {}, Clause(NounPhrase("child", plural=True), "eat",
                                                           NounPhrase("apple", det="some", plural=True), past=True,
                                                           adverb="yesterday")),
    ("I watch the Birds in the park.", {}, Clause("i", "watch", NounPhrase("bird", plural=True),
                                                  pp=PrepPhrase("in", NounPhrase("park")))),
]


@pytest.mark.parametrize("typed, typos, meant", SENTENCES, ids=[s[0] for s in SENTENCES])
def test_an_ordinary_sentence_gets_the_translation_of_its_training_grammar(typed, typos, meant):
    known = loaders.known_words("translate-en-fr")
    sentence = typed
    for typo, word in typos.items():
        assert word in nearest(typo, known)  # offered in one click
        sentence = replaced(sentence, typo, word)
    assert normalised(clean(sentence)[0])[0] == translate(meant).src  # the grammar's very sentence
    result = loaders.run("translate-en-fr", sentence, "", True, True)
    assert not [k for k, _ in result.notices if k == "input.unseen"]
    assert result.output in translations(meant)  # "car": voiture or auto, both in its training pairs
