"""Pure plotly builders: a view's arrays and labels in, go.Figure out (no streamlit, no torch, no maths)."""
