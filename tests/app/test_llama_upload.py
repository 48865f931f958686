"""A Llama folder with grouped-query attention (4 query heads, 2 key/value heads) made by transformers, zipped and
uploaded through the sidebar: the pages that show a head name the key/value head it shares. That every page draws it
is tested with every family's in tests/app/test_family_uploads.py."""
import pytest

from core_model.heads import head_weights
from tests.app.conftest import draws, named_chart, upload_zip, zipped
from viz_app import loaders


SENTENCE = "The cat sat on the mat."
pytestmark = pytest.mark.usefixtures("own_models_here")  # tests/app/conftest.py


@pytest.fixture(scope="module")
def session(hub_folder, own_models_here):
    """One session that uploaded the zip (the probe runs in a child process: a few seconds), shared by the tests."""
    folder = hub_folder("llama-gqa")  # tests/families/llama.py
    return upload_zip("tiny-llama.zip", zipped(folder, "tiny-llama"), SENTENCE)


def test_the_zip_loads_as_a_grouped_query_decoder(session):
    session.switch_page("app_pages/overview.py").run()
    cfg = loaders.load_model(session.session_state["model"]).config
    assert (cfg.architecture, cfg.n_heads, cfg.kv_heads, cfg.ffn, cfg.rope_layout) == ("decoder", 4, 2, "gated",
                                                                                         "halves")


@pytest.mark.parametrize("page", ["self_attention", "explorer", "positional", "worked_example"])
def test_a_query_head_that_shares_its_key_value_head_draws(session, page):
    session.session_state["head"] = 3  # reads key/value head 1, with head 2
    draws(session, page)
    session.session_state["head"] = 0


def test_the_steps_name_the_shared_key_value_head(session):
    session.session_state["head"] = 3  # reads key/value head 1, with head 2
    session.switch_page("app_pages/self_attention.py").run()
    session.session_state["head"] = 0
    titles = {name: named_chart(session, f"self_attention.{name}")["layout"]["title"]["text"]
              for name in ("w_k", "k", "v", "q", "pattern")}
    for name in ("w_k", "k", "v"):
        assert "K/V head 1, shared by heads 2–3" in titles[name], titles[name]
    assert "K/V head" not in titles["q"] and "K/V head" not in titles["pattern"]  # a query head's own


def test_a_heads_weights_are_its_own_queries_and_its_shared_keys_and_values(session):
    model = loaders.load_model(session.session_state["model"]).model
    block = model.decoder.layers[0].self_attn
    weights = head_weights(block, 3)
    d = block.d_head
    assert (weights["w_q"] == block.q_proj.weight.detach()[3 * d:4 * d].T.numpy()).all()
    for name in ("k", "v"):  # query head 3 reads key/value head 1
        proj = getattr(block, f"{name}_proj")
        assert (weights[f"w_{name}"] == proj.weight.detach()[d:2 * d].T.numpy()).all()
