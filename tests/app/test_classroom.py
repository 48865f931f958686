"""The classroom under AppTest: predict-then-reveal on the explorer, the masks and the positional lab (the
self-attention and decoding pages are played in a browser, tests/e2e/test_classroom_browser.py), presenter
mode's folded prose and readable charts, and the guided lesson's panel.

Every right answer is computed here from the model or from the formula, never read from the page.
"""
from types import SimpleNamespace

import numpy as np
import pytest

from core_model import load
from core_model.nn.positional import sinusoidal_table
from core_model.trace import run_with_trace
from viz_app.figures.present import rows_height
from viz_app.loaders import MODELS_DIR
from viz_app.sidebar import EXAMPLES

from .conftest import assert_clean, chart_names, named_chart, named_z, open_page


def question(at):
    """The pills a student picks from: the only predict-then-reveal widget on a page."""
    found = [p for p in at.pills if p.key.startswith("predict.pick.")]
    assert len(found) == 1
    return found[0]


def test_the_explorer_hides_every_head_until_the_guess_then_scores_it():
    model = load(MODELS_DIR / "translate-en-fr")
    ids = model.tokenizers["src"].encode(EXAMPLES["translate-en-fr"])
    _, trace = run_with_trace(model.model, ids, [model.config.bos_id])
    n_heads = model.config.n_heads
    previous = np.array([[np.diagonal(trace.attn("encoder", layer, "self_attn").pattern[0, head], -1).mean()
                          for head in range(n_heads)] for layer in range(model.config.n_encoder_layers)])
    best = int(np.argmax(previous))
    at = open_page("explorer", predict=True)
    assert_clean(at)
    assert chart_names(at) == []  # the grid and the statistics would answer it
    pick = question(at)
    assert pick.options[best] == f"L{best // n_heads}·H{best % n_heads}"
    pick.set_value(best).run()
    assert_clean(at)
    assert "Right" in at.success[0].value and f"{previous.flat[best]:.3f}" in at.success[0].value
    assert "explorer.grid" in chart_names(at) and any("1 of 1" in c.value for c in at.caption)


def test_the_masks_page_asks_which_keys_the_causal_mask_blocks():
    at = open_page("masks", model="lm-en", predict=True)
    assert_clean(at)
    assert not [n for n in chart_names(at) if n.startswith("masks.")]
    pick = question(at)
    n = len(pick.options)
    row = n // 2
    blocked = list(range(row + 1, n))  # a causal mask: no key after the query's own position
    pick.set_value([blocked[0]]).run()  # only one of them: wrong
    at.button(key=[b.key for b in at.button if b.key.startswith("predict.check.")][0]).click().run()
    assert_clean(at)
    assert "Not this time" in at.error[0].value
    said = at.error[0].value.split("answer is")[1]
    shown = [o.replace("\\", "") for o in pick.options]  # a pill's label is Markdown, its < > escaped
    assert all(f"`{shown[j]}`" in said for j in blocked) and f"({len(blocked)})" in said
    assert "masks.mask.causal" in chart_names(at)
    causal = named_z(at, "masks.mask.causal")
    assert np.flatnonzero(causal[row] == 0).tolist() == blocked  # the chart shows the same cells blocked


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_positional_lab_asks_for_the_most_similar_position_and_both_neighbours_are_right(lang):
    at = open_page("positional", predict=True, lang=lang)
    assert_clean(at)
    assert "positional.similarity" not in chart_names(at) and "positional.table" in chart_names(at)
    pick = question(at)
    pe = sinusoidal_table(100, 128).double().numpy()  # the lab's defaults: 100 positions, d_model 128
    sim = pe[5] @ pe.T
    best = max((p for p in range(12) if p != 5), key=lambda p: sim[p])
    assert best in (4, 6) and abs(sim[4] - sim[6]) < 1e-6 * abs(sim[4])
    pick.set_value(pick.options.index("6")).run()
    assert_clean(at)
    assert len(at.success) == 1 and "positional.similarity" in chart_names(at)


def test_presenter_mode_folds_the_prose_and_makes_every_label_18_px():
    at = open_page("self_attention", present=True)
    assert_clean(at)
    assert at.main.expander[0].label == "What this page shows, and its formula"
    assert at.main.expander[0].latex  # the formula folded with the text
    fig = named_chart(at, "self_attention.x")
    layout = fig["layout"]
    assert layout["font"]["size"] >= 18 and layout["title"]["font"]["size"] >= 18
    rows = len(fig["data"][0]["y"])  # labelled one by one (heatmap.every_label): each gets an 18 px label's 24 px
    traces = [SimpleNamespace(yaxis=trace.get("yaxis"), y=trace.get("y")) for trace in fig["data"]]
    assert layout["yaxis"]["dtick"] == 1 and layout["height"] == max(380, rows_height(layout, traces)) >= rows * 24
    assert all(layout[a]["tickfont"]["size"] >= 18 for a in layout if a.startswith(("xaxis", "yaxis")))
    assert [b.key for b in at.button if b.key.startswith("self_attention.stage.")] == [
        "self_attention.stage.back", "self_attention.stage.next"]
    assert chart_names(at) == ["self_attention.x"]  # one stage at a time
    at.button(key="self_attention.stage.next").click().run()
    assert chart_names(at) == ["self_attention.w_q", "self_attention.w_k", "self_attention.w_v"]
    plain = open_page("self_attention")
    assert not plain.main.expander and named_chart(plain, "self_attention.x")["layout"].get("font", {}).get("size") != 18


def test_the_lesson_panel_shows_its_step_and_says_when_the_step_is_on_another_page():
    at = open_page("self_attention", lesson=4)
    assert_clean(at)
    assert any("step 4 of 11" in m.value for m in at.markdown)
    assert at.button(key="lesson.next").label == "Next ▶" and not at.button(key="lesson.back").disabled
    elsewhere = open_page("masks", lesson=4)
    assert any("Self-attention step by step" in c.value for c in elsewhere.caption)
    last = open_page("explorer", lesson=11, lang="zh")  # the induction heads' step is on the explorer
    assert last.button(key="lesson.next").label == "结束课程"
    assert not [b for b in last.button if b.key == "lesson.go"]  # on its own page: no button to go there


def test_the_attribution_page_asks_which_token_gets_the_most_credit_and_the_table_agrees():
    at = open_page("attribution", predict=True, timeout=120)
    assert_clean(at)
    assert chart_names(at) == [] and not at.dataframe  # the chart and the table would answer it
    pick = question(at)
    src = load(MODELS_DIR / "translate-en-fr").tokenizers["src"].encode(EXAMPLES["translate-en-fr"])
    assert len(pick.options) == len(src)  # the source tokens
    pick.set_value(0).run()
    assert_clean(at)
    credit = at.dataframe[0].value["Integrated gradients"].to_numpy()
    best = int(np.argmax(credit))
    assert "attribution.methods" in chart_names(at)
    if best == 0:
        assert "Right" in at.success[0].value and f"{credit[0]:.3f}" in at.success[0].value
    else:
        assert "Not this time" in at.error[0].value and f"{credit[best]:.3f}" in at.error[0].value
