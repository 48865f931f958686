"""An mBART folder made by transformers (tests/families/mbart.py: the decoder starts from </s> and is forced to write
ro_RO first, as generation_config.json's forced_bos_token_id says), zipped and uploaded through the sidebar: the
decoding page starts from </s> ro_RO as generate() does, and says nothing of forced_bos_token_id not being followed.
That every page draws it is tested with every family's in tests/app/test_family_uploads.py."""
import pytest

from tests.app.conftest import assert_clean, upload_zip, zipped
from viz_app import loaders

SENTENCE = "The cat sat on the mat."
pytestmark = pytest.mark.usefixtures("own_models_here")  # tests/app/conftest.py


@pytest.fixture(scope="module")
def session(hub_folder, own_models_here):
    return upload_zip("tiny-mbart.zip", zipped(hub_folder("mbart"), "tiny-mbart"), SENTENCE)


def test_the_decoding_page_starts_from_eos_and_the_forced_language(session):
    session.switch_page("app_pages/decoding.py").run()
    assert_clean(session)
    name = session.session_state["model"]
    tgt = loaders.load_model(name).tokenizers["tgt"]
    decoded = loaders.decode(name, SENTENCE)
    assert [tgt.id_to_piece(i) for i in decoded.steps[0].prefix] == ["</s>", "ro_RO"]
    said = " ".join(str(e.value) for kind in ("info", "caption", "markdown") for e in session.get(kind))
    assert "generation_config.json" in said and "forced_bos_token_id" not in said
    assert loaders.generation(name).not_applied == ("forced_eos_token_id",)  # eos forced at the length limit
