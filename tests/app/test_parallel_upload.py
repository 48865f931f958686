"""A Pythia folder (parallel layers, RoPE on 2 of each head's 8 dimensions) and a Phi folder (one norm shared by both
blocks) made by transformers, zipped and uploaded through the sidebar: the pages that explain a layer say it is
parallel, and the positional page says which dimensions RoPE turns. That every page draws them is tested with every
family's in tests/app/test_family_uploads.py."""
import numpy as np
import pytest

import torch

from core_model.nn.positional import rope_angles
from tests.app.conftest import named_z, shown, upload_zip, zipped
from viz_app.i18n import text

SENTENCE = "The cat sat on the mat."
pytestmark = pytest.mark.usefixtures("own_models_here")  # tests/app/conftest.py


@pytest.fixture(scope="module", params=["pythia", "phi"])
def kind(request):
    return request.param


@pytest.fixture(scope="module")
def session(hub_folder, kind, own_models_here):
    return upload_zip(f"tiny-{kind}.zip", zipped(hub_folder(kind), f"tiny-{kind}"), SENTENCE)


BLOCK = {"pythia": "parallel", "phi": "parallel_shared"}


def test_the_ffn_and_norm_page_says_the_layer_is_parallel(session, kind):
    session.switch_page("app_pages/ffn_norm.py").run()
    captions = [shown(c.value) for c in session.caption]
    assert shown(text(f"ffn_norm.block.{BLOCK[kind]}", "en")) in captions
    formulas = " ".join(str(m.value) for m in session.latex) + " ".join(str(m.value) for m in session.markdown)
    assert r"\mathrm{Attn}" in formulas and "Sublayer" not in formulas


def test_the_overview_diagram_says_the_layer_is_parallel(session, kind):
    session.switch_page("app_pages/overview.py").run()
    dot = session.get("graphviz_chart")[0].proto.spec
    assert text(f"diagram.block.{BLOCK[kind]}", "en") in dot


def test_the_positional_page_draws_the_angles_of_the_turned_dimensions_only(session, kind):
    session.switch_page("app_pages/positional.py").run()
    dims = {"pythia": 2, "phi": 4}[kind]
    captions = [shown(c.value) for c in session.caption]
    assert shown(text("positional.rope.partial", "en", dims=dims, d_head=8)) in captions
    angles = named_z(session, "positional.model.rope.angles")  # [positions, turned pairs]
    expected = rope_angles(torch.arange(angles.shape[0]), dims, 10000.0).numpy()  # θᵢ = base^(−2i/dims)
    assert angles.shape[1] == dims // 2
    np.testing.assert_allclose(angles, np.mod(expected, 2 * np.pi), atol=1e-5)
