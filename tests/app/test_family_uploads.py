"""Every imported family's small folder (tests/families), zipped as a user zips it and uploaded through the sidebar
with all the upload's limits: it loads as the family it is, and every page draws it without an exception (an
encoder's decoding page says why it does not apply, as for MiniLM in test_minilm.py)."""
import pytest

from tests.app.conftest import assert_clean, draws, upload_zip, zipped
from viz_app import loaders
from viz_app.i18n import text
from viz_app.registry import NAMES

pytest.importorskip("transformers")  # a dev requirement: the folders are made by transformers itself
from tests.families import FAMILIES  # noqa: E402  (after the skip: it imports transformers)

SENTENCE = "The cat sat on the mat."
pytestmark = pytest.mark.usefixtures("own_models_here")  # tests/app/conftest.py


@pytest.fixture(scope="module", params=list(FAMILIES))
def family(request):
    return FAMILIES[request.param]


@pytest.fixture(scope="module")
def session(hub_folder, family, own_models_here):
    """One session per family that uploaded its zip (the probe runs in a child process: a few seconds)."""
    name = f"tiny-{family.name}"
    return upload_zip(f"{name}.zip", zipped(hub_folder(family.name), name), SENTENCE)


def test_the_zip_loads_as_its_family(session, family):
    session.switch_page("app_pages/overview.py").run()
    assert loaders.load_model(session.session_state["model"]).config.architecture == family.architecture


@pytest.mark.parametrize("page", NAMES)
def test_every_page_draws_the_uploaded_model(session, family, page):
    if page == "decoding" and family.architecture == "encoder":
        session.switch_page("app_pages/decoding.py").run()
        assert_clean(session)
        shown = " ".join(e.value for e in session.get("info"))
        assert text("decoding.no_decoder", "en").split("{")[0][:60] in shown
        return
    draws(session, page)
