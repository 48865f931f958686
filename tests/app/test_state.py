"""state.setting, the one way a page reads a URL-synced setting: a link's value, a bad link, a stale value; and
state.follow_default, a text box that follows its default until the user edits it."""
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


def text_page():
    import streamlit as st

    from viz_app import state

    state.follow_default("text", st.session_state.get("default", "first"))
    st.text_input("text", key="text")


def typed(at):
    return at.text_input(key="text").value


def test_a_text_box_follows_its_default_until_edited_then_keeps_the_users_text():
    at = AppTest.from_function(text_page).run()
    assert typed(at) == "first" and at.query_params["text"] == "first"
    at.session_state["default"] = "second"
    at.run()
    assert typed(at) == "second" and at.query_params["text"] == "second"  # not edited: it follows
    at.text_input(key="text").input("mine").run()
    at.session_state["default"] = "third"
    at.run()
    assert typed(at) == "mine" and at.query_params["text"] == "mine"


def test_a_links_text_is_kept_when_the_default_changes():
    at = AppTest.from_function(text_page)
    at.query_params["text"] = "linked"
    at.run()
    at.session_state["default"] = "second"
    at.run()
    assert typed(at) == "linked" and at.query_params["text"] == "linked"
