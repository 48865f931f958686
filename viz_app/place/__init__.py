"""A page's repeated Streamlit pieces: each takes a view, draws its figure and places it (with its CSV)."""
