"""One call per chart: read the attention of any model on a text, draw it with the app's figures."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import torch

from core_model import Loaded, Transformer, load, run_with_trace
from core_model.checkpoints import hub_cache
from viz_app.figures import attention as fa
from viz_app.figures import steps as steps_figs
from viz_app.figures.base import figure, margin
from viz_app.text import position_labels

if "PLOTLY_RENDERER" not in os.environ:  # JSON for JupyterLab and VS Code, HTML (plotly.js inline) for nbconvert
    pio.renderers.default = "plotly_mimetype+notebook"


@dataclass(frozen=True)
class Attended:
    """What one model did with one text: every layer's and head's weights and each position's label."""
    patterns: np.ndarray  # [layers, heads, n, n]: the encoder's self-attention, or a decoder-only model's
    labels: tuple[str, ...]  # "3·the": position and token, so a repeated token stays apart
    source: str  # "core_model" or "transformers": who computed the weights


def attentions(model, text, tokenizer=None) -> Attended:
    """`model`: a folder or cached hub name the core reads, what core_model.load returned, or a transformers model
    object. `text`: a string (with `tokenizer` for a transformers model) or a list of token ids."""
    if isinstance(model, (str, Path)):  # a folder, or a hub name the local cache holds (nothing is downloaded)
        model = load(hub_cache.resolve(str(model))[1], trusted=True)  # the notebook's own model: the operator's route
    if isinstance(model, Loaded):
        return _core(model, text)
    if type(model).__module__.startswith("transformers."):
        return _transformers(model, text, tokenizer)
    if isinstance(model, Transformer):
        raise TypeError("a core_model Transformer alone has no tokenizer: pass what core_model.load returned, or "
                        "its folder.")
    raise TypeError(f"attention_viz reads a model folder, what core_model.load returns, or a transformers model; "
                    f"not a {type(model).__name__}.")


def _core(loaded: Loaded, text) -> Attended:
    cfg = loaded.config
    side = "src" if cfg.has_encoder else "tgt"
    tokenizer = loaded.tokenizers[side]
    ids = list(text) if not isinstance(text, str) else tokenizer.encode(text)
    if cfg.has_encoder:
        _, trace = run_with_trace(loaded.model, ids, [cfg.bos_id] if cfg.has_decoder else None, names="*.pattern")
        stack = "encoder"
    else:
        ids = [cfg.bos_id, *ids] if isinstance(text, str) else ids
        _, trace = run_with_trace(loaded.model, None, ids, names="*.pattern")
        stack = "decoder"
    patterns = np.stack([trace.attn(stack, i).pattern[0] for i in range(trace.n_layers(stack))])
    return Attended(patterns, position_labels(tokenizer.display_pieces(ids)), "core_model")


def _transformers(model, text, tokenizer) -> Attended:
    if isinstance(text, str):
        if tokenizer is None:
            raise TypeError("a text for a transformers model needs its tokenizer (tokenizer=...), or pass token ids.")
        ids = tokenizer(text)["input_ids"]
    else:
        ids = [int(i) for i in text]
    training = model.training  # the reader's model is left as it was given
    model.eval()
    try:
        with torch.no_grad():
            out = model(input_ids=torch.tensor([ids]), output_attentions=True)
    finally:
        model.train(training)
    found = getattr(out, "encoder_attentions", None) or out.attentions  # an encoder-decoder's encoder
    if not found:
        raise ValueError(f"{type(model).__name__} gave no attention weights (output_attentions): its attention may "
                         f"be a fused kernel; load it with attn_implementation='eager'.")
    pieces = tokenizer.convert_ids_to_tokens(ids) if tokenizer is not None else [str(i) for i in ids]
    patterns = np.stack([layer[0].float().numpy() for layer in found])
    return Attended(patterns, position_labels(pieces), "transformers")


def heads(model, text, tokenizer=None) -> go.Figure:
    """Every layer × head at once, tiled in one heatmap; a cell's query, key and weight on hover."""
    seen = attentions(model, text, tokenizer)
    p = seen.patterns
    n_layers, n_heads, n = p.shape[:3]
    gap = max(1, round(n / 12))
    z = fa.tiled(p, gap)
    rows, cols = z.shape
    hover = np.full(z.shape, "", dtype=object)
    for layer, head in np.ndindex(n_layers, n_heads):
        top, left = layer * (n + gap), head * (n + gap)
        hover[top:top + n, left:left + n] = [[f"layer {layer}, head {head}<br>{q} → {k}: {p[layer, head, i, j]:.3f}"
                                             for j, k in enumerate(seen.labels)] for i, q in enumerate(seen.labels)]
    hidden = dict(showticklabels=False, showgrid=False, zeroline=False, ticks="")
    return shown(figure([{"type": "heatmap", "z": z, "text": hover.tolist(), "hovertemplate": "%{text}<extra></extra>",
                    "colorscale": "Cividis", "zmin": 0, "zmax": 1}],
                  {"title": {"text": f"Every head: {n_layers} layers × {n_heads} heads ({seen.source})"},
                   "xaxis": dict(hidden, constrain="domain"), "yaxis": dict(hidden, autorange="reversed"),
                   "height": 120 + 90 * n_layers, "margin": margin(40)}))


def head(model, text, layer: int, head: int, tokenizer=None) -> go.Figure:
    """One head's weights with the tokens on both axes."""
    seen = attentions(model, text, tokenizer)
    return shown(fa.head_view(seen.patterns[layer, head], seen.labels, seen.labels, f"Layer {layer}, head {head}",
                              x_title="key", y_title="query"))


def lines(model, text, layer: int, head: int, tokenizer=None) -> go.Figure:
    """One head as lines from each query (left) to each key (right), BertViz-style: weight as width and opacity."""
    seen = attentions(model, text, tokenizer)
    weights = seen.patterns[layer, head]
    return shown(fa.lines(weights, np.ones(weights.shape, bool), seen.labels, seen.labels,
                          title=f"Layer {layer}, head {head}: query (left) → key (right)"))


def steps(model, text, layer: int, head: int, query: int = -1) -> go.Figure:
    """One query of one head through the softmax, as the app's self-attention page shows it: its row of raw scores
    q·k, of scores ÷ √d_k with the mask (blocked keys empty), and of weights, over the keys. A core model only (a
    folder, or what core_model.load returned): the steps need its queries and keys."""
    if not isinstance(model, (str, Path, Loaded)):
        raise TypeError("steps reads a model the core traces (a folder, or what core_model.load returns): "
                        "a transformers model gives its weights, not its queries and keys.")
    loaded = model if isinstance(model, Loaded) else load(hub_cache.resolve(str(model))[1], trusted=True)
    cfg = loaded.config
    tokenizer = loaded.tokenizers["src" if cfg.has_encoder else "tgt"]
    ids = list(text) if not isinstance(text, str) else tokenizer.encode(text)
    if not cfg.has_encoder and isinstance(text, str):
        ids = [cfg.bos_id, *ids]  # a decoder-only model reads its text after <s>, as `attentions` does
    src, tgt = (ids, [cfg.bos_id] if cfg.has_decoder else None) if cfg.has_encoder else (None, ids)
    _, trace = run_with_trace(loaded.model, src, tgt)
    view = trace.attn("encoder" if cfg.has_encoder else "decoder", layer)
    labels, row = position_labels(tokenizer.display_pieces(ids)), query % len(ids)
    rows = [view.scores[0, head, row], view.scores_masked[0, head, row], view.pattern[0, head, row]]
    return shown(steps_figs.query_row(rows, ["q·k", "÷ √d_k, masked", "softmax"], labels,
                                      f"Layer {layer}, head {head}: the row of {labels[row]}", "key"))


def shown(fig: go.Figure) -> go.Figure:
    """The app's figure (template-less: Streamlit draws its own theme) in plotly's own look, for a notebook."""
    return go.Figure(fig).update_layout(template="plotly")


def to_html(fig: go.Figure, path=None) -> str:
    """The figure as one self-contained HTML page (plotly.js inside, nothing fetched); written to `path` if given."""
    page = fig.to_html(include_plotlyjs=True, full_html=True)
    if path is not None:
        Path(path).write_text(page, encoding="utf-8")
    return page
