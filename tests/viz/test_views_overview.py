"""views/overview.py on hand-made inputs: the embedding row, the diagram's sizes and words, the parameter table."""
from types import SimpleNamespace

import numpy as np

from tests.viz import fake
from viz_app.figures.diagram import model_diagram
from viz_app.views.overview import BOXES, diagram, embedding_row, parameters

CFG = SimpleNamespace(architecture="encoder-decoder", d_model=8, n_heads=2, d_ff=32, n_encoder_layers=3,
                      n_decoder_layers=1, tgt_vocab_size=50, positional="sinusoidal", scale_embedding=True,
                      type_vocab_size=0, embed_norm=False, block="sequential")


def traced(pos, arch, **ids):
    """A run whose trace records a position vector (pos=True) or none (ALiBi, RoPE) on each side it reads."""
    return fake.run(arch=arch, embed=("pos",) if pos else (), d_model=8, **ids)


RUN = traced(True, "encoder-decoder", src_ids=(4, 5, 6, 3), tgt_ids=(2, 7))


def test_embedding_row_is_one_row():
    row = embedding_row([0.6, 0.8, 0.0])
    assert row.shape == (1, 3) and row.dtype == np.float32
    np.testing.assert_allclose(row[0], [0.6, 0.8, 0.0])


def test_diagram_has_the_sizes_and_the_sentence_lengths():
    d = diagram(CFG, RUN)
    assert (d.arch, d.d_model, d.vocab, d.n_src, d.n_tgt) == ("encoder-decoder", 8, 50, 4, 2)
    words = dict(d.words)
    assert tuple(words) == (*BOXES, "embed.scaled.pos") and d.embed == ("embed.scaled.pos",) and d.attn_note is None
    assert words["encoder"]["n"] == 3 and words["decoder"]["n"] == 1 and words["ffn"]["n"] == 0
    assert words["ffn"] == {"n": 0, "h": 2, "d": 8, "ff": 32, "v": 50}


def test_the_diagram_draws_the_views_numbers():
    d = diagram(CFG, RUN)
    dot = model_diagram(d, {box: f"{box}:{fields['n']}" for box, fields in d.words})
    assert "encoder:3" in dot and "[4 × 8]" in dot and "[2 × 50]" in dot and 'encoder -> decoder' in dot


def test_a_decoder_only_diagram_has_no_source():
    cfg = SimpleNamespace(**{**vars(CFG), "architecture": "decoder", "n_encoder_layers": 0})
    d = diagram(cfg, traced(True, "decoder", src_ids=(), tgt_ids=(2, 9, 9)))
    assert (d.n_src, d.n_tgt) == (0, 3)
    assert "src_embed" not in model_diagram(d, {key: key for key, _ in d.words})


def words_of(d):
    return {key: f"<{key}>" for key, _ in d.words}


def test_an_alibi_diagram_adds_no_position_vector_and_biases_every_attention_box():
    """lm-en: scaled embeddings, ALiBi; the trace has no position vector, the attention boxes say the bias."""
    cfg = SimpleNamespace(**{**vars(CFG), "architecture": "decoder", "positional": "alibi"})
    d = diagram(cfg, traced(False, "decoder", src_ids=(), tgt_ids=(2, 9)))
    assert d.embed == ("embed.scaled",) and d.attn_note == "pos.alibi"
    dot = model_diagram(d, words_of(d))
    assert "<embed.scaled>" in dot and "pos>" not in dot.replace("<pos.alibi>", "")
    assert "<masked_self_attn>\n<pos.alibi>" in dot  # on the decoder's attention


def test_an_unscaled_model_with_learned_positions_says_so():
    """MiniLM: BERT does not multiply by √d_model (its config says so), adds learned position and token-type
    vectors, then normalizes."""
    cfg = SimpleNamespace(**{**vars(CFG), "architecture": "encoder", "positional": "learned",
                             "scale_embedding": False, "type_vocab_size": 2, "embed_norm": True})
    d = diagram(cfg, traced(True, "encoder", src_ids=(1, 2, 3), tgt_ids=()))
    assert d.embed == ("embed.pos", "embed.type", "embed.norm") and d.attn_note is None
    assert "<embed.pos>\n<embed.type>\n<embed.norm>\n[3 × 8]" in model_diagram(d, words_of(d))


def test_a_parallel_layer_says_so_under_its_ffn():
    """Pythia: attention and FFN read the layer's input side by side; a sequential layer has no such line."""
    cfg = SimpleNamespace(**{**vars(CFG), "architecture": "decoder", "positional": "rope", "block": "parallel"})
    d = diagram(cfg, traced(False, "decoder", src_ids=(), tgt_ids=(2, 9)))
    assert d.block_note == "block.parallel" and diagram(CFG, RUN).block_note is None
    assert "<ffn>\n<block.parallel>\n[2 × 8]" in model_diagram(d, words_of(d))


def test_parameters_list_each_part_and_the_total():
    p = parameters({"src_embed": 10, "encoder": 200, "generator": 5})
    assert p.parts == (("src_embed", 10), ("encoder", 200), ("generator", 5)) and p.total == 215
