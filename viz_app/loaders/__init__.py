"""The only place that caches, and all it does is cache: models, runs, decodings and tables, each bounded.

    models.py     the models (st.cache_resource), where each one's folder is, how much text each reads
    runs.py       one traced run of a text (a shared cache, never pickled: shared_cache.py), and what is drawn
                  from a text's run: a padded batch, attributions, the logit lens, a sentence embedding, the
                  positional encodings' layer 0 (st.cache_data)
    decodings.py  greedy, beam and sampled decodings, and a folder's own generation settings (st.cache_data)
    tables.py     what a page needs from a model rather than a text: vocabulary neighbours, its positions, a
                  head's weights, its training log and snapshots, a teacher-forced batch (st.cache_data)
    corpus.py     the held-out sentences and the queries and keys traced over them (st.cache_data)

Each cached function loads the model or the run and calls the maths, which lives in core_model (torch) or in
viz_app.views (numpy), never here. Every cache is bounded: st.cache_resource by its entries, st.cache_data by its
entries and its pickled bytes, the runs' shared cache by its entries and bytes (one lm-en trace of 2,048 tokens
alone is hundreds of MiB), so no visitor can grow the server without limit (tests/app/test_cache_bounds.py).

Pages write `loaders.run(...)`: this package hands out each module's public names (its __all__), read from that
module when asked. A value replaced in the module that holds it (a test's MODELS_DIR or load_model in
loaders.models) is therefore what every caller gets, inside the package or out.
"""
from __future__ import annotations

from . import corpus, decodings, models, runs, tables

MODULES = (models, runs, decodings, tables, corpus)


def __getattr__(name: str):
    for module in MODULES:
        if name in module.__all__:
            return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *(name for module in MODULES for name in module.__all__)})
