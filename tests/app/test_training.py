"""The Training page under AppTest: every chart draws the view's numbers, and the views agree with training's
own code (core_model.training.train's schedule, the run's logits, the teacher-forced batch's loss)."""
import html

import numpy as np
import pytest
import torch

from core_model.importers import bert
from core_model.training.tasks import TASKS
from core_model.training.train import learning_rate
from core_model.training.train_log import read_log
from viz_app import loaders, own_model
from viz_app.i18n import text

from .conftest import assert_clean, chart_names, decode, named_chart, named_z, open_page

SENTENCE = "the small girl does not see the red car"
SHIPPED = ("translate-en-fr", "lm-en", "reverse")


def _charts(at):
    return set(chart_names(at))


@pytest.mark.parametrize("model", SHIPPED)
def test_every_section_draws_for_a_shipped_model(model):
    at = open_page("training", model=model, src=SENTENCE)
    assert_clean(at)
    expected = {"training.schedule", "training.smoothing", "training.teacher.tgt_in", "training.teacher.tgt_out",
                "training.teacher.loss", "training.teacher.causal"}
    # every shipped model keeps its run: the log's three charts and the heads forming (with the AER where a gold
    # alignment exists, the encoder-decoder tasks)
    expected |= {"training.log.loss", "training.log.lr", "training.log.grad_norm", "training.forming.grid"}
    if TASKS[model].config["architecture"] == "encoder-decoder":
        expected |= {"training.teacher.src", "training.forming.aer"}
    assert _charts(at) == expected
    log = read_log(loaders.model_folder(model))
    loss = named_chart(at, "training.log.loss")["data"][0]
    assert decode(loss["x"]).tolist() == log.step.tolist() and np.allclose(decode(loss["y"]), log.train_loss)
    assert any(model in e.label for e in at.expander)  # the model card, folded


def test_the_schedule_chart_is_the_sliders_and_the_shipped_models_own():
    at = open_page("training", model="translate-en-fr", src=SENTENCE)
    task = TASKS["translate-en-fr"]
    ours, trained = named_chart(at, "training.schedule")["data"]
    lr = decode(ours["y"])
    assert int(np.argmax(lr)) + 1 == 4000 and decode(ours["x"])[0] == 1  # the sliders' defaults: 512, 4000
    assert lr[0] == pytest.approx(learning_rate(1, 512, 4000, 1.0), rel=1e-12)
    steps, trained_lr = decode(trained["x"]), decode(trained["y"])
    assert len(steps) == task.steps
    log = read_log(loaders.model_folder("translate-en-fr"))  # the rates the shipped run logged as it trained
    assert trained_lr[log.step - 1].tolist() == pytest.approx(log.lr.tolist(), rel=1e-12)
    assert task.cooldown and trained_lr[-1] < trained_lr[-2] < trained_lr[-3]  # its cool-down, drawn and said
    assert text("training.schedule.cooldown", "en", model=task.name, n=round(task.cooldown * task.steps)) in [
        c.value for c in at.caption]
    at.select_slider(key="training.warmup").set_value(400).run()
    assert_clean(at)
    assert int(np.argmax(decode(named_chart(at, "training.schedule")["data"][0]["y"]))) + 1 == 400
    assert at.query_params["training.warmup"] == "400"


def test_the_smoothing_bars_are_the_runs_probabilities_and_the_smoothed_target():
    at = open_page("training", model="translate-en-fr", src=SENTENCE)
    at.selectbox(key="training.position").set_value(2).run()
    at.select_slider(key="training.eps").set_value(0.2).run()
    assert_clean(at)
    run = loaders.run("translate-en-fr", SENTENCE)
    p = torch.softmax(torch.tensor(run.trace["logits"][0, 2], dtype=torch.float64), -1).numpy()
    model_p, target_q = named_chart(at, "training.smoothing")["data"]
    target = run.tgt_ids[3]  # position 2 predicts the decoder's token 3
    vocab = p.shape[0]
    np.testing.assert_allclose(decode(model_p["y"])[0], p[target], rtol=1e-12)
    np.testing.assert_allclose(decode(model_p["y"])[1:], np.sort(np.delete(p, target))[::-1][:11], rtol=1e-12)
    np.testing.assert_allclose(decode(target_q["y"]), [0.8 + 0.2 / vocab] + [0.2 / vocab] * 11, rtol=1e-12)
    title = named_chart(at, "training.smoothing")["layout"]["title"]["text"]
    assert run.tgt_labels[3] in title and "ε = 0.2" in title
    # the rare mass the page states is the run's own
    rare = p[p < 1e-3].sum()
    assert any(f"{rare:.1%}" in m.value for m in at.markdown)


def test_a_token_with_markup_is_escaped_in_the_smoothing_title():
    text = "<b>bold</b> and <s>struck</s>"
    at = open_page("training", model="lm-en", src=text)
    labels = loaders.run("lm-en", text).tgt_labels[1:]
    position = next(i for i, label in enumerate(labels) if "<" in label)
    at.selectbox(key="training.position").set_value(position).run()
    assert_clean(at)
    title = named_chart(at, "training.smoothing")["layout"]["title"]["text"]
    assert html.escape(labels[position], quote=False) in title and "<" not in title  # plotly reads < as markup


def test_the_loss_grid_is_the_batchs_loss_and_padding_is_empty():
    at = open_page("training", model="reverse", src=SENTENCE)
    batch = loaders.teacher_batch("reverse")
    z = named_z(at, "training.teacher.loss")
    pad = batch.tgt_out == 0
    assert np.isnan(z[pad]).all()
    np.testing.assert_allclose(z[~pad], batch.loss[~pad].astype(np.float32), rtol=1e-6)
    kept = named_z(at, "training.teacher.tgt_in")
    assert (kept == (batch.tgt_in != 0)).all()
    causal = named_z(at, "training.teacher.causal")  # position i may read keys 0 … i
    assert (causal == np.tril(np.ones((batch.tgt_in.shape[1],) * 2))).all()
    labels = named_chart(at, "training.teacher.causal")["data"][0]["x"]
    assert labels[:2] == ["0·&lt;s&gt;", f"1·{batch.pieces['tgt_in'][0][1]}"]  # pair 0's decoder input, escaped


def test_in_chinese_every_heading_is_chinese():
    at = open_page("training", model="translate-en-fr", src=SENTENCE, lang="zh")
    assert_clean(at)
    assert at.title[0].value == "训练"
    assert [h.value for h in at.header] == ["这个模型的训练过程", "注意力头的形成", "现场训练一个模型", "学习率调度", "标签平滑", "教师强制：一个训练批次"]
    assert "学习率" in named_chart(at, "training.schedule")["layout"]["yaxis"]["title"]["text"]


def test_an_encoder_only_model_gets_the_schedule_and_a_message():
    at = open_page("training", model=bert.MINILM, src=SENTENCE)
    assert_clean(at)
    assert _charts(at) == {"training.schedule"}
    assert len(named_chart(at, "training.schedule")["data"]) == 1  # no shipped run of ours to draw beside it
    assert [i.value for i in at.info] == [text("training.card.none.pretrained", "en", model=bert.MINILM),
                                          text("training.smoothing.none", "en", model=bert.MINILM)]
    assert "ships with this app" in at.info[0].value and "not one of the models shipped" not in at.info[0].value


def test_a_link_with_a_warm_up_off_the_slider_is_said_and_the_default_used():
    at = open_page_with_link("training.warmup=123")
    assert_clean(at)
    assert any("training.warmup = 123" in w.value for w in at.warning)
    assert int(np.argmax(decode(named_chart(at, "training.schedule")["data"][0]["y"]))) + 1 == 4000


def open_page_with_link(query: str):
    from streamlit.testing.v1 import AppTest

    from .conftest import APP
    at = AppTest.from_file(APP, default_timeout=60)
    for pair in query.split("&"):
        key, value = pair.split("=")
        at.query_params[key] = value
    at.session_state["model"], at.session_state["src"] = "translate-en-fr", SENTENCE
    at.switch_page("app_pages/training.py")
    return at.run()


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A tiny reversal model trained here for 20 steps (its log and snapshots in its checkpoint), zipped as a
    user would upload it."""
    from core_model import checkpoints
    from core_model.training.train import train
    from tests.bad_checkpoints import zip_of
    from tests.core.test_train import TINY

    out = tmp_path_factory.mktemp("tiny") / "run"
    train(TINY, out, steps=20, validate_every=10, save_every=10, log_every=5, progress=False)
    folder = out / "checkpoint"
    return folder, zip_of({n: (folder / n).read_bytes() for n in checkpoints.files() if (folder / n).is_file()})


def test_heads_forming_draws_an_uploaded_runs_saved_patterns_step_by_step(trained, tmp_path, monkeypatch):
    from core_model.training.snapshots import read_snapshots

    from .conftest import grid_tile
    monkeypatch.setattr(own_model, "OWN_DIR", tmp_path / "own")
    folder, data = trained
    snaps = read_snapshots(folder)
    at = open_page("training", src="one two three four five")
    at.sidebar.file_uploader[0].set_value(("tiny.zip", data, "application/zip"))
    at.run()
    assert_clean(at)
    cross = snaps.probes[0]["blocks"]["decoder.cross_attn"]  # [steps, layers, heads, q, k]
    assert at.select_slider(key="training.forming.step").value == 0
    np.testing.assert_array_equal(grid_tile(at, "training.forming.grid", 1, 1), cross[0, 1, 1])
    at.select_slider(key="training.forming.step").set_value(20).run()
    np.testing.assert_array_equal(grid_tile(at, "training.forming.grid", 1, 1), cross[-1, 1, 1])
    aer = named_chart(at, "training.forming.aer")["data"]
    np.testing.assert_allclose([decode(line["y"]) for line in aer], snaps.aer.T, rtol=1e-6)
    loss = named_chart(at, "training.forming.loss")["data"][0]
    assert decode(loss["x"]).tolist() == [5, 10, 15, 20]  # the log's rows up to the chosen step
    at.toggle(key="training.forming.play").set_value(True).run()  # play: the next saved step on each rerun
    assert at.select_slider(key="training.forming.step").value == 0  # after the last, from the start again
    at.run()
    assert at.select_slider(key="training.forming.step").value == int(snaps.steps[1])
