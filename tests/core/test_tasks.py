"""`held_out`, the valid and test splits every reader of a held-out split shares (evaluate, the explorer's corpus of
queries and keys, the tests): the rows `corpus` draws, drawn once per process."""
import pytest

from core_model.training.tasks import TASKS, corpus, held_out


def test_held_out_is_the_corpus_valid_and_test_splits():
    name = "reverse"  # the translator's takes ~10 s; every task goes through the same code
    splits = corpus(TASKS[name], 0)
    got = held_out(name)
    assert got == {"valid": tuple(splits["valid"]), "test": tuple(splits["test"])} and len(got["test"]) == 500
    assert held_out(name) is got  # drawn once: the second reader gets the same rows without drawing them again
    assert held_out(name, 1)["test"] != got["test"]  # another seed, another split


def test_held_out_rows_cannot_be_changed_by_a_reader():
    with pytest.raises(AttributeError):
        held_out("reverse")["test"].append(None)
    with pytest.raises(TypeError):
        held_out("reverse")["test"] = ()
