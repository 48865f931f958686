"""The corpus generators: determinism, gold alignments, phenomena, held-out splits, reversal."""
from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core_model.training.data import (PHENOMENA, VOCABULARY, Clause, NounPhrase, Pair, PrepPhrase,
                             english_sentences, make_corpus, make_reverse_corpus, translate)
from core_model.training.data.en_fr import ADJECTIVES, HELD_OUT, NOUNS, OTHER_FRENCH, OTHER_SHARE, VERBS, translations

ROOT = Path(__file__).resolve().parents[2]
SMALL = dict(n_train=500, n_valid=50, n_test=50)


@pytest.fixture(scope="module")
def corpus() -> dict[str, list[Pair]]:
    # Smaller than the default 40000 to keep the tests quick; the same code path.
    return make_corpus(seed=0, n_train=8000, n_valid=300, n_test=300)


def all_pairs(corpus) -> list[Pair]:
    return [p for split in corpus.values() for p in split]


def rows(c) -> list:
    # The content of a corpus; frozensets are sorted, as they print in hash order.
    return [[p.src, p.tgt, p.alignment, sorted(p.phenomena), sorted(p.combos)]
            for k in ("train", "valid", "test") for p in c[k]]


# --- determinism -------------------------------------------------------------------------------

def test_same_seed_same_corpus_other_seed_other_corpus():
    assert make_corpus(seed=1, **SMALL) == make_corpus(seed=1, **SMALL)
    assert make_corpus(seed=2, **SMALL)["train"] != make_corpus(seed=1, **SMALL)["train"]
    assert english_sentences(3, 200) == english_sentences(3, 200) != english_sentences(4, 200)


def test_same_corpus_in_another_process_with_another_hash_seed():
    # A shipped model's card names its corpus seed: regenerating it must not depend on set order.
    code = ("import json; from core_model.training.data import make_corpus; "
            "c = make_corpus(seed=1, n_train=500, n_valid=50, n_test=50); "
            "print(json.dumps([[p.src, p.tgt, p.alignment, sorted(p.phenomena), sorted(p.combos)]"
            " for k in ('train', 'valid', 'test') for p in c[k]]))")
    env = dict(os.environ, PYTHONHASHSEED="12345", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True,
                         text=True, check=True)
    assert json.loads(out.stdout) == json.loads(json.dumps(rows(make_corpus(seed=1, **SMALL))))


# --- shape of every pair -------------------------------------------------------------------------

def test_split_sizes_and_no_sentence_twice(corpus):
    assert [len(corpus[k]) for k in ("train", "valid", "test")] == [8000, 300, 300]
    sources = [p.src for p in all_pairs(corpus)]
    assert len(set(sources)) == len(sources)


def test_alignment_in_range_and_every_target_word_aligned(corpus):
    for p in all_pairs(corpus):
        n_src, n_tgt = len(p.src.split()), len(p.tgt.split())
        assert all(0 <= s < n_src and 0 <= t < n_tgt for s, t in p.alignment), p
        assert {t for _, t in p.alignment} == set(range(n_tgt)), p
        assert len(set(p.alignment)) == len(p.alignment), p


def test_english_has_3_to_20_words_lower_case_single_spaces(corpus):
    for p in all_pairs(corpus):
        assert 3 <= len(p.src.split()) <= 20, p.src
        for text in (p.src, p.tgt):
            assert text == text.lower() == " ".join(text.split()), text


def test_every_phenomenon_occurs_in_at_least_1_percent_of_training_pairs(corpus):
    counts = collections.Counter(name for p in corpus["train"] for name in p.phenomena)
    assert set(counts) <= set(PHENOMENA)
    rare = {name: counts[name] for name in PHENOMENA if counts[name] < 0.01 * len(corpus["train"])}
    assert not rare, rare


def test_french_obeys_elision_and_contraction_everywhere(corpus):
    # Properties of every target sentence, not just the spot checks below.
    vowels, h_aspire = "aeiouàâäéèêëîïôöùûüœh", {"hibou", "hiboux", "huit"}
    for p in all_pairs(corpus):
        words = p.tgt.split()
        for word, nxt in zip(words, words[1:]):
            starts_with_vowel = nxt[0] in vowels and nxt not in h_aspire
            assert not (word in ("le", "la", "je", "ne", "me", "te", "de") and starts_with_vowel), p.tgt
            assert not (word in ("ma", "ta", "sa") and starts_with_vowel), p.tgt
            assert not (word in ("à", "de") and nxt in ("le", "les")), p.tgt
            assert not (word == "pas" and nxt in ("un", "une", "des")), p.tgt


def test_english_words_are_all_in_the_vocabulary(corpus):
    # The model card lists VOCABULARY as "the words it knows": the corpus must not use others.
    known = {w for entries in VOCABULARY.values() for en, _ in entries for w in en.split()}
    known |= {n.en_pl for n in NOUNS.values() if n.en_pl}
    known |= {w for v in VERBS.values() for form in v.en for w in form.split()}
    known |= {"an", "do", "does", "did", "all"}
    used = {w for p in all_pairs(corpus) for w in p.src.split()}
    assert used <= known, used - known
    assert len(used) > 300  # the sampler reaches most of the grammar


def test_english_words_are_the_words_of_lm_ens_training_text():
    # The app marks a typed word outside english_words() as one the shipped models never saw: the set must be
    # exactly what they read, no word missing (it would be marked wrongly) and none extra (it would be offered).
    from core_model.training.data.en_fr import english_sentences, english_words
    from core_model.training.tasks import TASKS

    read = {w for s in english_sentences(0, TASKS["lm-en"].n_train) for w in s.split()}
    assert english_words() == read, (sorted(english_words() - read), sorted(read - english_words()))


def test_vocabulary_has_at_least_300_english_words():
    english = [en for entries in VOCABULARY.values() for en, fr in entries if fr]
    assert len(set(english)) >= 300
    assert len(NOUNS) >= 150 and len(ADJECTIVES) >= 40 and len(VERBS) >= 40


# --- exact translations of hand-built inputs -----------------------------------------------------

NP, PP = NounPhrase, PrepPhrase
SPOT_CHECKS = [
    (NP("car", adjectives=("red",)), "the red car", "la voiture rouge"),
    (NP("car", "the", True, ("red",)), "the red cars", "les voitures rouges"),
    (NP("dress", "a", adjectives=("white",)), "a white dress", "une robe blanche"),
    (NP("house", "the", True, ("small",)), "the small houses", "les petites maisons"),
    (NP("car", "my", adjectives=("big", "red")), "my big red car", "ma grande voiture rouge"),
    (NP("man", adjectives=("old",)), "the old man", "le vieil homme"),
    (NP("horse", "two", True, ("beautiful",)), "two beautiful horses", "deux beaux chevaux"),
    (NP("tree", "some", True, ("big",)), "some big trees", "de grands arbres"),
    (NP("tree"), "the tree", "l'arbre"),
    (NP("apple"), "the apple", "la pomme"),
    (NP("school", "my"), "my school", "mon école"),
    (NP("book", of=NP("boy", "the", True)), "the book of the boys", "le livre des garçons"),
    (PP("to", NP("park")), "to the park", "au parc"),
    (PP("to", NP("boy", "the", True)), "to the boys", "aux garçons"),
    (PP("to", NP("school")), "to the school", "à l'école"),
    (PP("in", NP("house")), "in the house", "dans la maison"),
    (PP("near", NP("garden")), "near the garden", "près du jardin"),
    (Clause("i", "see", "him"), "i see him", "je le vois"),
    (Clause("i", "see", "her"), "i see her", "je la vois"),
    (Clause("i", "see", "them"), "i see them", "je les vois"),
    (Clause("i", "love", "her"), "i love her", "je l'aime"),
    (Clause("i", "eat", NP("apple"), past=True), "i ate the apple", "j'ai mangé la pomme"),
    (Clause("i", "eat", NP("apple"), past=True, negated=True),
     "i did not eat the apple", "je n'ai pas mangé la pomme"),
    (Clause("i", "see", NP("cat"), negated=True), "i do not see the cat", "je ne vois pas le chat"),
    (Clause("i", "love", NP("cat"), negated=True), "i do not love the cat", "je n'aime pas le chat"),
    (Clause("i", "see", NP("cat", "a"), negated=True), "i do not see a cat", "je ne vois pas de chat"),
    (Clause("she", "see", "her", past=True), "she saw her", "elle l'a vue"),
    (Clause("he", "see", "them", past=True, negated=True),
     "he did not see them", "il ne les a pas vus"),
    (Clause("you all", "see", NP("car", "your")), "you all see your car", "vous voyez votre voiture"),
    (Clause("we", "eat", NP("apple"), past=True, adverb="often"),
     "we often ate the apple", "nous avons souvent mangé la pomme"),
    (Clause(NP("girl", "the", True, ("small",)), "look for", "him", adverb="always"),
     "the small girls always look for him", "les petites filles le cherchent toujours"),
    (Clause("they", "give", NP("book"), past=True, pp=PP("to", NP("girl", "the", True))),
     "they gave the book to the girls", "ils ont donné le livre aux filles"),
]


@pytest.mark.parametrize("item,src,tgt", SPOT_CHECKS, ids=[s for _, s, _ in SPOT_CHECKS])
def test_translate_spot_checks(item, src, tgt):
    pair = translate(item)
    assert (pair.src, pair.tgt) == (src, tgt)


@pytest.mark.parametrize("item,links", [
    (NP("tree"), {(0, 0), (1, 0)}),                                   # l'arbre ← the, tree
    (PP("to", NP("park")), {(0, 0), (1, 0), (2, 1)}),                 # au ← to, the
    (Clause("i", "eat", NP("apple"), past=True),                      # j'ai ← i, ate; mangé ← ate
     {(0, 0), (1, 0), (1, 1), (2, 2), (3, 3)}),
    (Clause("i", "see", NP("cat"), negated=True),                     # ne, pas ← not; vois ← do, see
     {(0, 0), (2, 1), (1, 2), (3, 2), (2, 3), (4, 4), (5, 5)}),
    (Clause("i", "see", "him"), {(0, 0), (2, 1), (1, 2)}),            # je le vois: le ← him
])
def test_alignment_spot_checks(item, links):
    assert set(translate(item).alignment) == links


def test_phenomena_of_a_hand_built_clause():
    pair = translate(Clause("she", "see", "her", past=True, negated=True))
    assert pair.tgt == "elle ne l'a pas vue"
    assert {"negation", "object_pronoun", "compound_past", "elision",
            "participle_agreement"} <= pair.phenomena


@pytest.mark.parametrize("make", [
    lambda: Clause("i", "see", "me"),               # would need the reflexive "me vois"
    lambda: NP("water", "a"),                       # a mass noun
    lambda: NP("cat", "two"),                       # a number needs plural=True
    lambda: NP("cat", adjectives=("big", "small")),  # two adjectives before the noun
    lambda: Clause("i", "see", "him", negated=True, adverb="sometimes"),
    lambda: PP("near", NP("cat", "a")),             # "près de un" needs rules left out
])
def test_structures_the_grammar_cannot_translate_are_refused(make):
    with pytest.raises(ValueError):
        make()


# --- held-out combinations -----------------------------------------------------------------------

def test_held_out_combinations_only_in_valid_and_test(corpus):
    assert not any(p.combos & HELD_OUT for p in corpus["train"])
    assert all(p.combos & HELD_OUT for p in corpus["valid"] + corpus["test"])
    assert not {p.src for p in corpus["train"]} & {p.src for p in corpus["valid"] + corpus["test"]}


def test_held_out_adjective_noun_pairs_never_written_in_training(corpus):
    # Independent of the combos bookkeeping: read the English. An adjective right before its
    # noun ("red car", "red cars") is a held-out pair the training text must never show.
    bigrams = {f" {a} {n} " for c in HELD_OUT if c.startswith("adj:")
               for a, noun in [c[4:].split("+")]
               for n in {NOUNS[noun].en_sg, NOUNS[noun].en_pl} - {None}}
    train_text = [f" {p.src} " for p in corpus["train"]]
    assert not [b for b in bigrams if any(b in s for s in train_text)]
    test_text = [f" {p.src} " for p in corpus["valid"] + corpus["test"]]
    assert sum(any(b in s for b in bigrams) for s in test_text) > 100


def test_english_sentences_are_distinct_grammar_sentences():
    sentences = english_sentences(0, 500)
    assert len(sentences) == len(set(sentences)) == 500
    assert all(3 <= len(s.split()) <= 20 and s == s.lower() for s in sentences)


# --- a noun's second French word ----------------------------------------------------------------------

OTHER_SPOTS = [  # (item, with the first French word, with the second)
    (Clause(NounPhrase("girl", adjectives=("small",)), "see", NounPhrase("car", adjectives=("red",)), negated=True),
     "la petite fille ne voit pas la voiture rouge", {"la petite fillette ne voit pas la voiture rouge",
                                                     "la petite fille ne voit pas l'auto rouge",
                                                     "la petite fillette ne voit pas l'auto rouge"}),
    (NounPhrase("bike", "a", adjectives=("red",)), "un vélo rouge", {"une bicyclette rouge"}),  # its own gender
]


@pytest.mark.parametrize("item,first,others", OTHER_SPOTS, ids=[f for _, f, _ in OTHER_SPOTS])
def test_a_second_french_word_brings_its_own_gender_elision_and_links(item, first, others):
    import random

    assert translate(item).tgt == first  # without `second`: always the first word
    assert translations(item) == {first} | others
    rng = random.Random(0)
    drawn = collections.Counter(translate(item, lambda noun: rng.random() < OTHER_SHARE).tgt for _ in range(600))
    assert set(drawn) == {first} | others
    asked = []  # the nouns that have a second word: each takes it with probability OTHER_SHARE
    translate(item, lambda noun: asked.append(noun) or False)
    nouns = len(asked)
    assert sorted(asked) == sorted(w for w in item.__repr__().split("'") if w in OTHER_FRENCH)
    assert abs(1 - drawn[first] / 600 - (1 - (1 - OTHER_SHARE) ** nouns)) < 0.06
    for picks in ((False, False), (True, False), (False, True), (True, True)):  # each noun's link: its French word
        chosen = iter(picks)
        pair = translate(item, lambda noun: next(chosen))
        french = pair.tgt.split()
        for i, word in enumerate(pair.src.split()):
            if word in OTHER_FRENCH:
                linked = {french[t].split("'")[-1] for s, t in pair.alignment if s == i}  # "l'auto": auto
                assert linked & {NOUNS[word].fr_sg, OTHER_FRENCH[word].fr_sg}, (pair.tgt, word, linked)


def test_training_pairs_use_the_second_words_and_held_out_pairs_name_them_as_also_right(corpus):
    second = {w for noun in OTHER_FRENCH.values() for w in (noun.fr_sg, noun.fr_pl)}
    uses = lambda tgt: any(w.split("'")[-1] in second for w in tgt.split())  # noqa: E731 - "l'auto" too
    held = corpus["valid"] + corpus["test"]
    assert not any(uses(p.tgt) for p in held)  # their references: translate(item), the first words
    assert all(uses(other) for p in held for other in p.also) and sum(bool(p.also) for p in held) > 10
    assert sum(uses(p.tgt) for p in corpus["train"]) > 100 and not any(p.also for p in corpus["train"])
    english = make_corpus(seed=0, n_train=8000, n_valid=300, n_test=300)  # the draws leave the English alone
    assert [p.src for p in corpus["train"]] == [p.src for p in english["train"]]


# --- reversal ------------------------------------------------------------------------------------

def test_reverse_corpus():
    corpus = make_reverse_corpus(seed=0, n_train=3000, n_valid=200, n_test=200)
    assert [len(corpus[k]) for k in ("train", "valid", "test")] == [3000, 200, 200]
    for p in all_pairs(corpus):
        words = p.src.split()
        assert 3 <= len(words) <= 12
        assert p.tgt.split() == words[::-1]
        assert p.alignment == tuple((i, len(words) - 1 - i) for i in range(len(words)))
    train = {p.src for p in corpus["train"]}
    held = [p.src for p in corpus["valid"] + corpus["test"]]
    assert not train & set(held) and len(set(held)) == len(held)
    assert make_reverse_corpus(seed=0, **SMALL) == make_reverse_corpus(seed=0, **SMALL)
    assert make_reverse_corpus(seed=1, **SMALL) != make_reverse_corpus(seed=0, **SMALL)
