"""Positional encoding lab: sinusoid curves, heatmap and similarity; the model's own encoding; the sentence's sum."""
import math

import numpy as np
import streamlit as st

from core_model.positional import alibi_slopes, sinusoidal_table
from viz_app import loaders, page, state
from viz_app.figures.heatmap import matrix, to_csv
from viz_app.figures.positional import CYCLIC_SCALE, curves, head_grid, similarity, wrapped
from viz_app.i18n import t

D_MODELS = range(16, 513, 16)
LENGTHS = range(8, 513)
BASES = (100, 300, 1000, 3000, 10000, 30000, 100000)


def parse_dims(raw: str) -> list[int]:
    return [int(x) for x in raw.strip("[]").replace(" ", "").split(",") if x]  # "0,1,8" or "[0, 1, 8]"


def dim_name(d: int) -> str:
    return t("positional.dim_name", d=d, kind=t("positional.sin" if d % 2 == 0 else "positional.cos"))


def checked(key, default, allowed):
    """The URL- and session-synced value of `key`, reset to `default` (and said) when not allowed."""
    if state.synced(key, default, state.parse_int) not in allowed:
        state.bad_link(key, st.session_state[key], default)
        st.session_state[key] = default
        state.publish(key)
    return st.session_state[key]


def pair(table, sim, name, titles):
    """A positions × dimensions heatmap beside its position-to-position similarity."""
    left, right = st.columns(2)
    with left:
        page.chart(matrix(table, title=titles[0], x_title=DIM, y_title=POS), f"{name}.table", to_csv(table))
    with right:
        page.chart(matrix(sim, title=titles[1], x_title=POS, y_title=POS), f"{name}.similarity", to_csv(sim))


def model_section(cfg, n):
    st.header(t("positional.model"))
    kind, own = cfg.positional, loaders.model_positions(st.session_state["model"], n)
    st.write(t(f"positional.model.{kind}", d=cfg.d_model, d_head=cfg.d_head, base=cfg.positional_base,
               n=min(n, cfg.max_len), max_len=cfg.max_len))
    if kind in ("sinusoidal", "learned"):
        cosine = kind == "learned"  # learned rows differ in length, so a dot product would mostly show that
        for side in cfg.sides[:1] if kind == "sinusoidal" else cfg.sides:  # sinusoidal tables are the same
            where = t(f"positional.side.{side}")
            pair(own[side], similarity(own[side], cosine), f"positional.model.{side}",
                 (t("positional.model.table", side=where),
                  t("positional.model.similarity", side=where, kind=t(f"positional.kind.{'cosine' if cosine else 'dot'}"))))
    elif kind == "rope":
        left, right = st.columns(2)
        with left:
            page.chart(matrix(wrapped(own["angles"]), title=t("positional.rope.angles"), zrange=(0, 2 * math.pi),
                              scale=CYCLIC_SCALE, x_title=t("positional.axis.pair"), y_title=POS),
                       "positional.model.rope.angles", to_csv(own["angles"]))
        with right:
            page.chart(matrix(own["offset"], title=t("positional.rope.offset"), x_title=t("positional.axis.key_pos"),
                              y_title=t("positional.axis.query_pos")), "positional.model.rope.offset", to_csv(own["offset"]))
            st.caption(t("positional.rope.offset.caption"))
    elif kind == "alibi":
        titles = [t("positional.alibi.head", h=h, slope=s) for h, s in enumerate(alibi_slopes(cfg.n_heads).tolist())]
        page.chart(head_grid(own["bias"], titles, t("positional.alibi.bias"), t("positional.axis.key_pos"),
                             t("positional.axis.query_pos")), "positional.model.alibi",
                   to_csv(own["bias"].reshape(-1, own["bias"].shape[-1])))


def sentence_section(cfg):
    run = page.current_run()
    side = "src" if cfg.has_encoder else "tgt"
    emb, labels = run.trace.embed(side), getattr(run, f"{side}_labels")
    st.header(t("positional.sentence"))
    st.write(t("positional.sentence.intro", side=t(f"positional.side.{side}")))
    parts = [(key, getattr(emb, key)[0]) for key in ("scaled", "pos", "out") if getattr(emb, key) is not None]  # [pos, d]
    if emb.pos is None:
        st.info(t("positional.sentence.nopos"))
    if cfg.embed_norm or cfg.type_vocab_size:
        st.caption(t("positional.sentence.extra"))
    bound = max(float(np.abs(v).max()) for _, v in parts) or 1.0
    for column, (key, values) in zip(st.columns(len(parts)), parts):
        with column:
            page.chart(matrix(values, None, labels, t(f"positional.sentence.{key}"), (-bound, bound), x_title=DIM,
                              y_title=t("positional.axis.token")), f"positional.sentence.{key}", to_csv(values, None, labels))


cfg = page.start()
POS, DIM = t("positional.axis.pos"), t("positional.axis.dim")  # after start(): the sidebar sets the language
st.title(t("page.positional"))
st.write(t("positional.intro"))
st.write(t("positional.formula"))
st.latex(r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{base^{2i/d_{\mathrm{model}}}}\right),\quad "
         r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{base^{2i/d_{\mathrm{model}}}}\right)")
d_model, length = checked("positional.d_model", 128, D_MODELS), checked("positional.length", 100, LENGTHS)
base = checked("positional.base", 10000, BASES)
dims = state.synced("positional.dims", [0, 1, 8, 16], parse_dims, lambda ds: all(0 <= d < d_model for d in ds))
st.session_state["positional.dims"] = [d for d in dims if isinstance(d, int) and 0 <= d < d_model]  # options shrink with d_model
state.publish("positional.dims")
page.show_noted()

st.header(t("positional.lab"))
c1, c2, c3 = st.columns(3)
c1.slider(t("positional.d_model"), 16, 512, step=16, key="positional.d_model")
c2.slider(t("positional.length"), 8, 512, key="positional.length")
c3.select_slider(t("positional.base"), BASES, key="positional.base", help=t("positional.base.help"))
dim_names = [dim_name(d) for d in range(d_model)]
dims = st.multiselect(t("positional.dims"), range(d_model), key="positional.dims", format_func=dim_names.__getitem__)
table = sinusoidal_table(length, d_model, base).numpy()  # [length, d_model]
if dims:
    page.chart(curves(table, dims, [dim_names[d] for d in dims], t("positional.curves"), POS, t("positional.axis.value")),
               "positional.curves", to_csv(table[:, dims], [dim_names[d] for d in dims]))
else:
    st.info(t("positional.curves.none"))
pair(table, similarity(table), "positional", (t("positional.heatmap"), t("positional.similarity")))
st.caption(t("positional.heatmap.caption"))
st.caption(t("positional.similarity.caption", norm=math.sqrt(d_model / 2), scale=d_model // 2))

model_section(cfg, length)
sentence_section(cfg)
