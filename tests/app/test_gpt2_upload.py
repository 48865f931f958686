"""A GPT-2 folder made by transformers, zipped and uploaded through the sidebar: it loads as its own model, the
overview and the decoding page give transformers' output, the Masks page tells its padding. That every page draws it
is tested with every family's in tests/app/test_family_uploads.py."""
import io
import zipfile

import pytest

from tests.app.conftest import assert_clean, named_z, upload_zip, zipped
from viz_app import loaders, own_model


SENTENCE = "The cat sat on the mat."
pytestmark = pytest.mark.usefixtures("own_models_here")  # tests/app/conftest.py


@pytest.fixture(scope="module")
def gpt2_folder(hub_folder):
    return hub_folder("gpt2")  # tests/families/gpt2.py


@pytest.fixture(scope="module")
def gpt2_zip(gpt2_folder) -> bytes:
    return zipped(gpt2_folder, "tiny-gpt2")


def uploaded(data: bytes):
    return upload_zip("tiny-gpt2.zip", data, SENTENCE)


@pytest.fixture(scope="module")
def session(gpt2_zip, own_models_here):
    """One session that uploaded the zip (an upload runs the probe in a child process: a few seconds), shared by
    the tests below, each opening the page it checks."""
    return uploaded(gpt2_zip)


def test_the_zip_loads_and_the_overview_shows_transformers_continuation(gpt2_zip, session, tmp_path):
    import torch
    import transformers

    at = session
    at.switch_page("app_pages/overview.py").run()
    name = at.session_state["model"]
    assert name.startswith(own_model.OWN_PREFIX)
    cfg = loaders.load_model(name).config
    assert (cfg.architecture, cfg.activation, cfg.mask_padding) == ("decoder", "gelu_tanh", False)
    # transformers' own greedy continuation of <|endoftext|> + the sentence, by its own tokenizer
    zipfile.ZipFile(io.BytesIO(gpt2_zip)).extractall(tmp_path)
    folder = tmp_path / "tiny-gpt2"
    fast = transformers.AutoTokenizer.from_pretrained(folder)
    reference = transformers.GPT2LMHeadModel.from_pretrained(folder, attn_implementation="eager").eval()
    prompt = [fast.eos_token_id] + fast(SENTENCE)["input_ids"]
    with torch.no_grad():
        ids = reference.generate(torch.tensor([prompt]), attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
                                 max_new_tokens=loaders.LM_NEW_TOKENS, do_sample=False,
                                 eos_token_id=fast.eos_token_id, pad_token_id=fast.eos_token_id)[0, len(prompt):]
    # the page shows a stray byte as its label (<C3>), not U+FFFD: our decoding of the ids (checked in tests/core)
    continuation = loaders.load_model(name).tokenizers["tgt"].decode_visible([int(i) for i in ids])
    assert continuation.strip() and continuation.strip() in [t.value.strip() for t in at.text]


def test_the_masks_page_tells_gpt2s_padding_by_length_and_masks_none_of_it(session):
    """GPT-2 pads with <|endoftext|>, the same token every sentence starts with: the page must not take each
    sentence's first token for padding, and must show the model's padding mask as it is (nothing blocked)."""
    import numpy as np

    at = session
    at.switch_page("app_pages/masks.py").run()
    assert_clean(at)
    cfg = loaders.load_model(at.session_state["model"]).config
    assert any(f"pads with token {cfg.pad_id}" in i.value for i in at.info)
    ids = at.dataframe[0].value.to_numpy()  # the padded decoder inputs, <|endoftext|> first in every row
    assert (ids[:, 0] == cfg.pad_id).all()
    lines = at.text_area(key="masks.batch").value.split("\n")
    lengths = [len(loaders.run(at.session_state["model"], line).tgt_ids) for line in lines]
    assert len(set(lengths)) > 1  # some rows are padded
    from viz_app.views import masks as view

    table = view.padded(loaders.padded_batch(at.session_state["model"], tuple(lines), True))
    assert table.pads[0].tolist() == [[c >= n for c in range(ids.shape[1])] for n in lengths]  # by length, not id
    padding = named_z(at, "masks.mask.padding")
    assert np.nanmin(padding) == 1  # nothing blocked: the model masks no padding


def test_decoding_starts_from_the_models_own_generation_config(gpt2_folder):
    """generation_config.json asks for 5 new tokens, greedy: the page's steps are transformers' generate()."""
    import json

    import torch
    import transformers

    at = uploaded(zipped(gpt2_folder, "tiny-gpt2", {"generation_config.json": json.dumps({"max_new_tokens": 5})}))
    at.switch_page("app_pages/decoding.py").run()
    assert_clean(at)
    assert at.radio(key="decoding.method").value == "greedy"
    assert any("`max_new_tokens = 5`" in c.value for c in at.caption)
    fast = transformers.AutoTokenizer.from_pretrained(gpt2_folder)
    reference = transformers.GPT2LMHeadModel.from_pretrained(gpt2_folder, attn_implementation="eager").eval()
    prompt = [fast.eos_token_id] + fast(SENTENCE)["input_ids"]
    with torch.no_grad():
        want = reference.generate(torch.tensor([prompt]), attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
                                  max_new_tokens=5, do_sample=False, eos_token_id=fast.eos_token_id,
                                  pad_token_id=fast.eos_token_id)[0, len(prompt):].tolist()
    decoded = loaders.decode(at.session_state["model"], SENTENCE)
    assert list(decoded.ids) == want and len(want) <= 5


def test_a_generation_config_asking_for_beams_makes_beam_search_the_default(gpt2_folder):
    import json

    settings = {"num_beams": 3, "length_penalty": 2.0, "no_repeat_ngram_size": 3}
    at = uploaded(zipped(gpt2_folder, "tiny-gpt2", {"generation_config.json": json.dumps(settings)}))
    at.switch_page("app_pages/decoding.py").run()
    assert_clean(at)
    assert at.radio(key="decoding.method").value == "beam" and at.number_input(key="decoding.width").value == 3
    said = " ".join(c.value for c in at.caption)
    assert "`num_beams = 3`" in said and "`no_repeat_ngram_size`" in said and "`length_penalty`" in said
