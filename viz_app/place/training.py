"""The Training page's sections (streamlit): each reads its settings, asks its view, draws and places the charts.

Numbers come from viz_app.views.training over the loaders' real runs and core_model's own schedule and batches.
"""
from __future__ import annotations

from functools import partial

import numpy as np
import streamlit as st

from .. import loaders, page, state
from ..export import to_csv
from ..figures import training as figs
from ..figures.heatmap import matrix
from ..i18n import t
from ..text import literal, safe_labels, show_piece
from ..views import training as view


PAD_SCALE = [[0.0, "#9e9e9e"], [1.0, "#f7f7f7"]]  # padding grey, real tokens white


def _task_or_say(name: str, why: str):
    task = loaders.shipped_task(name)
    if task is None:
        st.info(t(why, model=name))
    return task


@st.fragment
def schedule(cfg) -> None:
    """The sliders' schedule over the shipped model's own (a fragment: a slider reruns only this section)."""
    d_model = state.setting("training.d_model", 512, state.parse_int, view.D_MODELS.__contains__, say_stale=True)
    warmup = state.setting("training.warmup", 4000, state.parse_int, view.WARMUPS.__contains__, say_stale=True)
    page.show_noted()
    left, right = st.columns(2)
    left.select_slider(t("training.d_model"), view.D_MODELS, key="training.d_model")
    right.select_slider(t("training.warmup"), view.WARMUPS, key="training.warmup")
    task = loaders.shipped_task(st.session_state["model"])
    steps = max(view.STEPS, 4 * warmup, task.steps if task else 0)
    ours = view.schedule(loaders.lr_schedule(d_model, warmup, 1.0, steps))
    xs, ys, names = [ours.steps], [ours.lr], [t("training.schedule.yours", d=d_model, w=warmup)]
    if task is not None:
        trained = view.schedule(loaders.lr_schedule(cfg.d_model, task.warmup, task.lr_factor, task.steps))
        xs, ys = xs + [trained.steps], ys + [trained.lr]
        names.append(t("training.schedule.model", model=task.name, d=cfg.d_model, w=task.warmup, steps=task.steps))
    fig = figs.lines(xs, ys, names, t("training.schedule.title"), t("training.axis.step"), t("training.axis.lr"))
    page.chart(fig, "training.schedule", partial(to_csv, np.array([ours.lr]).T, [names[0]], ours.steps))
    st.caption(t("training.schedule.peak", w=ours.peak_step, peak=ours.peak_lr, first=ours.first_lr))
    st.caption(t("training.schedule.no_warmup", d=d_model, lr=d_model ** -0.5))


@st.fragment
def smoothing() -> None:
    """One target token of the sidebar's run: its smoothed target beside the model's distribution."""
    run = page.cached_run()
    logits = run.trace["logits"][0]  # [positions, vocab]: position i predicts token i + 1
    labels = run.tgt_labels[1:]
    position = state.setting("training.position", 0, state.parse_int, range(len(labels)).__contains__)
    eps = state.setting("training.eps", 0.1, float, view.EPS.__contains__, say_stale=True)
    page.show_noted()
    left, right = st.columns(2)
    left.selectbox(t("training.position"), range(len(labels)), key="training.position", format_func=labels.__getitem__)
    right.select_slider(t("training.eps"), view.EPS, key="training.eps")
    sm = view.smoothing(logits[position], run.tgt_ids[position + 1], eps)
    pieces = [show_piece(p) for p in loaders.token_pieces(run.model, "tgt", tuple(int(i) for i in sm.shown))[0]]
    names = [t("training.smoothing.p"), t("training.smoothing.q", eps=eps)]
    title = t("training.smoothing.title", token=safe_labels([labels[position]])[0], eps=eps)
    fig = figs.distributions(pieces, sm.p[sm.shown], sm.q[sm.shown], names, title, t("training.axis.token"))
    page.chart(fig, "training.smoothing", partial(to_csv, np.stack([sm.p[sm.shown], sm.q[sm.shown]], 1), names, pieces))
    st.markdown(t("training.smoothing.losses", loss=sm.loss, floor=sm.floor, confident=sm.confident))
    st.markdown(t("training.smoothing.sampling", mass=sm.rare_mass, count=sm.rare_count, vocab=len(sm.p)))


def teacher_forcing(name: str, pad_id: int) -> None:
    """The first pairs of the task's training data as the model reads them in training, with each target's loss."""
    if _task_or_say(name, "training.teacher.none") is None:
        return
    batch = loaders.teacher_batch(name)
    tf = view.teacher_forcing(batch.src, batch.tgt_in, batch.tgt_out, batch.loss, pad_id)
    axes = dict(x_title=t("training.axis.position"), y_title=t("training.axis.pair"))
    grids = ([("src", tf.src_kept)] if tf.src is not None else []) + [("tgt_in", tf.kept), ("tgt_out", tf.kept)]
    for key, kept in grids:
        page.chart(figs.token_grid(kept.astype(float), batch.pieces[key], t(f"training.teacher.{key}"), (0, 1),
                                   PAD_SCALE, **axes), f"training.teacher.{key}", partial(to_csv, kept.astype(int)))
    zrange = (float(np.nanmin(tf.loss)), float(np.nanmax(tf.loss)))  # the floor H(q) is far above 0 (the caption)
    page.chart(figs.token_grid(tf.loss, batch.pieces["tgt_out"], t("training.teacher.loss"), zrange, **axes,
                               show_scale=True),
               "training.teacher.loss", partial(to_csv, tf.loss))
    st.caption(t("training.teacher.mean", n=int(tf.kept.sum()), loss=tf.mean_loss, eps=loaders.LABEL_SMOOTHING))
    with st.columns(2)[0]:
        labels = [f"{i}·{p}" for i, p in enumerate(batch.pieces["tgt_in"][0])]  # pair 0's decoder input
        page.chart(matrix(tf.causal.astype(float), labels, labels, t("training.teacher.causal"), (0, 1), PAD_SCALE,
                          t("training.axis.key"), t("training.axis.query")), "training.teacher.causal",
                   partial(to_csv, tf.causal.astype(int), labels, labels))


def card(name: str) -> None:
    """The shipped model's card, folded (it is the repository's own Markdown)."""
    if _task_or_say(name, "training.card.none") is None:
        return
    with st.expander(t("training.card", model=literal(name))):
        st.markdown((loaders.model_folder(name) / "card.md").read_text(encoding="utf-8"))
