"""The Training page's sections (streamlit): each reads its settings, asks its view, draws and places the charts.

Numbers come from viz_app.views.training over the loaders' real runs and core_model's own schedule and batches.
"""
from __future__ import annotations

from functools import partial

import numpy as np
import streamlit as st

from core_model.checkpoints.safe_load import CheckpointError
from core_model.training.tasks import LABEL_SMOOTHING
from core_model.training.train import cooldown_steps, learning_rates

from .. import loaders, own_model, page, state
from ..export import to_csv
from ..figures import attention as fa
from ..figures import training as figs
from ..figures.masks import mask_figure
from ..i18n import lang, t
from ..text import literal, position_labels, shortened, show_piece
from ..views import training as view


def shown_name(name: str) -> str:
    """The model's name as the sidebar shows it (a user's own model by its file's title, not its hash)."""
    return own_model.labels()(name)


def _task_or_say(name: str, why: str):
    task = loaders.shipped_task(name)
    if task is None:  # a model shipped without a task was pretrained elsewhere (MiniLM); else it is a user's own
        st.info(t(f"{why}.pretrained" if name in loaders.available_models() else why, model=shown_name(name)))
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
    ours = view.schedule(learning_rates(d_model, warmup, 1.0, steps))
    xs, ys, names = [ours.steps], [ours.lr], [t("training.schedule.yours", d=d_model, w=warmup)]
    if task is not None:
        trained = view.schedule(learning_rates(cfg.d_model, task.warmup, task.lr_factor, task.steps, task.cooldown))
        xs, ys = xs + [trained.steps], ys + [trained.lr]
        names.append(t("training.schedule.model", model=task.name, d=cfg.d_model, w=task.warmup, steps=task.steps))
    fig = figs.lines(xs, ys, names, t("training.schedule.title"), t("training.axis.step"), t("training.axis.lr"))
    page.chart(fig, "training.schedule", partial(to_csv, np.array([ours.lr]).T, [names[0]], ours.steps))
    st.caption(t("training.schedule.peak", w=ours.peak_step, peak=ours.peak_lr, first=ours.first_lr))
    st.caption(t("training.schedule.no_warmup", d=d_model, lr=d_model ** -0.5))
    if task is not None and task.cooldown:
        st.caption(t("training.schedule.cooldown", model=task.name, n=cooldown_steps(task.steps, task.cooldown)))


@st.fragment
def smoothing() -> None:
    """One target token of the sidebar's run: its smoothed target beside the model's distribution."""
    run = page.cached_run()
    logits = run.trace["logits"][0]  # [positions, vocab]: position i predicts token i + 1
    labels = run.tgt_labels[1:]
    if not labels:  # the model ended its output at once: no target token to look at
        st.info(t("training.smoothing.empty"))
        return
    position = state.setting("training.position", 0, state.parse_int, range(len(labels)).__contains__)
    eps = state.setting("training.eps", 0.1, float, view.EPS.__contains__, say_stale=True)
    page.show_noted()
    left, right = st.columns(2)
    left.selectbox(t("training.position"), range(len(labels)), key="training.position", format_func=labels.__getitem__)
    right.select_slider(t("training.eps"), view.EPS, key="training.eps")
    sm = view.smoothing(logits[position], run.tgt_ids[position + 1], eps)
    pieces = [show_piece(p) for p in loaders.token_pieces(run.model, "tgt", tuple(int(i) for i in sm.shown))[0]]
    names = [t("training.smoothing.p"), t("training.smoothing.q", eps=eps)]
    title = t("training.smoothing.title", token=labels[position], eps=eps)
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
                                   figs.PAD_SCALE, **axes), f"training.teacher.{key}", partial(to_csv, kept.astype(int)))
    zrange = (float(np.nanmin(tf.loss)), float(np.nanmax(tf.loss)))  # the floor H(q) is far above 0 (the caption)
    page.chart(figs.token_grid(tf.loss, batch.pieces["tgt_out"], t("training.teacher.loss"), zrange, **axes,
                               show_scale=True),
               "training.teacher.loss", partial(to_csv, tf.loss))
    st.caption(t("training.teacher.mean", n=int(tf.kept.sum()), loss=tf.mean_loss, eps=LABEL_SMOOTHING))
    with st.columns(2)[0]:
        labels = position_labels(batch.pieces["tgt_in"][0])  # pair 0's decoder input
        page.chart(mask_figure(tf.causal, labels, labels, t("training.teacher.causal"), t("masks.allowed"),
                               t("masks.blocked"), t("training.axis.key"), t("training.axis.query")),
                   "training.teacher.causal", partial(to_csv, tf.causal.astype(int), labels, labels))


def _kept(name: str, read, section: str):
    """What training kept in the model's folder, read by `read`, under the section's header; None when there is
    nothing to draw: a damaged file (said), none in a shipped model (said how to get it), none elsewhere (silent:
    card() has said the model is not ours)."""
    try:
        value = read(name)
    except CheckpointError:
        st.header(t(f"training.{section}.header"))
        st.warning(t(f"training.{section}.bad", model=literal(shown_name(name))))
        return None
    if value is None and loaders.shipped_task(name) is None:
        return None
    st.header(t(f"training.{section}.header"))
    if value is None:
        st.info(t(f"training.{section}.none", model=name))
    return value


def run_log(name: str) -> None:
    """The model's own training run from its train_log.csv: the losses, the learning rate, the gradient norm.
    A model with neither a log nor a task of ours gets nothing here (card() has said why)."""
    log = _kept(name, loaders.training_log, "log")
    if log is None:
        return
    steps, axis = log.step, t("training.axis.step")
    names = [t("training.log.train"), t("training.log.valid")]
    page.chart(figs.lines([steps, steps], [log.train_loss, log.valid_loss], names, t("training.log.loss"), axis,
                          t("training.axis.loss")), "training.log.loss",
               partial(to_csv, np.stack([log.train_loss, log.valid_loss], 1), names, steps))
    left, right = st.columns(2)
    for column, (key, values) in zip((left, right), (("lr", log.lr), ("grad_norm", log.grad_norm))):
        with column:
            page.chart(figs.lines([steps], [values], [t(f"training.log.{key}")], t(f"training.log.{key}"), axis, ""),
                       f"training.log.{key}", partial(to_csv, values[:, None], [key], steps))
    st.caption(t("training.log.caption", rows=len(log), last=int(steps[-1]), tokens=int(log.tokens[-1])))


def card(name: str) -> None:
    """The shipped model's card, folded (it is the repository's own Markdown)."""
    if _task_or_say(name, "training.card.none") is None:
        return
    text = (loaders.model_folder(name) / "card.md").read_text(encoding="utf-8")
    with st.expander(t("training.card", model=literal(name))):
        if lang() == "en":
            st.markdown(text)
        else:  # the card is a document written in English: shown as it is, said so, not mixed into the UI's prose
            st.caption(t("training.card.english"))
            st.code(text, language="markdown", wrap_lines=True)


PLAY_SECONDS = 1.5  # between two saved steps while "play" is on


def forming(name: str) -> None:
    """Heads forming: the model's attention on a probe at each saved step of its training, with the alignment
    error rate and the loss so far. The play switch reruns the section's fragment every PLAY_SECONDS."""
    if _kept(name, loaders.training_snapshots, "forming") is None:
        return
    st.write(t("training.forming.about"))
    playing = st.toggle(t("training.forming.play"), key="training.forming.play")
    st.fragment(run_every=PLAY_SECONDS if playing else None)(_forming_step)(name, playing)


def _forming_step(name: str, playing: bool) -> None:
    snaps, ss = loaders.training_snapshots(name), st.session_state
    probes = ["".join(p["src"] or p["tgt"][1:]).replace("▁", " ").strip() for p in snaps.probes]
    left, middle = st.columns(2)
    probe = left.selectbox(t("training.forming.probe"), range(len(probes)), key="training.forming.probe",
                           format_func=lambda i: shortened(probes[i]))
    blocks = list(snaps.probes[probe]["blocks"])
    block = middle.selectbox(t("self_attention.kind"), blocks, key="training.forming.block",
                             index=len(blocks) - 1, format_func=lambda b: t(f"self_attention.kind.{b}"))
    steps = [int(s) for s in snaps.steps]
    if playing:  # the next saved step, from the start again after the last
        ss["training.forming.step"] = steps[(steps.index(ss.get("training.forming.step", steps[0])) + 1) % len(steps)]
    step = st.select_slider(t("training.forming.step"), steps, key="training.forming.step")
    log = None
    try:
        log = loaders.training_log(name)
    except CheckpointError:
        pass  # said by run_log above
    f = view.forming(snaps.steps, snaps.probes[probe]["blocks"], block, steps.index(step), snaps.aer, log)
    _forming_charts(f, block)


def _forming_charts(f: view.Forming, block: str) -> None:
    """The grid of heads at the step, then the alignment error rate and the loss up to it."""
    n_layers, n_heads = f.patterns.shape[:2]
    grid = fa.grid(f.patterns, [t("explorer.layer_n", n=i) for i in range(n_layers)],
                   [t("explorer.head_n", n=h) for h in range(n_heads)], t("training.forming.hint"))
    grid.update_layout(title={"text": t("training.forming.title", step=f.step, block=t(f"self_attention.kind.{block}"))})
    page.chart(grid, "training.forming.grid")
    left, right = st.columns(2)
    axis = t("training.axis.step")
    if f.aer is not None:
        steps = np.maximum(f.steps, 1)  # on a log axis the untrained model, step 0, is drawn at 1
        names = [t("training.forming.aer_layer", n=i) for i in range(f.aer.shape[1])]
        with left:
            page.chart(figs.lines([steps] * len(names), list(f.aer.T), names, t("training.forming.aer"), axis, "AER",
                                  log_x=True, marker=max(f.step, 1)), "training.forming.aer",
                       partial(to_csv, f.aer, names, f.steps))
    if f.loss is not None and len(f.loss):
        with right:
            page.chart(figs.lines([f.loss_steps], [f.loss], [t("training.log.train")], t("training.forming.loss"), axis,
                                  t("training.axis.loss"), log_x=True), "training.forming.loss")
