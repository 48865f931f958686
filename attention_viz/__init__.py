"""attention_viz: the attention visualizer as a library, one call per chart in a notebook.

    import attention_viz as av
    av.heads("assets/models/translate-en-fr", "the small girl does not see the red car")

`heads`, `head` and `lines` take a model folder (or hub name in the local cache) the core reads, a model the core
loaded, or a transformers model object already in memory (its own `output_attentions`), with a text (and its
tokenizer) or token ids; each returns a plotly figure that shows itself in Jupyter and VS Code, offline.
`steps` follows one query of one head through the softmax (a model the core traces). `to_html(fig)` makes a
self-contained file. The core's own API is here too: `load` and `run_with_trace`.

On import, a notebook's figures are given plotly's "notebook" renderer beside its JSON one (unless PLOTLY_RENDERER
names another): the figures then survive a notebook exported with nbconvert, plotly.js in the page, not a CDN.
"""
from __future__ import annotations

from core_model import __version__, load, run_with_trace

from .notebook import Attended, attentions, head, heads, lines, steps, to_html

__all__ = ["__version__", "load", "run_with_trace", "Attended", "attentions", "heads", "head", "lines", "steps",
           "to_html"]
