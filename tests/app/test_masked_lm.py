"""A BERT saved as BertForMaskedLM (tests/families/encoders.py), uploaded: the overview offers its masked-LM head's
own outputs, each position's likeliest tokens, and they are transformers' (BertForMaskedLM's logits, by argmax)."""
import pytest
import torch

from tests.app.conftest import assert_clean, upload_zip, zipped
from viz_app import loaders

transformers = pytest.importorskip("transformers")  # the folder is made by transformers itself
SENTENCE = "the cat [MASK] on the mat"
pytestmark = pytest.mark.usefixtures("own_models_here")  # tests/app/conftest.py


@pytest.fixture(scope="module")
def session(hub_folder, own_models_here):
    return upload_zip("tiny-bert-mlm.zip", zipped(hub_folder("bert-mlm"), "tiny-bert-mlm"), SENTENCE)


def test_the_overview_shows_the_heads_likeliest_tokens_and_they_are_transformers(session, hub_folder):
    session.switch_page("app_pages/overview.py").run()
    assert_clean(session)
    table = next(d.value for d in session.dataframe if d.value.shape[1] == 2 and len(d.value) > 3)
    loaded = loaders.load_model(session.session_state["model"])
    tok = loaded.tokenizers["src"]
    ids = tok.frame(tok.encode(SENTENCE))
    assert tok.piece_to_id("[MASK]") in ids  # typed in the text, read as the mask token
    reference = transformers.BertForMaskedLM.from_pretrained(hub_folder("bert-mlm"), attn_implementation="eager")
    with torch.no_grad():
        best = reference.eval()(torch.tensor([ids])).logits[0].argmax(-1).tolist()
    from viz_app.text import piece

    assert len(table) == len(ids)
    for (_, row), want in zip(table.iterrows(), best):
        assert row.iloc[1].startswith(f"{piece(tok, want)} ("), (row.iloc[1], piece(tok, want))
