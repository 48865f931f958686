"""Entry point of the attention visualizer: `./dev.sh app`."""
import streamlit as st

from viz_app import first_visit

notice = first_visit.waiting()  # a fresh server's first run: say what is being prepared before torch is imported

from viz_app import classroom, lesson  # noqa: E402  (after the notice: these import torch)
from viz_app.i18n import default_lang, text  # noqa: E402
from viz_app.registry import PAGES  # noqa: E402
from viz_app.serving import settle  # noqa: E402

# The navigation, the tab's title and the sidebar are drawn before any page reads its settings: a fresh
# link's language and presenter mode are read from the link here (the page checks them again).
lang = classroom.early("lang", default_lang())
st.set_page_config(page_title=text("app.title", lang), layout="wide",
                   initial_sidebar_state="collapsed" if classroom.early("present", False) else "auto")
settle()  # each run: torch's threads in this run's thread; the first also takes the modules out of the collection
# A widget's value belongs to the page that drew it, and each page draws the sidebar itself: Streamlit
# drops the sidebar's values when another page opens. Set by code here, they outlive the page change.
for key in ("lang", "model", "src", "tgt", "layer", "head", "hide_special", "half", *classroom.KEYS):
    if key in st.session_state:
        st.session_state[key] = st.session_state[key]
# The pages live in app_pages/, not pages/: Streamlit treats a pages/ folder beside the entry point
# as an old-style multipage app and serves its files without this script (and so without this
# navigation) to any visitor who arrives before st.navigation has once run in the process.
# Each page draws the shared sidebar itself (viz_app.page.start).
# The app's root shows no page of its own: it opens the first page at its own path, with the link's
# settings. (Given as the default page, the first would answer only at "/": a link to /overview then
# opened a "Page not found" dialog.)
pages = [st.Page(p.path, title=text(p.title_key, lang), url_path=p.name) for p in PAGES]


def home() -> None:
    st.switch_page(pages[0], query_params=st.query_params.to_dict())


current = st.navigation([st.Page(home, default=True, visibility="hidden"), *pages])
st.session_state[lesson.PAGE] = current.url_path  # the guided lesson says when its step is on another page
try:
    current.run()
finally:  # a page that stops early (st.stop, a page switch) has still run: the process is warm
    first_visit.done(notice)
