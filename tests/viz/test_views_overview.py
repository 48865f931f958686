"""views/overview.py on hand-made inputs: the embedding row, the diagram's sizes and words, the parameter table."""
from types import SimpleNamespace

import numpy as np

from viz_app.figures.diagram import model_diagram
from viz_app.views.overview import BOXES, diagram, embedding_row, parameters

CFG = SimpleNamespace(architecture="encoder-decoder", d_model=8, n_heads=2, d_ff=32, n_encoder_layers=3,
                      n_decoder_layers=1, tgt_vocab_size=50)
RUN = SimpleNamespace(src_ids=(4, 5, 6, 3), tgt_ids=(2, 7), src_labels=(), tgt_labels=())


def test_embedding_row_is_one_row():
    row = embedding_row([0.6, 0.8, 0.0])
    assert row.shape == (1, 3) and row.dtype == np.float32
    np.testing.assert_allclose(row[0], [0.6, 0.8, 0.0])


def test_diagram_has_the_sizes_and_the_sentence_lengths():
    d = diagram(CFG, RUN)
    assert (d.arch, d.d_model, d.vocab, d.n_src, d.n_tgt) == ("encoder-decoder", 8, 50, 4, 2)
    words = dict(d.words)
    assert tuple(words) == BOXES
    assert words["encoder"]["n"] == 3 and words["decoder"]["n"] == 1 and words["ffn"]["n"] == 0
    assert words["ffn"] == {"n": 0, "h": 2, "d": 8, "ff": 32, "v": 50}


def test_the_diagram_draws_the_views_numbers():
    d = diagram(CFG, RUN)
    dot = model_diagram(d, {box: f"{box}:{fields['n']}" for box, fields in d.words})
    assert "encoder:3" in dot and "[4 × 8]" in dot and "[2 × 50]" in dot and 'encoder -> decoder' in dot


def test_a_decoder_only_diagram_has_no_source():
    cfg = SimpleNamespace(**{**vars(CFG), "architecture": "decoder", "n_encoder_layers": 0})
    d = diagram(cfg, SimpleNamespace(src_ids=(), tgt_ids=(2, 9, 9)))
    assert (d.n_src, d.n_tgt) == (0, 3)
    assert "src_embed" not in model_diagram(d, {box: box for box in BOXES})


def test_parameters_list_each_part_and_the_total():
    p = parameters({"src_embed": 10, "encoder": 200, "generator": 5})
    assert p.parts == (("src_embed", 10), ("encoder", 200), ("generator", 5)) and p.total == 215
