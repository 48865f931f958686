"""attention_viz: the attention visualizer as a library, one call per chart in a notebook.

    import attention_viz as av
    av.heads("assets/models/translate-en-fr", "the small girl does not see the red car")

`heads`, `head` and `lines` take a model folder (or hub name in the local cache) the core reads, a model the core
loaded, or a transformers model object already in memory (its own `output_attentions`), with a text (and its
tokenizer) or token ids; each returns a plotly figure that shows itself in Jupyter and VS Code, offline.
`steps` follows one query of one head through the softmax (a model the core traces). `to_html(fig)` makes a
self-contained file. The core's own API is here too (`load`, `run_with_trace`), and the app's `views` (plain numpy)
and `figures` (plotly), every module of each loaded (`av.views.explorer`, `av.figures.attention`).

On import, a notebook's figures are given plotly's "notebook" renderer beside its JSON one (unless PLOTLY_RENDERER
names another): the figures then survive a notebook exported with nbconvert, plotly.js in the page, not a CDN.
"""
from __future__ import annotations

from core_model import __version__, load, run_with_trace
import importlib
import pkgutil

from viz_app import figures, views  # the app's plain-numpy views and plotly figures, as the pages use them

from .notebook import Attended, attentions, head, heads, lines, steps, to_html

for _package in (figures, views):  # each module an attribute of its package: av.views.explorer
    for _info in pkgutil.iter_modules(_package.__path__):
        importlib.import_module(f"{_package.__name__}.{_info.name}")
del _package, _info

__all__ = ["__version__", "load", "run_with_trace", "views", "figures", "Attended", "attentions", "heads", "head",
           "lines", "steps", "to_html"]
