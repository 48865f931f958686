"""Whose a cached result is: a text a visitor typed is cached for that visitor's session alone.

A cache that every session shares answers a text that somebody else already ran at once (the attribution page:
0.04 s from the cache against 0.37–1.0 s computed), so by timing a page a visitor could tell whether another had
typed that exact sentence. Every loader keyed by a text therefore also takes a `scope`: "" (shared by all) when each
of its texts is one of the app's own examples (examples.SHARED), which every visitor sees anyway, and the session's
id otherwise. Outside a session (the server's warm-up, a benchmark, a test calling a loader) the scope is "".

    @per_visitor("src_text", "tgt_text")      # the parameters that hold a visitor's text
    @st.cache_data(...)
    def attribution(name, src_text, tgt_text="", position=0, scope=""): ...

The cached function never reads `scope`; it is there to be part of the cache's key.
"""
from __future__ import annotations

import functools
import inspect

from streamlit.runtime.scriptrunner import get_script_run_ctx

from ..examples import SHARED


def scope(texts) -> str:
    """"" when every text is shared (an example, or empty), else the running session's id ("" outside a session)."""
    if all(text in SHARED for text in texts):
        return ""
    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx.session_id if ctx is not None else ""


class PerVisitor:
    """A cached function called with the scope of its text parameters; its cache's own methods (clear, nbytes)
    are the wrapped one's."""

    def __init__(self, cached, names: tuple[str, ...]):
        functools.update_wrapper(self, cached, updated=())  # its name and docstring; its attributes stay its own
        self.cached, self.names, self._signature = cached, names, inspect.signature(cached)

    def __call__(self, *args, **kwargs):
        bound = self._signature.bind(*args, **kwargs)
        texts = []
        for name in self.names:
            value = bound.arguments.get(name, "")
            texts.extend(value if isinstance(value, tuple) else [value])  # a tuple: the masks page's lines
        return self.cached(*args, **kwargs, scope=scope(texts))

    def __getattr__(self, name):
        return getattr(self.cached, name)

    def __len__(self) -> int:
        return len(self.cached)


def per_visitor(*names: str):
    """Decorator: the cached function gets `scope` from the parameters `names` (see the module's docstring)."""
    return lambda cached: PerVisitor(cached, names)
