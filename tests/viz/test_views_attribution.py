"""The attribution page's view: outputs labelled by position, methods side by side on their own scales."""
import numpy as np
import pytest

from viz_app.views.attribution import completeness, outputs, side_by_side


def test_each_output_reads_one_token_and_predicts_the_next():
    assert outputs(("<s>", "the", "cat", "sat"), 10) == ("0: <s> → the", "1: the → cat", "2: cat → sat")
    assert outputs(("<s>", "the", "cat", "sat"), 2) == ("0: <s> → the", "1: the → cat")


def test_methods_keep_their_order_and_numbers_and_each_row_is_scaled_by_its_largest_magnitude():
    methods = {"integrated": [0.5, -2.0, 1.0], "rollout": [0.2, 0.5, 0.3], "times_input": [0.0, 0.0, 0.0]}
    side = side_by_side(methods, ("a", "b", "c"))
    assert side.methods == ("rollout", "times_input", "integrated")  # flow absent: not computed
    np.testing.assert_array_equal(side.values[2], [0.5, -2.0, 1.0])
    np.testing.assert_allclose(side.scaled[0], [0.4, 1.0, 0.6])
    np.testing.assert_array_equal(side.scaled[1], [0.0, 0.0, 0.0])  # nothing to scale: stays zero, no NaN
    np.testing.assert_allclose(side.scaled[2], [0.25, -1.0, 0.5])  # the sign is kept
    assert side.top == ("b", "a", "c")


def test_completeness_compares_the_sum_with_the_change():
    found = completeness([0.25, 0.5, 0.2], f_input=-1.0, f_baseline=-2.0)
    assert (found.total, found.change) == (pytest.approx(0.95), 1.0)
    assert found.gap == pytest.approx(0.05)
