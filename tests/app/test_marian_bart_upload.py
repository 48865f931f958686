"""Marian and BART folders made by transformers, zipped and uploaded through the sidebar: each loads as its own
model, and the overview shows transformers' greedy output. That every page draws each is tested with every family's
in tests/app/test_family_uploads.py."""
import io
import zipfile

import pytest

from tests.app.conftest import upload_zip, zipped
from viz_app import loaders, own_model

pytest.importorskip("transformers")  # a dev requirement: the tiny models are made by transformers itself
# after the skip: it imports transformers
from tests.core.test_marian_bart import REFERENCE  # noqa: E402

SENTENCE = "the cat sat on the mat"
pytestmark = pytest.mark.usefixtures("own_models_here")  # tests/app/conftest.py


@pytest.fixture(scope="module", params=["bart", "marian"])
def upload(request, hub_folder) -> tuple[str, bytes]:
    """(family, the tiny folder as a user zips it: tests/families/marian_bart.py)."""
    kind = request.param
    return kind, zipped(hub_folder(kind), f"tiny-{kind}")


def uploaded(upload):
    kind, data = upload
    return upload_zip(f"tiny-{kind}.zip", data, SENTENCE)


@pytest.fixture(scope="module")
def session(upload, own_models_here):
    """One session that uploaded the family's zip (an upload runs the probe in a child process: a few seconds),
    shared by the tests below, each opening the page it checks."""
    return uploaded(upload)


def test_the_zip_loads_as_an_encoder_decoder(upload, session):
    kind, _ = upload
    at = session
    name = at.session_state["model"]
    assert name.startswith(own_model.OWN_PREFIX)
    cfg = loaders.load_model(name).config
    assert cfg.architecture == "encoder-decoder"
    assert (cfg.positional, cfg.embed_norm) == (("sinusoidal", False) if kind == "marian" else ("learned", True))


def test_the_overview_shows_transformers_greedy_output(upload, session, tmp_path):
    import torch
    import transformers

    kind, data = upload
    at = session
    at.switch_page("app_pages/overview.py").run()
    loaded = loaders.load_model(at.session_state["model"])
    zipfile.ZipFile(io.BytesIO(data)).extractall(tmp_path)
    folder = tmp_path / f"tiny-{kind}"
    hub = transformers.AutoTokenizer.from_pretrained(folder)
    reference = REFERENCE[kind].from_pretrained(folder, attn_implementation="eager").eval()
    src = hub(SENTENCE)["input_ids"]  # as transformers frames it: Marian … </s>, BART <s> … </s>
    budget = loaders.readable(loaded.config) - 1  # the steps the app's decoding may take
    with torch.no_grad():
        ids = reference.generate(torch.tensor([src]), max_new_tokens=budget, do_sample=False, num_beams=1)[0, 1:]
    ids = [int(i) for i in ids if i != loaded.config.eos_id]
    output = loaded.tokenizers["tgt"].decode_visible(ids)  # our decoding of the ids (checked in tests/core)
    assert output.strip() and output in [t.value for t in at.text]
