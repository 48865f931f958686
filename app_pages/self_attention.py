"""Self-attention step by step: one head of one block, from the block's input X to its output."""
import numpy as np
import streamlit as st

from viz_app import attention_steps as steps, loaders, page, state
from viz_app.figures import steps as figs
from viz_app.figures.heatmap import to_csv
from viz_app.i18n import named, t

cfg = page.start()
st.title(t("page.self_attention"))
st.write(t("self_attention.intro"))
st.latex(r"\mathrm{head}_h = \mathrm{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}} + \mathrm{mask}\right) V,"
         r"\quad Q = X W_Q,\ K = X W_K,\ V = X W_V")

KIND, blocks = "self_attention.kind", steps.BLOCKS[cfg.architecture]
if (asked := state.synced(KIND, blocks[0])) not in blocks:
    if asked in steps.BLOCKS["encoder-decoder"]:  # e.g. cross-attention chosen, then a decoder-only model
        st.info(t("self_attention.kind_missing", block=t(f"self_attention.kind.{asked}"),
                  shown=t(f"self_attention.kind.{blocks[0]}")))
    else:
        state.bad_link(KIND, asked, blocks[0])
    st.session_state[KIND] = blocks[0]
    state.publish(KIND)
unscaled = state.synced("self_attention.unscaled", False, state.parse_bool) is True
run = page.current_run(scale=not unscaled)

pick_block, pick_query, pick_scale = st.columns(3)
block = pick_block.selectbox(t("self_attention.kind"), blocks, key=KIND,
                             format_func=named("self_attention.kind"))
pick_scale.toggle(t("self_attention.unscaled"), key="self_attention.unscaled",
                  help=t("self_attention.unscaled.help"))
stack, kind = block.split(".")
n_layers, head = run.trace.n_layers(stack), st.session_state["head"]
layer = min(st.session_state["layer"], n_layers - 1)
if layer != st.session_state["layer"]:
    st.info(t("self_attention.layer_clipped", n=n_layers, layer=layer))
hs = steps.head_steps(run.trace, page.loaded().model, cfg, block, layer, head, run.src_labels,
                      run.tgt_labels, scale=not unscaled)

QUERY = "self_attention.query"
queries = range(len(hs.q_labels))
if state.synced(QUERY, 0, state.parse_int, queries.__contains__) not in queries:
    st.session_state[QUERY] = queries[-1]  # fewer queries after a change of block or sentence
    state.publish(QUERY)
query = st.session_state[QUERY]
page.show_noted()  # a link's query, read only now that the number of queries is known
pick_query.selectbox(t("self_attention.query"), queries, key=QUERY,
                     format_func=hs.q_labels.__getitem__)

st.caption(" ".join([t("self_attention.where", layer=layer, head=head, block=t(f"self_attention.kind.{block}"))]
                    + [t(f"self_attention.{note}") for note in steps.notes(cfg, kind)]))


def draw(s: steps.Step) -> None:
    st.latex(s.latex)
    fig = figs.stage(s.values, s.x_labels, s.y_labels, t(f"self_attention.step.{s.name}"), s.zrange,
                     t(f"self_attention.axis.{s.x_axis}"), t(f"self_attention.axis.{s.y_axis}"),
                     query if s.query_rows else None, s.columns, ".0f" if s.name == "mask" else ".4f")
    page.chart(fig, f"self_attention.{s.name}", csv=to_csv(s.values, s.x_labels, s.y_labels))


token = hs.q_labels[query]
for section, group in hs.sections:
    st.subheader(t(f"self_attention.section.{section}"))
    columns = st.columns(len(group) + (section == "softmax"))  # the query's row goes beside the weights
    for column, s in zip(columns, group):
        with column:
            draw(s)
    if section == "softmax":
        names = [t(f"self_attention.row.{n}") for n in ("scores", "scaled_off" if unscaled else "scaled", "weights")]
        rows = [r[query] for r in hs.rows]  # [k] each
        with columns[1]:
            page.chart(figs.query_row(rows, names, hs.k_labels, t("self_attention.row.title", token=token),
                                      t("self_attention.axis.key")),
                       "self_attention.row", csv=to_csv(np.stack(rows), hs.k_labels, names))

if unscaled:  # the model as trained beside the run without the division, for the same query
    ss = st.session_state
    trained = loaders.run(run.model, ss["src"], ss.get("tgt", ""), True, True).trace.attn(stack, layer, kind)
    pair = {"with": trained.pattern[0, head, query], "without": hs.rows[2][query]}  # [k] each
    names = [t(f"self_attention.{which}") for which in pair]
    st.subheader(t("self_attention.saturation"))
    st.write(t("self_attention.saturation.explain", d=cfg.d_head, root=cfg.d_head ** 0.5))
    numbers, chart = st.columns([1, 2])
    for name, weights in zip(names, pair.values()):
        numbers.metric(t("self_attention.entropy", which=name), f"{steps.entropy_bits(weights):.3f}")
        numbers.metric(t("self_attention.max_weight", which=name), f"{weights.max():.3f}")
    with chart:
        title = t("self_attention.saturation.title", token=token)
        page.chart(figs.saturation(*pair.values(), hs.k_labels, names, title, t("self_attention.axis.key"),
                                   t("self_attention.weight")),
                   "self_attention.saturation", csv=to_csv(np.stack(list(pair.values())), hs.k_labels, names))
