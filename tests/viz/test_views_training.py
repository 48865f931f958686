"""The Training page's views against training's own code: core_model.training.train's schedule, torch's label-smoothed
cross-entropy, and core_model.training.tasks' teacher-forced batch and loss."""
import math

import numpy as np
import pytest
import torch

from core_model import checkpoints
from core_model.training.tasks import LABEL_SMOOTHING, loss_fn, make_batch
from core_model.training.train import learning_rate, learning_rates
from viz_app import loaders
from viz_app.views import training as view


@pytest.mark.parametrize("d_model, warmup", [(512, 4000), (128, 400), (64, 1)])
def test_the_schedule_is_trainings_own_and_peaks_at_the_end_of_the_warm_up(d_model, warmup):
    lr = learning_rates(d_model, warmup, 1.0, 3 * warmup + 10)
    assert [lr[s - 1] for s in (1, warmup, 2 * warmup)] == [learning_rate(s, d_model, warmup, 1.0)
                                                          for s in (1, warmup, 2 * warmup)]
    s = view.schedule(lr)
    assert s.peak_step == warmup and s.steps[0] == 1 and len(s.steps) == len(lr)
    # the paper's formula at the peak: d^-0.5 · warmup^-0.5, and at step 1: d^-0.5 · warmup^-1.5
    assert s.peak_lr == pytest.approx(d_model ** -0.5 * warmup ** -0.5, rel=1e-12)
    assert s.first_lr == pytest.approx(d_model ** -0.5 * warmup ** -1.5, rel=1e-12)


@pytest.mark.parametrize("eps", view.EPS)
def test_smoothing_losses_equal_torchs_label_smoothed_cross_entropy(eps):
    logits = torch.randn(300, generator=torch.Generator().manual_seed(3), dtype=torch.float64) * 4
    target = 17
    sm = view.smoothing(logits.numpy(), target, eps)
    expected = torch.nn.functional.cross_entropy(logits[None], torch.tensor([target]), label_smoothing=eps)
    assert sm.loss == pytest.approx(float(expected), rel=1e-9)
    assert sm.q.sum() == pytest.approx(1.0) and sm.q[target] == pytest.approx(1 - eps + eps / 300)
    # the floor is the entropy of q (p = q), written out: the target's term and the V − 1 others'
    others = (300 - 1) * (eps / 300) * math.log(eps / 300) if eps else 0.0
    floor = -(sm.q[target] * math.log(sm.q[target]) + others)
    assert sm.floor == pytest.approx(floor, rel=1e-9, abs=1e-12)
    assert sm.floor <= sm.loss and sm.floor <= sm.confident
    assert sm.shown[0] == target and len(set(sm.shown.tolist())) == len(sm.shown)
    p = torch.softmax(logits, -1).numpy()
    assert sm.rare_mass == pytest.approx(p[p < 1e-3].sum()) and sm.rare_count == int((p < 1e-3).sum())


def test_without_smoothing_a_confident_prediction_is_cheap_and_with_it_it_is_not():
    logits = np.zeros(1000)
    plain, smoothed = view.smoothing(logits, 0, 0.0), view.smoothing(logits, 0, 0.1)
    assert plain.confident == pytest.approx(-math.log(view.CONFIDENT))  # 0.001
    # with ε the 999 other tokens each ask for ε / V and get 0.001 / 999: that costs ε · log(V · 0.999 / (999 · ε))
    q_target, q_other = 0.9 + 0.1 / 1000, 0.1 / 1000
    expected = -(q_target * math.log(0.999) + 999 * q_other * math.log(0.001 / 999))
    assert smoothed.confident == pytest.approx(expected, rel=1e-9) and smoothed.confident > smoothed.floor


@pytest.mark.parametrize("name", ["translate-en-fr", "lm-en", "reverse"])
def test_the_teacher_forced_batch_is_shifted_and_its_loss_is_trainings(name):
    batch = loaders.teacher_batch(name)
    loaded = checkpoints.load(loaders.model_folder(name))
    cfg = loaded.config
    tf = view.teacher_forcing(batch.src, batch.tgt_in, batch.tgt_out, batch.loss, cfg.pad_id)
    assert (tf.src is None) == (not cfg.has_encoder) and len(tf.tgt_in) == loaders.TEACHER_PAIRS
    assert (tf.tgt_in[:, 0] == cfg.bos_id).all()
    # decoder input at i + 1 is the target at i, for every real target but the closing </s>
    shifted = tf.kept[:, :-1] & (tf.tgt_out[:, :-1] != cfg.eos_id)
    assert shifted.sum() == tf.kept.sum() - len(tf.kept)
    assert (tf.tgt_in[:, 1:][shifted] == tf.tgt_out[:, :-1][shifted]).all()
    ends = tf.tgt_out[np.arange(len(tf.kept)), tf.kept.sum(1) - 1]
    assert (ends == cfg.eos_id).all()  # each row's last real target is </s>
    assert np.isnan(tf.loss[~tf.kept]).all() and np.isfinite(tf.loss[tf.kept]).all()
    assert tf.causal[3, 3] and not tf.causal[3, 4] and tf.causal.sum() == tf.causal.shape[0] * (tf.causal.shape[0] + 1) // 2
    # the page's mean is the loss training computes for the same batch (float32 sums in another order)
    examples = [([int(i) for i in s[s != cfg.pad_id]] if s is not None else None, [int(i) for i in o[k][:-1]])
                for s, o, k in zip(tf.src if tf.src is not None else [None] * len(tf.kept), tf.tgt_out, tf.kept)]
    with torch.no_grad():
        loss, n = loss_fn(loaded.model.eval(), make_batch(examples, cfg), LABEL_SMOOTHING)
    assert n == int(tf.kept.sum())
    assert tf.mean_loss == pytest.approx(float(loss), rel=1e-5)


def test_a_long_probe_sentence_is_cut_at_a_space_and_marked():
    from viz_app.text import shortened

    long = "eight italian babies did not kiss the strong cousin of their niece with her small yellow cat"
    cut = shortened(long)
    assert cut == "eight italian babies did not kiss the strong cousin of their niece with her …"
    assert len(cut) <= 82 and long.startswith(cut[:-2])  # whole words only, and "…" says some were left out
    assert shortened("the red car") == "the red car" and shortened("x" * 90) == "x" * 80 + " …"
