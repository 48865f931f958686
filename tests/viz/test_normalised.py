"""Typed text written as the shipped models' training text is (text.normalised), the words they never read, the
nearest words they know, and a replacement: expected values written out by hand."""
from viz_app.text import nearest, normalised, quoted, replaced, unknown_in

KNOWN = frozenset({"the", "cat", "sees", "horse", "house", "does", "not", "see", "man", "old"})


def test_case_punctuation_and_contractions_are_written_as_in_training_and_each_change_is_noted():
    assert normalised("The cat sees the horse.") == ("the cat sees the horse",
                                                      [("input.lowered", {}), ("input.punctuation", {"marks": "."})])
    assert normalised("the cat doesn't see,  the «horse»!") == (
        "the cat does not see the horse", [("input.contraction", {}), ("input.punctuation", {"marks": "! , « »"})])
    assert normalised("the cat sees the horse") == ("the cat sees the horse", [])  # already so: nothing said
    assert normalised("The ÉCOLE")[0] == "the école"  # lower case beyond ASCII


def test_unknown_words_are_those_outside_the_known_set_each_once_in_order():
    assert unknown_in("the cat sat on the mat the mat", KNOWN) == ["sat", "on", "mat"]
    assert unknown_in("the old man", KNOWN) == []


def test_a_typo_is_offered_the_known_words_spelt_most_like_it():
    assert set(nearest("hourse", KNOWN)) == {"horse", "house"}
    assert nearest("xyzzy", KNOWN) == []


def test_a_replacement_changes_that_word_everywhere_in_the_normalised_text():
    assert replaced("The horse sees the Hourse.", "hourse", "house") == "the horse sees the house"


def test_listed_words_are_quoted_so_a_comma_in_one_is_not_read_as_a_separator():
    assert quoted(["grandmother,", "my"]) == "“grandmother,”, “my”"  # was: grandmother,, my
