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
