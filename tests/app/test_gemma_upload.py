"""Folders whose heads are wider than d_model / n_heads (Gemma's head_dim) and whose RoPE is scaled (llama3), made by
transformers, zipped and uploaded through the sidebar: the pages show the heads at their own width and the angles the
model really turns by. That every page draws them is tested with every family's in tests/app/test_family_uploads.py.
"""
import numpy as np
import pytest
import torch

from core_model.nn.positional import RopeScaling, rope_angles
from tests.app.conftest import draws, named_chart, named_z, shown, upload_zip, zipped
from viz_app import loaders

pytest.importorskip("transformers")  # a dev requirement: the folders are made by transformers itself
SENTENCE = "The cat sat on the mat."
pytestmark = pytest.mark.usefixtures("own_models_here")  # tests/app/conftest.py


def uploaded(hub_folder, name: str):
    return upload_zip(f"tiny-{name}.zip", zipped(hub_folder(name), f"tiny-{name}"), SENTENCE)


def test_the_steps_show_a_gemma_head_at_its_own_width(hub_folder, own_models_here):
    session = uploaded(hub_folder, "gemma")  # 4 heads of 16 in a 32-wide model (tests/families/gemma.py)
    draws(session, "self_attention")
    n = len(named_z(session, "self_attention.x"))
    assert np.shape(named_z(session, "self_attention.q")) == (n, 16)
    assert np.shape(named_z(session, "self_attention.w_q")) == (32, 16)
    assert np.shape(named_z(session, "self_attention.concat")) == (n, 64)
    assert np.shape(named_z(session, "self_attention.w_o")) == (64, 32)
    assert any("h d_k = 64" in latex.value for latex in session.latex)


def test_the_positional_page_draws_the_scaled_angles_and_says_how(hub_folder, own_models_here):
    session = uploaded(hub_folder, "llama-rope3")  # llama3 scaling ×8 from 64 tokens, heads of 12
    draws(session, "positional")
    cfg = loaders.load_model(session.session_state["model"]).config
    angles = named_z(session, "positional.model.rope.angles")
    n = angles.shape[0]
    want = np.mod(rope_angles(torch.arange(n), 12, cfg.positional_base, RopeScaling.of(cfg)).numpy(), 2 * np.pi)
    np.testing.assert_allclose(angles, want, atol=1e-4)
    plain = np.mod(rope_angles(torch.arange(n), 12, cfg.positional_base).numpy(), 2 * np.pi)
    assert np.abs(angles - plain).max() > 0.1  # the slow pairs turn 8 times slower
    said = " ".join(shown(m.value) for m in session.markdown)
    assert "scaled as Llama 3.1's" in said and "longer than 64 tokens turn 8 times slower" in said
