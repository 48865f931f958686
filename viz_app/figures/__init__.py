"""Pure plotly builders: numpy arrays and labels in, go.Figure out (no streamlit, no torch)."""
from .heatmap import matrix, safe_labels, to_csv

__all__ = ["matrix", "safe_labels", "to_csv"]
