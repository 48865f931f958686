"""Whose a cached result is (viz_app/loaders/scope.py): a typed text's run, decoding and attribution are computed
again for another session, so nobody can time a page to learn what somebody else typed; the app's own examples are
shared by all."""
from types import SimpleNamespace

import pytest

from core_model import decoding
from viz_app.examples import EXAMPLES
from viz_app.loaders import decodings, runs, scope

MODEL = "reverse"
TYPED = "seven two nine four"


@pytest.fixture
def session(monkeypatch):
    """session(id) makes the loaders run as session `id` would (None: outside any session)."""
    def enter(session_id):
        ctx = SimpleNamespace(session_id=session_id) if session_id else None
        monkeypatch.setattr(scope, "get_script_run_ctx", lambda suppress_warning=False: ctx)
    return enter


@pytest.fixture
def traced(monkeypatch):
    """The texts each traced run (runs._run) and each greedy decoding was computed for, in order."""
    calls = []
    trace, greedy = runs._run, decoding.greedy
    monkeypatch.setattr(runs, "_run", lambda loaded, name, prepared, src, *a: calls.append(("run", src))
                        or trace(loaded, name, prepared, src, *a))
    monkeypatch.setattr(decoding, "greedy", lambda model, ids, **kw: calls.append(("greedy", tuple(ids)))
                        or greedy(model, ids, **kw))
    runs.run.clear()
    decodings.decode.clear()
    yield calls
    runs.run.clear()
    decodings.decode.clear()


def test_a_typed_text_is_computed_again_for_another_session_and_kept_for_its_own(session, traced):
    session("a")
    first = runs.run(MODEL, TYPED)
    assert runs.run(MODEL, TYPED) is first and len(traced) == 2  # its run and the decoding its run shows
    session("b")
    other = runs.run(MODEL, TYPED)
    assert other is not first and len(traced) == 4  # both again: b's page takes as long as a's did
    assert other.src_labels == first.src_labels and other.output == first.output  # the same numbers, though
    session("a")
    assert runs.run(MODEL, TYPED) is first and len(traced) == 4


def test_the_apps_own_examples_are_shared_by_every_session(session, traced):
    session("a")
    first = decodings.decode(MODEL, EXAMPLES[MODEL])
    session("b")
    assert decodings.decode(MODEL, EXAMPLES[MODEL]).ids == first.ids and len(traced) == 1


def test_outside_a_session_everything_is_shared(session):
    session(None)
    assert scope.scope([TYPED]) == ""
    session("a")
    assert scope.scope([TYPED]) == "a" and scope.scope([EXAMPLES[MODEL], ""]) == ""
    assert scope.scope([EXAMPLES[MODEL], TYPED]) == "a"  # one typed text is enough to make it the visitor's


def test_the_masks_pages_lines_are_each_checked(session):
    session("a")
    assert scope.scope((*EXAMPLES.values(),)) == "" and scope.scope((EXAMPLES[MODEL], TYPED)) == "a"
    calls = []
    scoped = scope.per_visitor("sentences")(lambda name, sentences, scope="": calls.append(scope))
    scoped(MODEL, (EXAMPLES[MODEL], TYPED))
    scoped(MODEL, sentences=(EXAMPLES[MODEL],))
    assert calls == ["a", ""]


def test_a_typed_texts_vocabulary_neighbours_are_computed_again_for_another_session(session, monkeypatch):
    from viz_app.loaders import tables

    found = []
    nearest = tables.nearest
    monkeypatch.setattr(tables, "nearest", lambda weight, ids, *a, **kw: found.append(ids) or nearest(weight, ids, *a,
                                                                                                      **kw))
    tables.vocab_neighbours.clear()
    ids = tuple(runs.run(MODEL, TYPED).src_ids)
    session("a")
    first = tables.vocab_neighbours(MODEL, "src", ids, 5, (TYPED, ""))
    assert tables.vocab_neighbours(MODEL, "src", ids, 5, (TYPED, "")) is not None and len(found) == 1
    session("b")
    other = tables.vocab_neighbours(MODEL, "src", ids, 5, (TYPED, ""))
    assert len(found) == 2 and (other.ids == first.ids).all()  # the same tokens: computed again, not told by its time
    example = (EXAMPLES[MODEL], "")
    tables.vocab_neighbours(MODEL, "src", ids, 5, example)
    session("a")
    tables.vocab_neighbours(MODEL, "src", ids, 5, example)
    assert len(found) == 3  # the examples' are shared
    tables.vocab_neighbours.clear()
