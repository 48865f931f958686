"""The Decoding page's controls and charts (streamlit), each drawn from a view; app_pages/decoding.py places them."""
from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from core_model.checkpoints import CheckpointError

from .. import classroom, loaders, page, state
from ..classroom import Latex
from ..errors import message
from ..figures import decoding as figs
from ..examples import HESITANT
from ..export import to_csv
from ..figures.heatmap import matrix
from ..i18n import named, t
from ..text import literal, piece, token_chips
from ..views import decoding as view, predict as asking
from . import predict

# Sampling defaults: the models were trained with label smoothing (ε = 0.1), which leaves ~10% of the probability
# on the ~1,700 tokens of the vocabulary, so plain sampling at T = 1 picked a token with p < 0.001 in 24 of 30 seeds
# on the default sentence. Over 100 seeds on each of five sentences of known words (tests/app/test_sampling_defaults.py
# keeps 50), with the translator retrained on 2026-11-29: top-k 10 with top-p 0.9 picked one with p = 0.0078; top-k
# 10 with top-p 0.8 none below 0.01 (lowest p 0.197), while the sentences with a noun that has two French words still
# differ from seed to seed (4 and 5 distinct outputs). top_k=0, top_p=1: off.
PARAMS = {  # name: (default, parse, low, high, step), the bounds of each method's widget
    "width": (4, state.parse_int, 1, 8, 1), "alpha": (0.6, float, 0.0, 2.0, 0.1),
    "temperature": (1.0, float, 0.1, 3.0, 0.1), "top_k": (10, state.parse_int, 0, 100, 1),
    "top_p": (0.8, float, 0.05, 1.0, 0.05), "seed": (0, state.parse_int, 0, 2**31 - 1, 1)}
SHAPE = ("temperature", "top_k", "top_p")  # what shapes sampling's distribution (the seed only draws from it)
METHOD_PARAMS = {"greedy": (), "beam": ("width", "alpha"), "sample": ("temperature", "top_k", "top_p", "seed")}
FORMULAS = {
    "greedy": r"y_t = \arg\max_{w}\; p(w \mid y_{<t}, x)",
    "beam": r"\mathrm{score}(y) = \frac{\sum_{t} \log p(y_t \mid y_{<t}, x)}{\left((5 + |y|)/6\right)^{\alpha}}",
    "sample": r"p_T(w) \propto \exp(z_w / T), \quad w \in \text{top-}k \cap \text{top-}p",
}


def usable(bounds: tuple, value) -> bool:
    """A number within a widget's bounds (low, high); True and False are no numbers here."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and bounds[0] <= value <= bounds[1]


def param(name: str, own=None):
    """A URL-synced number setting; a value outside its bounds (from a link or a script) falls back to the default:
    the model's own (`own`, from its generation_config.json) where it names one within the bounds, else ours."""
    default, parse, low, high, _ = PARAMS[name]
    asked = getattr(own, name, None)  # a generation_config.json names no seed, for one
    if asked is not None and usable((low, high), asked):
        default = type(default)(asked)
    key = f"decoding.{name}"
    value = type(default)(state.setting(key, default, parse, partial(usable, (low, high)), say_stale=True))
    st.session_state[key] = value  # a float slider refuses an int, and the reverse
    state.publish(key)
    return value


def widget(name: str, column):
    """The setting's widget (its value is already in the session: `param`)."""
    default, _, low, high, step = PARAMS[name]
    key = f"decoding.{name}"
    draw = column.number_input if isinstance(default, int) else column.slider
    return draw(t(key), low, high, step=step, key=key, help=t(f"{key}.help"))


def controls() -> tuple[str, dict, object]:
    """The method radio and its parameters; returns (method, keyword arguments for loaders.decode, and for
    sampling the place beside its controls where `sampling_notes` says the current step's numbers, else None).
    The page's explanation goes above them, with the chosen method's formulas."""
    own = own_generation(st.session_state["model"])
    method = state.setting("decoding.method", own.method if own else "greedy", ok=METHOD_PARAMS.__contains__,
                           say_stale=True)
    about(method)
    st.radio(t("decoding.method"), list(METHOD_PARAMS), key="decoding.method", horizontal=True,
             format_func=named("decoding.method"))
    if own is not None:
        st.caption(own_settings(own))
    # Read here, so a bad link is reported with the rest; a step past the end shows the last (the count
    # depends on the text and the method, known only after decoding).
    state.synced("decoding.step", 0, state.parse_int, lambda step: step >= 0)
    params = {name: param(name, own) for name in METHOD_PARAMS[method]}
    drawn = [name for name in METHOD_PARAMS[method] if name not in SHAPE]  # sampling's shape: beside its chart
    for name, column in zip(drawn, st.columns(4)):
        widget(name, column)
    if method != "sample":
        return method, params, None
    st.caption(t("decoding.sample.why"))
    return method, params, st.container()


def own_generation(name: str):
    """The model's generation_config.json, if it has one; a file the loader refuses is said, and the page keeps
    its own defaults."""
    try:
        return loaders.generation(name)
    except CheckpointError as e:
        st.warning(t("decoding.own.refused", why=message(e, literal)))
        return None


def own_settings(own) -> str:
    """What the model's generation_config.json asks for, as the page starts from it, and what it does not follow."""
    fields = {"width": "num_beams", "temperature": "temperature", "top_k": "top_k", "top_p": "top_p",
              "max_new_tokens": "max_new_tokens"}  # ours → the file's names, quoted as the file has them
    asked = [t(f"decoding.method.{own.method}")]
    asked += [f"`{theirs} = {getattr(own, ours)}`" for ours, theirs in fields.items() if getattr(own, ours) is not None]
    said = t("decoding.own", asked=", ".join(asked))
    if own.not_applied:
        said += " " + t("decoding.own.not_applied", names=", ".join(f"`{name}`" for name in own.not_applied))
    return said


def sampling_notes(note, decoded, k: int, params: dict) -> None:
    """Beside the sampling controls (`note`, None for another method): how much of the model's probability its rare
    tokens hold at step k, and whether any seed could change the output (one_choice_note)."""
    if note is None:
        return
    rare = view.rare(decoded.steps[k])
    note.caption(t("decoding.sample.rare", k=k, n=rare.count, mass=rare.mass))
    one_choice_note(note, decoded, params)


def about(method: str) -> None:
    """The page's explanation and the chosen method's formulas (folded away in presenter mode)."""
    classroom.intro(t("decoding.intro"), t("decoding.formula"),
                    Latex(r"p(y_t \mid y_{<t}, x) = \mathrm{softmax}(W h_t + b)"),
                    t(f"decoding.formula.{method}"), Latex(FORMULAS[method]))


def step_control(n: int) -> int:
    """Slider plus previous / next buttons (the arrow keys in presenter mode) over the n steps; the current step."""
    step, middle = classroom.stepper("decoding.step", n, (t("decoding.prev"), t("decoding.next")))
    if n > 1:
        middle.slider(t("decoding.step"), 0, n - 1, key="decoding.step")
    st.caption(t("decoding.of", k=step, n=n) if n > 1 else t("decoding.one_step"))
    return step


def guess_first(decoded, k: int, labels, tokenizer, method: str, params: dict) -> bool:
    """Predict-then-reveal: the decoder's input so far, then which token step k chooses; True once it may be
    shown (predict.revealed)."""
    step, ss = decoded.steps[k], st.session_state
    context = "|".join(map(str, (ss["model"], ss["src"], method, sorted(params.items()))))
    question = asking.next_token([i for i, _ in step.top], step.chosen, view.chosen_p(step), partial(piece, tokenizer),
                                 f"{context}|{k}")
    if not predict.revealed(question):
        st.caption(t("predict.decoder_input"))
        st.markdown(token_chips(labels[:len(step.prefix)]))
    return predict.ask(question)


def summary(decoded, k: int, labels, tokenizer) -> None:
    """The decoder input as chips with the chosen token selected, and the output so far as text."""
    step = decoded.steps[k]
    here = len(step.prefix)  # the position the chosen token takes in the next step's input
    st.caption(t("decoding.prefix"))
    st.markdown(token_chips(labels[:here], labels[here]))
    st.metric(t("decoding.chosen", k=k), labels[here], t("decoding.chosen.p", p=view.chosen_p(step)), delta_color="off",
              delta_arrow="off")
    st.caption(t("decoding.so_far"))
    st.text(tokenizer.decode_visible(list(step.prefix[len(decoded.steps[0].prefix):]) + [step.chosen]))
    st.caption(t("decoding.full", why=t(f"decoding.why.{decoded.finished_by}")))
    st.text(tokenizer.decode_visible(list(decoded.ids)))


def next_tokens(step, tokenizer, method: str, params: dict) -> None:
    """The step's next-token chart: for sampling with its settings beside it (sampling_chart)."""
    if method == "sample":
        sampling_chart(step, tokenizer, params)
    else:
        top_chart(step, tokenizer, method)


def top_chart(step, tokenizer, method: str) -> None:
    """The step's most likely next tokens; for sampling, the filtered distribution over the model's own."""
    draw_top(view.top(step, method), tokenizer, method == "sample")


@st.fragment
def sampling_chart(step, tokenizer, applied: dict) -> None:
    """Sampling's temperature, top-k and top-p with the step's distribution under them: moving one redraws the
    chart in this fragment's run, from the step's logits, before the page samples again with it (`applied`: the
    settings the page's decoding used)."""
    now = {name: widget(name, column) for name, column in zip(SHAPE, st.columns(len(SHAPE)))}
    probs = loaders.sampling_probs(step.logits, now["temperature"], now["top_k"], now["top_p"])
    draw_top(view.drawable_top(step, probs, loaders.DECODE_TOP), tokenizer, True)
    if any(now[name] != applied[name] for name in SHAPE):
        st.rerun()  # the whole page: the tokens drawn with the new settings


def one_choice_note(note, decoded, params: dict) -> None:
    """Beside the sampling controls, where every step leaves one token to draw: say that no seed can change the
    output, and offer the model's sentence where it hesitates."""
    shape = {name: params[name] for name in SHAPE}
    if not view.one_choice(loaders.sampling_probs(step.logits, **shape) for step in decoded.steps):
        return
    note.info(t("decoding.sample.one_choice"))
    sentence = HESITANT.get(st.session_state["model"])
    if sentence is not None and sentence != st.session_state["src"]:
        note.button(t("decoding.sample.hesitant", text=sentence), key="decoding.hesitant", on_click=use, args=(sentence,))


def use(sentence: str) -> None:
    """on_click: the sentence becomes the session's text (a callback: the sidebar's box is not drawn yet)."""
    st.session_state["src"] = sentence


def draw_top(top: view.Top, tokenizer, sampled: bool) -> None:
    """The top tokens as bars (for sampling, beside the model's own probability of each)."""
    pieces = [piece(tokenizer, i) for i in top.ids]
    title = t("decoding.top.sample" if sampled else "decoding.top.title", n=len(top.ids))
    fig = figs.top_k_bars(pieces, top.probs, top.chosen, title, t("decoding.top.x"), top.reference,
                          (t("decoding.top.sampled"), t("decoding.top.model")))
    page.chart(fig, "decoding.top", partial(to_csv, top.probs[None], pieces, [t("decoding.top.x")]))
    if top.chosen < 0:
        st.caption(t("decoding.top.outside", n=len(top.ids)))


def attention_rows(rows: view.Rows, heads, name: str, title: str, x_title: str) -> None:
    """One step's rows of one layer: heads × keys, on the shared 0..1 scale."""
    fig = matrix(rows.values, rows.keys, heads, title=title, zrange=(0, 1), x_title=x_title, y_title=t("decoding.heads"))
    page.chart(fig, name, partial(to_csv, rows.values, rows.keys, heads))


def cross_view(rows: view.Rows, mean, layer: int, heads) -> None:
    """The step's cross-attention: every head's row over the source, and their average as bars."""
    st.write(t("decoding.formula.cross"))
    st.latex(r"\alpha_t = \mathrm{softmax}\!\left(\frac{q_t K_{\mathrm{enc}}^\top}{\sqrt{d_k}}\right)")
    left, right = st.columns([3, 2])
    with left:
        attention_rows(rows, heads, "decoding.cross", t("decoding.cross.title", layer=layer), t("decoding.source"))
    fig = figs.weight_bars(rows.keys, mean, t("decoding.cross.mean"), t("decoding.source"), t("decoding.weight"))
    with right:
        page.chart(fig, "decoding.cross_mean", partial(to_csv, mean[None], rows.keys, [t("decoding.cross.mean")]))


def steps_table(decoded, labels) -> None:
    """Every step's chosen token with the model's probability of it."""
    table = view.steps_table(decoded, labels)
    st.dataframe(pd.DataFrame({t("decoding.table.step"): range(len(table.tokens)), t("decoding.table.token"): table.tokens,
                               t("decoding.table.p"): table.probs}), hide_index=True)


def all_steps(decoded, labels, src_labels, layer: int, step: int) -> None:
    """Every step's attention stacked, heads averaged: cross-attention if there is an encoder, else self."""
    a = view.alignment(decoded, labels, src_labels, layer)
    st.caption(t("decoding.all.cross" if a.cross else "decoding.all.self", layer=layer))
    fig = figs.alignment(a.values, a.keys, a.generated, step, x_title=t("decoding.source" if a.cross else "decoding.input"),
                         y_title=t("decoding.all.y"))
    page.chart(fig, "decoding.all", partial(to_csv, a.values, a.keys, a.generated))


def beam_view(decoded, tokenizer, width: int) -> None:
    """The beam tree (x = step, y = rank) and the final hypotheses with their scores, under their heading."""
    st.subheader(t("decoding.beam"))
    st.write(t("decoding.beam.about"))
    tree, hyps = view.tree(decoded), decoded.hypotheses
    fig = figs.beam_tree([[piece(tokenizer, i) for i in step] for step in tree.last_ids], tree.scores,
                         tree.normalized, tree.parents, tree.finished, tree.best,
                         root=" ".join(piece(tokenizer, i) for i in decoded.steps[0].prefix),  # the start
                         title=t("decoding.beam.title", w=width),
                         x_title=t("decoding.beam.x"), y_title=t("decoding.beam.y"),
                         words=(t("decoding.beam.score"), t("decoding.beam.normalized"), t("decoding.beam.finished")))
    nodes = pd.DataFrame([(s.index, r, b.parent, tokenizer.decode_visible(list(b.tokens)), b.score, b.normalized, b.finished)
                          for s in decoded.beams for r, b in enumerate(s.beams)],
                         columns=["step", "rank", "parent", "tokens", "score", "normalized", "finished"])
    page.chart(fig, "decoding.tree", partial(nodes.to_csv, index=False))
    st.caption(t("decoding.hyps"))
    st.dataframe(pd.DataFrame({t("decoding.hyps.text"): [tokenizer.decode_visible(list(h.tokens)) for h in hyps],
                               t("decoding.beam.score"): [h.score for h in hyps],
                               t("decoding.beam.normalized"): [h.normalized for h in hyps],
                               t("decoding.hyps.tokens"): [len(h.tokens) for h in hyps],
                               t("decoding.hyps.finished"): [h.finished for h in hyps]}), hide_index=True)
