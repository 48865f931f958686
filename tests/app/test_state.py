"""state.setting, the one way a page reads a URL-synced setting: a link's value, a bad link, a stale value."""
from streamlit.testing.v1 import AppTest


def page():
    import streamlit as st

    from viz_app import page, state

    say = st.session_state.get("say_stale", False)
    value = state.setting("n", 2, state.parse_int, range(5).__contains__, say_stale=say)
    page.show_noted()
    st.write(f"value={value}")


def run(query=None, **session):
    at = AppTest.from_function(page)
    at.query_params.update(query or {})
    for key, value in session.items():
        at.session_state[key] = value
    return at.run()


def shown(at):
    return [m.value for m in at.markdown if m.value.startswith("value=")][0]


def test_a_links_value_is_used_and_written_back():
    at = run({"n": "4"})
    assert shown(at) == "value=4" and at.query_params["n"] == "4" and not at.warning


def test_a_bad_link_is_said_and_the_default_used():
    for raw in ("x", "9"):
        at = run({"n": raw})
        assert shown(at) == "value=2" and at.query_params["n"] == "2"
        assert len(at.warning) == 1 and f"n = {raw}" in at.warning[0].value


def test_a_stale_session_value_goes_back_quietly_or_said():
    quiet = run(n=7)
    assert shown(quiet) == "value=2" and quiet.session_state["n"] == 2 and not quiet.warning
    said = run(n=7, say_stale=True)
    assert shown(said) == "value=2" and "n = 7" in said.warning[0].value
