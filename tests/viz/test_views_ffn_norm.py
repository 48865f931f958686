"""The FFN & normalization views on hand-made arrays: expected values written out by hand."""
import numpy as np
import pytest

from tests.viz import fake
from viz_app.views import ffn_norm as view

CFG_POST = type("Cfg", (), {"norm_placement": "post", "norm": "layernorm", "norm_eps": 0.0, "activation": "relu",
                            "block": "sequential"})


def one_layer_run():
    # one token, two positions; each stage's vectors chosen so their norms are whole numbers
    return fake.run({"src_embed.out": [[[3, 4], [0, 1]]],
                     "encoder.layers.0.resid_pre": [[[3, 4], [0, 1]]],
                     "encoder.layers.0.resid_mid": [[[6, 8], [0, 2]]],
                     "encoder.layers.0.norm1": [[[-1, 1], [-1, 1]]],
                     "encoder.layers.0.ffn.hidden": [[[0, 2, 0, 1], [1, 1, 1, 0]]],
                     "encoder.layers.0.resid_post": [[[0, 5], [0, 3]]],
                     "encoder.layers.0.norm2": [[[1, -1], [-1, 1]]]}, arch="encoder", src=("0·a", "1·b"))


def test_stream_norms_follow_the_stages_and_skip_what_enters_a_layer():
    s = view.stream(one_layer_run(), "encoder", pre_norm=False)
    assert s.stages == ((None, "embed"), (0, "resid_mid"), (0, "norm1"), (0, "resid_post"), (0, "norm2"))
    root2 = np.sqrt(2)
    np.testing.assert_allclose(s.norms, [[5, 1], [10, 2], [root2, root2], [5, 3], [root2, root2]])
    assert s.labels == ("0·a", "1·b")


def test_pre_norm_stream_is_the_sums_alone():
    s = view.stream(one_layer_run(), "encoder", pre_norm=True)
    assert s.stages == ((None, "embed"), (0, "resid_mid"), (0, "resid_post"))


def test_hidden_counts_switched_off_units():
    h = view.hidden(one_layer_run(), "encoder", 0, "relu")
    np.testing.assert_allclose(h.inactive, [0.5, 0.25])
    assert view.inactive_fraction([[-1.0, 0.5]], "gelu").tolist() == [0.5]


def test_norm_reads_what_norm1_normalizes():
    n = view.norm(one_layer_run(), "encoder", 0, 0, CFG_POST)  # post-norm: x + attention(x)
    assert n.source == "encoder.layers.0.resid_mid"
    np.testing.assert_array_equal(n.before, [6, 8])
    np.testing.assert_array_equal(n.after, [-1, 1])
    assert n.moments["before"] == {"mean": 7.0, "std": 1.0, "rms": pytest.approx(np.sqrt(50))}
    assert n.moments["standardized"]["mean"] == 0 and n.moments["standardized"]["std"] == pytest.approx(1)
    assert view.norm_input_name("decoder", 2, pre_norm=True) == "decoder.layers.2.resid_pre"


def test_standardized_rms():
    np.testing.assert_allclose(view.standardized([3.0, 4.0], "rmsnorm", 0.0), np.array([3, 4]) / np.sqrt(12.5))


def test_lens_cells_list_each_positions_top_tokens_per_layer():
    lens = type("Lens", (), {"top_pieces": ((("le", "la"), ("chat", "x")), (("la", "le"), ("chien", "chat"))),
                             "top_probs": np.array([[[0.5, 0.25], [0.75, 0.125]], [[0.5, 0.5], [1.0, 0.0]]])})
    assert view.lens_cells(lens) == [["le 0.50 · la 0.25", "la 0.50 · le 0.50"],
                                     ["chat 0.75 · x 0.12", "chien 1.00 · chat 0.00"]]


def test_formulas_name_the_activation_and_the_norm():
    ffn, norm = view.formulas(CFG_POST)
    assert r"\mathrm{ReLU}(x W_1" in ffn and r"\mathrm{Norm}(x + \mathrm{Sublayer}(x))" in norm and "LayerNorm" in norm
    assert r"\mathrm{GELU}_{\tanh}(x W_1" in view.formulas(type("Cfg", (CFG_POST,), {"activation": "gelu_tanh"}))[0]  # GPT-2's


def test_a_parallel_layers_formula_adds_both_blocks_to_its_input():
    pythia = type("Cfg", (CFG_POST,), {"norm_placement": "pre", "block": "parallel"})
    phi = type("Cfg", (pythia,), {"block": "parallel_shared"})
    assert r"x + \mathrm{Attn}(\mathrm{Norm}_1(x)) + \mathrm{FFN}(\mathrm{Norm}_2(x))" in view.formulas(pythia)[1]
    assert r"x + \mathrm{Attn}(\mathrm{Norm}(x)) + \mathrm{FFN}(\mathrm{Norm}(x))" in view.formulas(phi)[1]
    assert "Sublayer" not in view.formulas(phi)[1]
