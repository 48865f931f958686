"""Entry point of the attention visualizer: `./dev.sh app`."""
import streamlit as st

from viz_app.i18n import t

PAGES = [  # (file, title key, url path)
    ("pages/overview.py", "page.overview", "overview"),
    ("pages/tokens.py", "page.tokens", "tokens"),
    ("pages/positional.py", "page.positional", "positional"),
    ("pages/self_attention.py", "page.self_attention", "self_attention"),
    ("pages/explorer.py", "page.explorer", "explorer"),
    ("pages/masks.py", "page.masks", "masks"),
    ("pages/decoding.py", "page.decoding", "decoding"),
    ("pages/ffn_norm.py", "page.ffn_norm", "ffn_norm"),
    ("pages/worked_example.py", "page.worked_example", "worked_example"),
]

st.set_page_config(page_title="Attention visualizer", layout="wide")
# Each page draws the shared sidebar itself (viz_app.page.start), so it also works when
# Streamlit runs a file of pages/ on its own, as it does before st.navigation is first called.
st.navigation([st.Page(path, title=t(key), url_path=url, default=i == 0)
               for i, (path, key, url) in enumerate(PAGES)]).run()
