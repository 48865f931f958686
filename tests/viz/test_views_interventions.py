"""The knock-out section's views (viz_app/views/interventions.py): which tokens changed, the sweep's grids, and a
link's list of heads read as literals only, never run, bounded."""
from __future__ import annotations

import numpy as np
import pytest

from viz_app.views.interventions import MAX_LINK_HEADS, changed, parse_heads, sweep


def test_a_token_differs_where_the_original_has_another_or_none():
    assert changed((1, 2, 3), (1, 5, 3, 4)) == [False, True, False, True]
    assert changed((1, 2), ()) == []


def test_the_sweep_puts_each_heads_drop_in_its_blocks_grid_and_names_the_strongest():
    heads = [("encoder.self_attn", 0, 0), ("encoder.self_attn", 0, 1), ("decoder.cross_attn", 1, 0)]
    found = sweep(heads, {heads[0]: -2.0, heads[2]: -5.0}, base=-1.0)  # the second head not tried in time
    assert found.tried == 2 and found.total == 3 and not found.done
    np.testing.assert_array_equal(found.drops["encoder.self_attn"], [[1.0, np.nan]])
    assert found.drops["decoder.cross_attn"][1, 0] == 4.0 and np.isnan(found.drops["decoder.cross_attn"][0, 0])
    assert found.strongest() == ("decoder.cross_attn", 1, 0)


@pytest.mark.parametrize("raw", ["rm -rf /", "__import__('os').system('true')", "[" * 3000, "[" * (MAX_LINK_HEADS + 1),
                                 "[(1, 2, 3)]", "[('a', 1)]", "[('a', True, 2)]", "{'a': 1}", "''"])
def test_a_links_list_of_heads_is_literals_only_and_anything_else_is_refused(raw):
    with pytest.raises(ValueError):
        parse_heads(raw)


def test_a_links_list_of_heads_reads_back_as_the_page_wrote_it():
    heads = [("encoder.self_attn", 2, 1), ("decoder.cross_attn", 0, 3)]
    assert parse_heads(str(heads)) == heads and parse_heads("[]") == []
