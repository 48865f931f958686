import pandas as pd

from viz_app import loaders
from tests.app.conftest import assert_clean, open_page


def test_overview_shows_input_output_and_parameter_counts():
    at = open_page("overview", src="the cat sees the dog")
    assert_clean(at)
    run = loaders.run("translate-en-fr", "the cat sees the dog")
    texts = [t.value for t in at.text]
    assert "the cat sees the dog" in texts and run.output in texts
    table = at.dataframe[0].value
    model = loaders.load_model("translate-en-fr").model
    assert table.iloc[-1, 1] == sum(p.numel() for p in model.parameters())
    assert "digraph" in at.get("graphviz_chart")[0].proto.spec


def test_overview_output_follows_the_sentence():
    at = open_page("overview", src="the cat sees the dog")
    at.sidebar.text_input(key="src").set_value("i see him").run()
    assert_clean(at)
    assert loaders.run("translate-en-fr", "i see him").output in [t.value for t in at.text]


def test_each_models_example_sentence_uses_only_words_it_knows():
    from viz_app import loaders
    from viz_app.sidebar import EXAMPLES

    for name in loaders.available_models():
        notices = [key for key, _ in loaders.run(name, EXAMPLES[name]).notices]
        assert notices == [], (name, notices)  # no unknown word, nothing cut, on the page a visitor sees first


def test_the_diagram_says_what_each_model_does_to_a_token_before_layer_0():
    """lm-en uses ALiBi: no position vector is added to the embedding, the attention scores get a distance bias."""
    lm = open_page("overview", model="lm-en", src="the cat sees the dog")
    assert_clean(lm)
    dot = lm.get("graphviz_chart")[0].proto.spec
    assert "token embedding × √128\n" in dot and "position vector" not in dot
    assert "masked self-attention, 4 heads\n+ ALiBi distance bias on the scores" in dot
    translate = open_page("overview", src="the cat sees the dog").get("graphviz_chart")[0].proto.spec
    assert "token embedding × √128 + position vector" in translate and "ALiBi" not in translate


def test_the_first_screen_says_what_to_do_and_draws_where_the_model_looks():
    """The chart beside the output is the last decoder layer's cross-attention, its heads averaged: the trace's
    weights, averaged here by hand."""
    from tests.app.conftest import named_z
    from tests.tolerance import assert_activations_close
    from viz_app.i18n import text

    at = open_page("overview", src="the cat sees the dog")
    assert_clean(at)
    assert text("overview.what_to_do", "en") in [m.value for m in at.markdown]
    assert at.button(key="lesson.start.overview").label == text("lesson.start", "en")
    trace = loaders.run("translate-en-fr", "the cat sees the dog").trace
    weights = trace.attn("decoder", 2, "cross_attn").pattern[0]  # [heads, output, source]
    mean = sum(weights[h] for h in range(weights.shape[0])) / weights.shape[0]
    assert_activations_close(named_z(at, "overview.look"), mean)
    assert text("overview.look.about.cross_attn", "en") in [c.value for c in at.caption]


def test_an_example_one_click_away_becomes_the_sentence_and_says_what_to_look_for():
    from viz_app.examples import TRY
    from viz_app.i18n import text

    at = open_page("overview")
    (sentence, look), _ = TRY["translate-en-fr"]
    at.get("button_group")[0].set_value(sentence).run()
    assert_clean(at)
    assert at.session_state["src"] == sentence and sentence in [t.value for t in at.text]
    assert loaders.run("translate-en-fr", sentence).output in [t.value for t in at.text]
    assert text(f"overview.try.{look}", "en") in [c.value for c in at.caption]


def test_every_example_uses_only_words_its_model_knows():
    from viz_app.examples import TRY
    from viz_app.text import unknown_in

    for name, tried in TRY.items():
        assert all(not unknown_in(sentence, loaders.known_words(name)) for sentence, _ in tried), name
