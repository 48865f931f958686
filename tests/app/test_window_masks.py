"""The Masks page of an uploaded model with local layers (GPT-Neo: layer 1 of 2, window 4; Mistral: every layer,
sliding_window 4; tests/families/neo.py) shows each local layer's window: the sliding-window causal mask as a chart
equal to core_model's, the scores past the window blocked, and a caption naming the window and the local layers, in
English and Chinese; a global layer says which layers are local."""
import numpy as np
import pytest

from core_model.nn.masks import causal_mask
from tests.app.conftest import assert_clean, chart_names, named_chart, named_z, shown, upload_zip, zipped

pytest.importorskip("transformers")  # a dev requirement: the folders are made by transformers itself

SENTENCE = "The cat sat on the mat, and the dog sat on the log."  # longer than the window
pytestmark = pytest.mark.usefixtures("own_models_here")  # tests/app/conftest.py


@pytest.fixture(scope="module", params=["gpt-neo", "mistral"])
def session(request, hub_folder, own_models_here):
    name = f"tiny-{request.param}"
    return request.param, upload_zip(f"{name}.zip", zipped(hub_folder(request.param), name), SENTENCE)


def masks_page(at, layer: int, lang: str = "en"):
    at.session_state["layer"], at.session_state["lang"] = layer, lang
    at.switch_page("app_pages/masks.py").run()
    assert_clean(at)
    return at


def captions(at) -> str:
    return " ".join(shown(c.value) for c in at.caption)


def test_a_local_layer_shows_its_window(session):
    at = masks_page(session[1], 1)
    names = chart_names(at)
    assert "masks.mask.window" in names and "masks.mask.causal" not in names, names
    window = named_z(at, "masks.mask.window")  # 1 = may attend
    n = window.shape[0]
    assert n > 4 and np.array_equal(window == 1, causal_mask(n, window=4)[0, 0].numpy())
    assert "4" in named_chart(at, "masks.mask.window")["layout"]["title"]["text"]
    after = named_z(at, "masks.scores.after")
    assert np.isnan(after[n - 1, : n - 4]).all() or np.isneginf(after[n - 1, : n - 4]).all()
    assert "Layer 1 is a local layer (sliding-window attention)" in captions(at)


def test_a_global_layer_names_the_local_ones(session):
    family, at = session
    masks_page(at, 0)
    if family == "mistral":  # every layer is local
        assert "masks.mask.window" in chart_names(at)
        assert "local layers: 0, 1" in captions(at)
    else:
        assert "masks.mask.causal" in chart_names(at) and "masks.mask.window" not in chart_names(at)
        assert "Layer 0 is a global layer" in captions(at) and "local layers (1)" in captions(at)


def test_the_window_is_said_in_chinese(hub_folder):
    at = upload_zip("tiny-gpt-neo.zip", zipped(hub_folder("gpt-neo"), "tiny-gpt-neo"), SENTENCE)
    masks_page(at, 1, "zh")
    assert "滑动窗口因果掩码（窗口 4）" in named_chart(at, "masks.mask.window")["layout"]["title"]["text"]
    assert "第 1 层是局部层（滑动窗口注意力）" in captions(at)
