"""The Training page's live run (streamlit): Start and Stop, the run's progress, its loss so far and the probe's
cross-attention, redrawn by a fragment that polls the session's job (viz_app.live_training trains it in a process
of its own; this section never waits for it)."""
from __future__ import annotations

import uuid
from functools import partial

import numpy as np
import streamlit as st

from .. import fair, live_training, page
from ..export import to_csv
from ..figures.heatmap import matrix
from ..figures.training import lines
from ..i18n import t
from ..text import literal, position_labels

POLL_SECONDS = 1.0  # how often the section redraws while the session's job waits or runs
JOB, TOKEN, HEAD = "live.job", "live.token", "live.head"  # session-state keys


def live() -> None:
    """The section; it polls (a fragment rerun every POLL_SECONDS) only while the session's job waits or runs."""
    st.header(t("live.header"))
    st.write(t("live.about"))
    job = st.session_state.get(JOB)
    if job is not None and job.active:
        _polling()
    else:
        _still()


@st.fragment(run_every=POLL_SECONDS)
def _polling() -> None:
    _section(polling=True)


@st.fragment
def _still() -> None:
    _section(polling=False)


def _token() -> str:
    """The session's own token: its place in line and its run are its alone."""
    return st.session_state.setdefault(TOKEN, uuid.uuid4().hex)


def _section(polling: bool) -> None:
    """The buttons, then the job's state. Every rerun is the session's heartbeat: a job nobody polls is stopped."""
    job = st.session_state.get(JOB)
    active = job is not None and job.active
    left, right = st.columns(2)
    if left.button(t("live.start"), key="live.start", disabled=active, type="primary"):
        try:
            job = live_training.start(_token(), fair.address())
        except live_training.Refused as refused:
            st.warning(t(f"live.{refused.reason}", n=live_training.MAX_WAITING))
            return
        st.session_state[JOB] = job  # the previous run's records go with its job
        st.rerun()  # the whole page once, so the section becomes the polling fragment
    if right.button(t("live.stop"), key="live.stop", disabled=not active) and active:
        job.stop()
    if job is None:
        return
    job.heartbeat()
    if polling and not job.active:
        st.rerun()  # done: drawn once more, without polling
    _show(job)


def _show(job: live_training.Job) -> None:
    place = job.place() if job.state == "queued" else 0
    if place:
        st.info(t("live.queued", place=place))
        return
    records = list(job.records)  # the watching thread appends to it
    if job.error:
        st.error(t("live.failed", error=literal(job.error)))
    if not records:
        if job.active:
            st.progress(0.0, text=t("live.preparing"))
        elif not job.error:
            st.info(t("live.left_line"))
        return
    last = records[-1]
    st.progress(min(last.step / job.steps, 1.0),
                text=t("live.progress", step=last.step, steps=job.steps, seconds=last.seconds))
    probe = job.probe
    if last.ended:
        st.success(t(f"live.ended.{last.ended}", steps=last.step, seconds=last.seconds, loss=last.loss,
                     output=literal(last.output)))
    else:
        st.caption(t("live.probe", src=literal(probe.source), target=literal(probe.target), output=literal(last.output)))
    left, right = st.columns(2)
    with left:
        _loss(records)
    with right:
        _cross(probe, last)


def _loss(records) -> None:
    steps = np.array([r.step for r in records])
    losses = np.array([r.loss for r in records])
    name = t("live.loss")
    fig = lines([steps], [losses], [name], t("live.loss.title"), t("live.axis.step"), t("live.axis.loss"))
    page.chart(fig, "training.live.loss", partial(to_csv, losses[:, None], [name], steps))


def _cross(probe, last) -> None:
    """The probe's cross-attention in the last decoder layer: the heads' mean or one head.

    The choices are their own labels (no format_func): a language switch makes the kept one unknown, and the
    section goes back to the mean."""
    names = [t("live.head.mean")] + [t("live.head.n", n=h) for h in range(last.cross.shape[1])]
    if st.session_state.get(HEAD, names[0]) not in names:
        st.session_state[HEAD] = names[0]
    shown = names.index(st.radio(t("live.head"), names, key=HEAD, horizontal=True))
    z = last.cross[-1].mean(0) if shown == 0 else last.cross[-1, shown - 1]  # [tgt, src]
    x, y = position_labels(probe.src_pieces), position_labels(probe.tgt_pieces)
    fig = matrix(z, x, y, t("live.cross.title", step=last.step, head=names[shown]), (0.0, 1.0), None,
                 t("live.axis.src"), t("live.axis.tgt"))
    page.chart(fig, "training.live.cross", partial(to_csv, z, x, y))
