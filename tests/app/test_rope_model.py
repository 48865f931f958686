"""The shipped lm-en-rope on the pages that show what it does differently: rotary positions (no vector added,
the angles of each pair) and RMSNorm (the vector divided by its root mean square, no mean taken off)."""
import numpy as np
import pytest
import torch

from core_model import checkpoints
from core_model.nn.positional import rope_angles
from viz_app.loaders import MODELS_DIR
from viz_app.registry import NAMES

from .conftest import assert_clean, chart_names, named_z, open_page

MODEL = "lm-en-rope"


@pytest.mark.parametrize("name", NAMES)
def test_every_page_draws_the_rope_model(name):
    at = open_page(name, model=MODEL)
    assert_clean(at)
    assert chart_names(at) or at.get("graphviz_chart"), name


def test_the_positional_page_draws_the_models_own_rotation_angles():
    at = open_page("positional", model=MODEL)
    assert_clean(at)
    cfg = checkpoints.load(MODELS_DIR / MODEL).config
    angles = named_z(at, "positional.model.rope.angles")
    n = angles.shape[0]
    expected = np.mod(rope_angles(torch.arange(n), cfg.d_head, cfg.positional_base).numpy(), 2 * np.pi)
    np.testing.assert_allclose(angles, expected, atol=1e-4)  # wrapped into [0, 2π): float32 angles up to ~100 rad


def test_the_ffn_norm_page_says_rmsnorm():
    at = open_page("ffn_norm", model=MODEL)
    assert_clean(at)
    assert any("RMSNorm" in latex.value for latex in at.latex)
