"""Entry point of the attention visualizer: `./dev.sh app`."""
import streamlit as st

from viz_app.i18n import t

PAGES = [  # (file, title key, url path)
    ("app_pages/overview.py", "page.overview", "overview"),
    ("app_pages/tokens.py", "page.tokens", "tokens"),
    ("app_pages/positional.py", "page.positional", "positional"),
    ("app_pages/self_attention.py", "page.self_attention", "self_attention"),
    ("app_pages/explorer.py", "page.explorer", "explorer"),
    ("app_pages/masks.py", "page.masks", "masks"),
    ("app_pages/decoding.py", "page.decoding", "decoding"),
    ("app_pages/ffn_norm.py", "page.ffn_norm", "ffn_norm"),
    ("app_pages/worked_example.py", "page.worked_example", "worked_example"),
]

st.set_page_config(page_title="Attention visualizer", layout="wide")
# A widget's value belongs to the page that drew it, and each page draws the sidebar itself: Streamlit
# drops the sidebar's values when another page opens. Set by code here, they outlive the page change.
for key in ("lang", "model", "src", "tgt", "layer", "head", "hide_special"):
    if key in st.session_state:
        st.session_state[key] = st.session_state[key]
# The pages live in app_pages/, not pages/: Streamlit treats a pages/ folder beside the entry point
# as an old-style multipage app and serves its files without this script (and so without this
# navigation) to any visitor who arrives before st.navigation has once run in the process.
# Each page draws the shared sidebar itself (viz_app.page.start).
st.navigation([st.Page(path, title=t(key), url_path=url, default=i == 0)
               for i, (path, key, url) in enumerate(PAGES)]).run()
