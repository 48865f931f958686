"""Comparing two heads on the explorer: the difference drawn is head A − head B exactly, over the arrays drawn."""
import numpy as np

from core_model import load
from core_model.trace import run_with_trace
from viz_app.loaders import DEFAULT_MODEL, MODELS_DIR
from viz_app.sidebar import EXAMPLES

from .conftest import assert_clean, chart_names, named_z, open_page


def test_the_difference_is_the_first_head_minus_the_second_and_the_heads_are_the_models():
    at = open_page("explorer", **{"explorer.compare.a": "encoder.self_attn:0:1",
                                  "explorer.compare.b": "encoder.self_attn:2:3"})
    assert_clean(at)
    a, b, diff = (named_z(at, f"explorer.compare.{w}") for w in ("a", "b", "diff"))
    assert np.array_equal(diff, (a - b).astype(np.float32))  # float32 − float32 is rounded once either way
    loaded = load(MODELS_DIR / DEFAULT_MODEL)
    _, trace = run_with_trace(loaded.model, loaded.tokenizers["src"].encode(EXAMPLES[DEFAULT_MODEL]),
                              [loaded.config.bos_id])
    np.testing.assert_array_equal(a, trace.attn("encoder", 0, "self_attn").pattern[0, 1])
    np.testing.assert_array_equal(b, trace.attn("encoder", 2, "self_attn").pattern[0, 3])
    table = at.dataframe[-1].value
    assert np.isclose(abs(table.iloc[0, 4]), np.abs(diff).max(), atol=1e-6)  # the largest change first
    assert at.query_params["explorer.compare.b"] == "encoder.self_attn:2:3"  # in the link


def test_heads_over_different_tokens_are_shown_without_a_difference():
    at = open_page("explorer", **{"explorer.compare.a": "encoder.self_attn:0:0",
                                  "explorer.compare.b": "decoder.cross_attn:0:0"})
    assert_clean(at)
    assert "explorer.compare.b" in chart_names(at) and "explorer.compare.diff" not in chart_names(at)
    assert any("no cell-by-cell difference" in i.value for i in at.info)
