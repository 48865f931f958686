"""Worked example: the grids drive every matrix, exactly as numpy computes it; bad cells get a message."""

import numpy as np

from core_model.importers import bert
from viz_app import loaders
from viz_app.views.worked_example import WORKED
from tests.app.conftest import assert_clean, decode, named_chart, open_page

DEFAULTS = {name: np.array(grid, dtype=np.float64) for name, grid in WORKED.items()}


def spec(at, name: str) -> dict:
    return named_chart(at, f"worked_example.{name}")


def z(at, name: str) -> np.ndarray:
    return decode(spec(at, name)["data"][0]["z"]).astype(np.float64)


def expected(x, wq, wk, wv, causal=False):
    """Attention in plain numpy, independent of the page's code."""
    q, k, v = x @ wq, x @ wk, x @ wv
    scores = q @ k.T / np.sqrt(4)
    if causal:
        scores = np.where(np.tril(np.ones((3, 3))) > 0, scores, -np.inf)
    e = np.exp(scores - scores.max(-1, keepdims=True))
    weights = e / e.sum(-1, keepdims=True)
    return q, weights, weights @ v


def edit(at, grid: str, rows: dict):
    """Seed a data editor's cell edits, as AppTest allows: {row: {column: value}}."""
    at.session_state[f"worked_example.{grid}"] = {"edited_rows": rows, "added_rows": [], "deleted_rows": []}


def test_default_grids_give_numpys_matrices_with_numbers_in_the_cells():
    at = open_page("worked_example")
    assert_clean(at)
    q, weights, out = expected(DEFAULTS["X"], DEFAULTS["W_Q"], DEFAULTS["W_K"], DEFAULTS["W_V"])
    np.testing.assert_allclose(z(at, "q"), q, rtol=1e-6)
    np.testing.assert_allclose(z(at, "pattern"), weights, rtol=1e-5)
    np.testing.assert_allclose(z(at, "z"), out, rtol=1e-5)
    assert spec(at, "pattern")["data"][0]["text"][0] == [f"{w:.2f}" for w in weights[0]]
    assert spec(at, "pattern")["data"][0]["y"] == ["0·I", "1·love", "2·cats"]
    assert [e.key for e in at.data_editor] == [f"worked_example.{g}" for g in ("X", "W_Q", "W_K", "W_V")]


def test_editing_one_cell_of_w_q_changes_q_and_the_softmax_exactly():
    at = open_page("worked_example")
    before = z(at, "pattern")
    edit(at, "W_Q", {2: {"1": 3.0}})
    at.run()
    assert_clean(at)
    wq = DEFAULTS["W_Q"].copy()
    wq[2, 1] = 3.0
    q, weights, out = expected(DEFAULTS["X"], wq, DEFAULTS["W_K"], DEFAULTS["W_V"])
    np.testing.assert_allclose(z(at, "q"), q, rtol=1e-6)
    np.testing.assert_allclose(z(at, "pattern"), weights, rtol=1e-5)
    np.testing.assert_allclose(z(at, "z"), out, rtol=1e-5)
    assert not np.allclose(before, weights)


def test_causal_mask_blocks_later_tokens():
    at = open_page("worked_example")
    at.checkbox(key="worked_example.causal").check().run()
    assert_clean(at)
    _, weights, _ = expected(DEFAULTS["X"], DEFAULTS["W_Q"], DEFAULTS["W_K"], DEFAULTS["W_V"], causal=True)
    np.testing.assert_allclose(z(at, "pattern"), weights, rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(z(at, "mask"), np.tril(np.ones((3, 3))))
    masked = spec(at, "scores_masked")["data"][0]
    assert np.isnan(decode(masked["z"])[0, 1]) and masked["text"][0][1] == "−∞"


def test_bad_cells_are_explained_and_replaced():
    at = open_page("worked_example")
    edit(at, "X", {0: {"2": 5000.0, "token": "you"}})
    edit(at, "W_K", {1: {"0": None}})
    at.run()
    assert_clean(at)
    warnings = [w.value for w in at.warning]
    assert any("X" in w and "100" in w for w in warnings) and any("W_K" in w and "0" in w for w in warnings)
    x, wk = DEFAULTS["X"].copy(), DEFAULTS["W_K"].copy()
    x[0, 2], wk[1, 0] = 100.0, 0.0
    q, weights, _ = expected(x, DEFAULTS["W_Q"], wk, DEFAULTS["W_V"])
    np.testing.assert_allclose(z(at, "q"), q, rtol=1e-6)
    np.testing.assert_allclose(z(at, "pattern"), weights, rtol=1e-5, atol=1e-12)
    assert spec(at, "q")["data"][0]["y"] == ["0·you", "1·love", "2·cats"]


def test_works_without_any_model(monkeypatch, tmp_path):
    monkeypatch.setattr(loaders.models, "MODELS_DIR", tmp_path)  # an empty models folder
    monkeypatch.setattr(bert, "minilm_path", lambda: None)  # and no MiniLM package
    at = open_page("worked_example")
    assert_clean(at)
    assert at.sidebar.error  # the sidebar says no model was found
    _, weights, _ = expected(DEFAULTS["X"], DEFAULTS["W_Q"], DEFAULTS["W_K"], DEFAULTS["W_V"])
    np.testing.assert_allclose(z(at, "pattern"), weights, rtol=1e-5)


def test_chinese_page_uses_chinese_words():
    at = open_page("worked_example", lang="zh")
    assert_clean(at)
    assert at.title[0].value == "手算示例"
    assert spec(at, "pattern")["data"][0]["y"] == ["0·我", "1·爱", "2·猫"]


def test_nan_infinity_and_huge_numbers_are_explained_and_replaced():
    at = open_page("worked_example")
    edit(at, "X", {0: {"0": float("nan"), "1": float("inf")}, 1: {"2": float("-inf"), "3": 1e308}})
    at.run()
    assert_clean(at)
    warnings = [w.value for w in at.warning]
    assert "X has 1 empty or non-numeric cell(s); they are counted as 0." in warnings
    assert "X has 3 number(s) beyond ±100; they were clipped to ±100." in warnings
    x = DEFAULTS["X"].copy()
    x[0, 0], x[0, 1], x[1, 2], x[1, 3] = 0.0, 100.0, -100.0, 100.0
    q, weights, out = expected(x, DEFAULTS["W_Q"], DEFAULTS["W_K"], DEFAULTS["W_V"])
    np.testing.assert_allclose(z(at, "q"), q, rtol=1e-6)
    np.testing.assert_allclose(z(at, "pattern"), weights, rtol=1e-5, atol=1e-12)
    assert np.isfinite(z(at, "z")).all()


def test_token_labels_typed_as_markup_emptied_or_long_are_shown_as_text():
    at = open_page("worked_example")
    edit(at, "X", {0: {"token": "<b>x</b>"}, 1: {"token": None}, 2: {"token": "a" * 30}})
    at.run()
    assert_clean(at)
    # Plotly reads a little HTML in labels; escaped, "<b>" is shown as typed instead of making the label bold.
    assert spec(at, "pattern")["data"][0]["y"] == ["0·&lt;b&gt;x&lt;/b&gt;", "1·", "2·" + "a" * 20]
