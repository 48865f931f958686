"""The Positional encoding page's drawing (streamlit): the model's own encoding and the sentence's sum.

app_pages/positional.py places these; the numbers come from views/positional.py.
"""
from __future__ import annotations

from functools import partial

import math

import streamlit as st

from .. import loaders, page, state
from ..export import to_csv
from ..figures.heatmap import matrix
from ..figures.positional import CYCLIC_SCALE, curves, head_grid
from ..i18n import t
from ..views import positional as views, predict as asking
from . import predict

ASKED = 5  # the lab's question is about this position (the lab has 8 positions at least)


def _lab_settings() -> tuple[int, int, int]:
    """The lab's d_model, length and base (from the link the first time), and its dimensions made to fit d_model."""
    d_model = state.setting("positional.d_model", 128, state.parse_int, views.D_MODELS.__contains__, say_stale=True)
    length = state.setting("positional.length", 100, state.parse_int, views.LENGTHS.__contains__, say_stale=True)
    base = state.setting("positional.base", 10000, state.parse_int, views.BASES.__contains__, say_stale=True)
    dims = state.synced("positional.dims", views.DIMS, views.parse_dims, partial(views.dims_within, d_model))
    st.session_state["positional.dims"] = views.usable_dims(dims, d_model)  # the choice shrinks with d_model
    state.publish("positional.dims")
    page.show_noted()
    return d_model, length, base


@st.fragment
def lab(cfg) -> None:
    """The sinusoid lab and the model's own encoding over the lab's length: a fragment, so its sliders rerun
    only this part of the page (the sentence's section below stays as it is)."""
    d_model, length, base = _lab_settings()
    st.header(t("positional.lab"))
    c1, c2, c3 = st.columns(3)
    c1.slider(t("positional.d_model"), 16, 512, step=16, key="positional.d_model")
    c2.slider(t("positional.length"), 8, 512, key="positional.length")
    c3.select_slider(t("positional.base"), views.BASES, key="positional.base", help=t("positional.base.help"))
    dim_names = [t("positional.dim_name", d=d, kind=t(f"positional.{kind}"))
                 for d, kind in enumerate(views.dim_kinds(d_model))]
    dims = st.multiselect(t("positional.dims"), range(d_model), key="positional.dims", format_func=dim_names.__getitem__)
    lab = views.lab(loaders.sinusoid(length, d_model, base), dims)
    names = [dim_names[d] for d in lab.dims]
    if names:
        page.chart(curves(lab.table, lab.dims, names, t("positional.curves"), t("positional.axis.pos"),
                          t("positional.axis.value")), "positional.curves", partial(to_csv, lab.columns, names))
    else:
        st.info(t("positional.curves.none"))
    question = asking.most_similar_position(lab.similarity, ASKED, f"{d_model}|{length}|{base}")
    pair(lab.table, lab.similarity, "positional", (t("positional.heatmap"), t("positional.similarity")), question)
    st.caption(t("positional.heatmap.caption"))
    st.caption(t("positional.similarity.caption", norm=lab.norm, scale=lab.pairs))
    if predict.revealed(question):  # the model's own encoding has a similarity of its own, often the same
        model_section(cfg, length)


def pair(table, sim, name: str, titles, question=None) -> None:
    """A positions × dimensions heatmap beside its position-to-position similarity; predict-then-reveal asks
    `question` in the similarity's place until it is answered."""
    pos, dim = t("positional.axis.pos"), t("positional.axis.dim")
    left, right = st.columns(2)
    with left:
        page.chart(matrix(table, title=titles[0], x_title=dim, y_title=pos), f"{name}.table", partial(to_csv, table))
    with right:
        if question is None or predict.ask(question):
            page.chart(matrix(sim, title=titles[1], x_title=pos, y_title=pos), f"{name}.similarity",
                       partial(to_csv, sim))


def rope(own: views.OwnEncoding) -> None:
    left, right = st.columns(2)
    with left:
        page.chart(matrix(own.wrapped, title=t("positional.rope.angles"), zrange=(0, 2 * math.pi), scale=CYCLIC_SCALE,
                          x_title=t("positional.axis.pair"), y_title=t("positional.axis.pos")),
                   "positional.model.rope.angles", partial(to_csv, own.angles))
    with right:
        page.chart(matrix(own.offset, title=t("positional.rope.offset"), x_title=t("positional.axis.key_pos"),
                          y_title=t("positional.axis.query_pos")), "positional.model.rope.offset", partial(to_csv, own.offset))
        st.caption(t("positional.rope.offset.caption"))


def model_section(cfg, n: int) -> None:
    """The model's own position information over its first n positions (at most max_len): st.session_state's
    model, so it shows without a sentence."""
    st.header(t("positional.model"))
    own = views.own_encoding(loaders.model_positions(st.session_state["model"], n), cfg.positional, cfg.sides,
                             n, cfg.max_len)
    st.write(t(f"positional.model.{own.kind}", d=cfg.d_model, d_head=cfg.d_head, base=cfg.positional_base,
               n=own.n, max_len=cfg.max_len, buckets=cfg.relative_buckets, distance=cfg.relative_max_distance))
    if own.kind == "rope" and cfg.rotary_dims < cfg.d_head:  # partial rotary (GPT-NeoX, Phi)
        st.caption(t("positional.rope.partial", dims=cfg.rotary_dims, d_head=cfg.d_head))
    if own.kind == "rope" and cfg.rope_scaling != "none":  # θᵢ stretched for a longer context (its angles are drawn)
        original = cfg.rope_original_max_len
        st.write(t(f"positional.model.rope.{cfg.rope_scaling}", factor=cfg.rope_factor, original=original,
                   slow=original / cfg.rope_low_freq_factor, fast=original / cfg.rope_high_freq_factor))
    for one in own.tables:
        where, kind = t(f"positional.side.{one.side}"), t(f"positional.kind.{'cosine' if one.cosine else 'dot'}")
        pair(one.table, one.similarity, f"positional.model.{one.side}",
             (t("positional.model.table", side=where), t("positional.model.similarity", side=where, kind=kind)))
    if own.kind == "rope":
        rope(own)
    elif own.kind == "alibi":
        titles = [t("positional.alibi.head", h=h, slope=s) for h, s in enumerate(own.slopes)]
        page.chart(head_grid(own.bias, titles, t("positional.alibi.bias"), t("positional.axis.key_pos"),
                             t("positional.axis.query_pos")), "positional.model.alibi", partial(to_csv, own.bias_rows))
        st.caption(t("positional.alibi.caption", high=max(own.slopes), low=min(own.slopes)))
    for one in own.relative:
        relative(one)


def relative(one: views.OwnRelative) -> None:
    """A stack's relative bias (T5): its learned table (heads × buckets) and what it adds over query/key positions."""
    side = t(f"positional.side.{one.side}")
    page.chart(matrix(one.buckets, title=t("positional.relative.buckets", side=side),
                      x_title=t("positional.axis.bucket"), y_title=t("positional.axis.head")),
               f"positional.model.relative.{one.side}.buckets", partial(to_csv, one.buckets))
    titles = [t("positional.relative.head", h=h) for h in range(len(one.bias))]
    page.chart(head_grid(one.bias, titles, t("positional.relative.bias", side=side), t("positional.axis.key_pos"),
                         t("positional.axis.query_pos")), f"positional.model.relative.{one.side}",
               partial(to_csv, one.bias_rows))
    st.caption(t(f"positional.relative.caption.{one.side}"))


def sentence_section(cfg) -> None:
    """The sentence's token embedding (×√d_model if the model scales it) + its position vectors = layer 0's input."""
    s = views.sentence_sum(page.current_run(), cfg.has_encoder)
    st.header(t("positional.sentence"))
    st.write(t("positional.sentence.intro", side=t(f"positional.side.{s.side}")))
    if not s.has_pos:
        st.info(t("positional.sentence.nopos"))
    if cfg.embed_norm or cfg.type_vocab_size:
        st.caption(t("positional.sentence.extra"))
    first = "scaled" if cfg.scale_embedding else "tok"  # what the model does to its token rows, from its config
    names = [t(f"positional.sentence.{first if key == 'scaled' else key}") for key, _ in s.parts]
    for column, (key, values), name, bound in zip(st.columns(len(s.parts)), s.parts, names, s.bounds):
        with column:
            page.chart(matrix(values, None, s.labels, name, (-bound, bound), x_title=t("positional.axis.dim"),
                              y_title=t("positional.axis.token")),
                       f"positional.sentence.{key}", partial(to_csv, values, None, s.labels))
    ranges = [t("positional.sentence.range", name=name, bound=bound) for name, bound in zip(names, s.bounds)]
    st.caption(t("positional.sentence.ranges", ranges=", ".join(ranges)))
