"""Views: plain numpy between a cached run and the figures.

A view takes a cached run (a traced forward pass with its labels; arrays a cached loader made from the
model, where it needs weights) and the user's selection, and returns a small frozen dataclass of arrays
and labels that one or more figures draw. Views are the only place that knows trace names, sides
(src/tgt) and the block table. No streamlit, plotly or torch here (tests/test_architecture.py).
"""
