"""The one block table."""
from types import SimpleNamespace as NS

from tests.viz import fake
from viz_app.views import blocks


def test_each_architecture_has_its_blocks_in_page_order():
    def cfg(enc, dec):
        return NS(has_encoder=enc, has_decoder=dec)

    assert blocks.blocks(cfg(True, True)) == ("encoder.self_attn", "decoder.self_attn", "decoder.cross_attn")
    assert blocks.blocks(cfg(True, False)) == ("encoder.self_attn",)
    assert blocks.blocks(cfg(False, True)) == ("decoder.self_attn",)
    assert blocks.stacks(cfg(True, True)) == ("encoder", "decoder") and blocks.stacks(cfg(False, True)) == ("decoder",)


def test_sides_of_queries_and_keys():
    assert blocks.SIDES["decoder.cross_attn"] == ("tgt", "src")
    assert blocks.split("decoder.cross_attn") == ("decoder", "cross_attn")
    assert (blocks.side_of("encoder"), blocks.side_of("decoder")) == ("src", "tgt")
    run = fake.run(src=("0·a",), tgt=("0·<s>",), src_ids=(5,), tgt_ids=(2,))
    assert blocks.labels(run, "tgt") == ("0·<s>",) and blocks.ids(run, "src") == (5,)
