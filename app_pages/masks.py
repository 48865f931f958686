"""Masks: sentences padded into one batch, their padding / causal / combined masks, scores before and
after masking, and the attention that leaks onto <pad> when the padding mask is removed."""
import numpy as np
import pandas as pd
import streamlit as st

from viz_app import loaders, page, state
from viz_app.batch import BLOCK_SIDES, SentenceError, attention_blocks, batch_lines
from viz_app.figures.heatmap import matrix, to_csv
from viz_app.figures.masks import mask_figure, pad_weight, pad_weight_bars, padded_table
from viz_app.i18n import named, t

EXTRA = {  # two more sentences each shipped model knows, of other lengths than its sidebar example
    "translate-en-fr": ("i see him", "the dog sees you all"),
    "lm-en": ("i see him", "the dog sees you all"),
    "reverse": ("cat dog sun", "a b c d e f g h"),
}

cfg = page.start()
ss = st.session_state
st.title(t("page.masks"))
st.write(t("masks.intro"))
st.write(t("masks.formula"))
st.latex(r"\tilde S_{ij} = \begin{cases} S_{ij} & M_{ij} = 1 \\ -\infty & M_{ij} = 0 \end{cases}"
         r"\qquad A = \mathrm{softmax}(\tilde S)")

words = ss.get("src", "").split() or ["a"]
default = "\n".join([" ".join(words), *EXTRA.get(ss["model"], (" ".join(words[:len(words) // 2 + 1]), words[0]))])
if "masks.batch" in ss and ss["masks.batch"] == ss.get("_masks.default") != default:  # not edited: follow the sidebar
    ss["masks.batch"] = default
ss["_masks.default"] = default
state.synced("masks.batch", default)  # a link's batch on first opening
state.drop_surrogates("masks.batch")
lines, problem = batch_lines(st.text_area(t("masks.batch.label"), key="masks.batch", height=130,
                                          help=t("masks.batch.help"), max_chars=2000))
if not state.linkable("masks.batch"):
    st.caption(t("input.unlinked", n=state.MAX_URL_TEXT))
page.show_noted()
if problem:
    st.warning(t(problem, n=len(lines), line=lines.index("") + 1 if "" in lines else 0))
    st.stop()

blocks = attention_blocks(cfg)
if state.synced("masks.block", blocks[0]) not in blocks:
    state.bad_link("masks.block", ss["masks.block"], blocks[0])
    ss["masks.block"] = blocks[0]
state.synced("masks.no_pad_mask", False, state.parse_bool)
left, middle, right = st.columns(3)
block = left.selectbox(t("masks.block"), blocks, key="masks.block", format_func=named("masks.block"))
no_pad = right.toggle(t("masks.no_pad_mask"), key="masks.no_pad_mask", help=t("masks.no_pad_mask.help"))
try:
    with st.spinner(t("spinner.run")):
        batch = loaders.padded_batch(ss["model"], lines, not no_pad)
except SentenceError as e:
    st.warning(t("masks.bad.sentence", line=e.line))
    st.stop()
lengths = ((batch.src_ids if cfg.has_encoder else batch.tgt_ids) != cfg.pad_id).sum(1)
rows = range(len(lines))
if state.synced("masks.row", int(lengths.argmin()), state.parse_int, rows.__contains__) not in rows:  # most padding first
    ss["masks.row"] = int(lengths.argmin())  # the batch got shorter
row_names = [f"{t('masks.row_name', i=i + 1)}: {line}" for i, line in enumerate(lines)]
row = middle.selectbox(t("masks.row"), rows, key="masks.row", format_func=row_names.__getitem__)
page.show_noted()
page.show_notices(batch.notices)

st.subheader(t("masks.table"))
names = [t("masks.row_name", i=i + 1) for i in range(len(lines))]
sides = [(side, ids) for side, ids in (("src", batch.src_ids), ("tgt", batch.tgt_ids)) if ids.shape[1]]
for column, (side, ids) in zip(st.columns(len(sides)), sides):
    column.caption(t("masks.table.src" if side == "src" else "masks.table.tgt" if cfg.has_encoder else "masks.table.tgt_lm"))
    column.dataframe(padded_table(ids, cfg.pad_id, names, [str(i) for i in range(ids.shape[1])]))
st.caption(t("masks.table.caption", pad=cfg.pad_id, b=len(lines)))
if not any((ids == cfg.pad_id).any() for _, ids in sides):
    st.info(t("masks.same_length"))

stack, kind = block.split(".")
layer = min(ss["layer"], (cfg.n_encoder_layers if stack == "encoder" else cfg.n_decoder_layers) - 1)
q_side, k_side = BLOCK_SIDES[block]
q_ids, k_ids = dict(sides)[q_side][row], dict(sides)[k_side][row]
q_labels, k_labels = getattr(batch, f"{q_side}_labels")[row], getattr(batch, f"{k_side}_labels")[row]
axes = dict(x_title=t("masks.key"), y_title=t("masks.query"))

st.subheader(t("masks.masks", i=row + 1))
st.write(t("masks.masks.about") + (" " + t("masks.off") if no_pad else ""))
kinds = [k for k in ("padding", "causal", "combined") if k in batch.masks[block]]
for column, name in zip(st.columns(len(kinds)), kinds):
    mask = batch.masks[block][name][row]  # [q, k]
    with column:
        page.chart(mask_figure(mask, k_labels, q_labels, t(f"masks.kind.{name}"), t("masks.allowed"),
                               t("masks.blocked"), **axes), f"masks.mask.{name}", to_csv(mask.astype(int), k_labels, q_labels))
if kind == "cross_attn" or stack == "encoder":
    st.caption(t("masks.cross_padding" if kind == "cross_attn" else "masks.encoder_only_padding"))
st.info(t("masks.fill"))

st.subheader(t("masks.scores", i=row + 1, layer=layer, head=ss["head"]))
if layer != ss["layer"]:
    st.caption(t("masks.layer_note", n=layer + 1, layer=layer))
view = batch.trace.attn(stack, layer, kind)
head = ss["head"]
bound = float(np.abs(view.scores_scaled[row, head]).max()) or 1.0  # one scale for both score charts
for column, (values, name) in zip(st.columns(2), [(view.scores_scaled, "before"), (view.scores_masked, "after")]):
    with column:
        page.chart(matrix(values[row, head], k_labels, q_labels, t(f"masks.scores.{name}"), (-bound, bound), **axes),
                   f"masks.scores.{name}", to_csv(values[row, head], k_labels, q_labels))
st.caption(t("masks.scores.about"))

st.subheader(t("masks.leak"))
st.write(t("masks.leak.about"))
key_pad, query_pad = k_ids == cfg.pad_id, q_ids == cfg.pad_id
pattern = view.pattern[row, head]  # [q, k]
left, right = st.columns(2)
with left:
    page.chart(matrix(pattern, k_labels, q_labels, t("masks.scores.pattern"), (0, 1), **axes), "masks.scores.pattern",
               to_csv(pattern, k_labels, q_labels))
if not key_pad.any():
    right.info(t("masks.leak.no_pad"))
else:
    leak = pad_weight(pattern, key_pad)  # [q]
    with right:
        page.chart(pad_weight_bars(leak, q_labels, query_pad, t("masks.leak.chart", layer=layer, head=head),
                                   t("masks.leak.axis"), t("masks.query")), "masks.leak",
                   to_csv(leak[:, None], [t("masks.leak.axis")], q_labels))
    patterns = np.stack([batch.trace.attn(stack, i, kind).pattern[row] for i in range(batch.trace.n_layers(stack))])
    every = patterns[..., key_pad].sum(-1)[..., ~query_pad]  # [layers, heads, real queries]
    st.write(t("masks.leak.max", real=float(leak[~query_pad].max()), all=float(every.max())))
    if block == "decoder.self_attn":
        st.caption(t("masks.leak.causal"))

st.subheader(t("masks.invariance"))
st.write(t("masks.invariance.about"))
st.dataframe(pd.DataFrame({t("masks.invariance.sentence"): lines, t("masks.invariance.diff"): batch.invariance}),
             hide_index=True, column_config={t("masks.invariance.diff"): st.column_config.NumberColumn(format="%.2e")})
