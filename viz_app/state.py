"""Session-state keys, their defaults, and the query parameters that make a view shareable.

A key read through `synced` starts from the URL's query parameter (once per session), else
from its default, and is written back to the URL on every run, so a copied link reopens the
same view. Widgets change their value before the run starts, so writing it back when it is
read (just before its widget is drawn) keeps the URL current without an end-of-run hook.
A text over MAX_URL_TEXT characters goes into the URL as its fingerprint (`src.sha`), and this
server keeps the text (text_store): the link opens it on this server, while the server keeps it.
"""
from __future__ import annotations

import streamlit as st

from .serving import DROPPED_LINK
from .text_store import STORE

_FROM_URL = "_read_from_url"
_LINKED = "_linked"  # key -> the value the link gave it in this run (forget_noted empties it as a run starts)
_HELD = "_held_link"  # key -> a link's value too long to stay in the URL (hold_long_link), until `synced` reads it
SHA = ".sha"  # a link's `src.sha`: the fingerprint of a text too long for the link, which this server keeps (publish)


def parse_int(raw: str) -> int:
    return int(raw)


def parse_bool(raw: str) -> bool:
    if raw.lower() in ("1", "true", "yes", "on"):
        return True
    if raw.lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError(raw)


def is_bool(value) -> bool:
    return isinstance(value, bool)


def synced(key: str, default, parse=str, ok=None):
    """The session's value for `key`, taken from the URL the first time, else `default`.

    A link's value that does not parse, or that `ok(value)` refuses, is noted (bad_link) and the
    default used; values set later by the page itself are the page's to check. A value the link gives is
    the link's (from_link) for the rest of this run: a page that cannot use it then says the link asked for it.
    """
    ss = st.session_state
    from_url, linked = ss.setdefault(_FROM_URL, set()), ss.setdefault(_LINKED, {})
    if key not in ss:
        raw = st.query_params.get(key, ss.get(_HELD, {}).pop(key, None))
        if raw is None and key not in from_url:
            raw = from_fingerprint(key, default)
        value = default
        if raw is not None and key not in from_url:
            from_url.add(key)
            try:
                value = parse(raw)
                if ok is not None and not ok(value):
                    raise ValueError(raw)
                linked[key] = value
            except (ValueError, TypeError):
                value = default
                bad_link(key, raw, default)
        ss[key] = value
    publish(key)
    return ss[key]


def setting(key: str, default, parse=str, ok=None, say_stale: bool = False):
    """The one way a page reads a URL-synced setting: `synced`, then a value the page cannot use put back.

    A link's value that does not parse or that `ok` refuses is said (page.show_noted) and `default` used.
    A value already in the session that `ok` refuses now (another model or sentence made it unusable, or a
    script set it) goes back to `default` quietly, or said too with say_stale=True (see replace).
    """
    value = synced(key, default, parse, ok)
    if ok is not None and not ok(value):
        replace(key, value, default, say_stale)
        value = default
    return value


def follow_default(key: str, default):
    """`synced` for a text box whose default changes with other settings (the sidebar's sentence, the model): while
    the user has not edited it, it moves to the new default; once edited (or given by a link), it keeps its text."""
    ss = st.session_state
    last = f"_default.{key}"  # the default the box had when last drawn
    if key in ss and ss[key] == ss.get(last) != default:
        ss[key] = default  # not edited: it follows
    ss[last] = default
    return synced(key, default)


def _same(a, b) -> bool:
    return type(a) is type(b) and a == b


def from_link(key: str, value) -> bool:
    """Whether the session holds `value` for `key` because the link asked for it in this run."""
    linked = st.session_state.get(_LINKED, {})
    return key in linked and _same(linked[key], value)


def replace(key: str, value, used, say: bool = True) -> None:
    """Put `used` in place of the session's `value` for `key`, which this view cannot show; with `say`, note why:
    the link asked for it (bad_link: "the link asked for …"), or, for a value the session came to hold otherwise
    (a model with fewer layers was loaded since, a script set it), that this view has no such value. Never the
    first for the second: a stale value is not a link's."""
    if say and from_link(key, value):
        bad_link(key, value, used)
    elif say:
        st.session_state.setdefault("_notices", []).append(("query.stale", {"setting": f"{key} = {value}",
                                                                            "used": used}))
    st.session_state[key] = used
    publish(key)


def drop_surrogates(key: str) -> None:
    """Strip lone surrogates from a text value before its widget is drawn: they have no UTF-8 form.

    A browser never sends one; a script or test setting session state can, and the widget
    would fail to send it back.
    """
    value = st.session_state.get(key)
    if isinstance(value, str) and any(0xD800 <= ord(c) <= 0xDFFF for c in value):
        st.session_state[key] = "".join(c for c in value if not 0xD800 <= ord(c) <= 0xDFFF)
        st.session_state.setdefault("_notices", []).append(("input.surrogate", {}))


def from_fingerprint(key: str, default):
    """The text whose fingerprint the link gives as `key`.sha (publish), or None: none given, one that is no
    fingerprint (said as a link's bad value), or one this server does not keep (said: restarted, or pushed out)."""
    raw = st.query_params.get(key + SHA, st.session_state.get(_HELD, {}).pop(key + SHA, None))
    if raw is None:
        return None
    found = STORE.get(raw)
    if found is None and STORE.well_formed(raw):
        st.session_state.setdefault("_notices", []).append(("link.text_gone", {}))
    elif found is None:
        bad_link(key + SHA, raw, default)
    return found


def cap_text(key: str, most: int) -> None:
    """Cut a text value over `most` characters before its widget is drawn, saying so: a text box cuts what is typed
    (max_chars), this what a link or a script gave it."""
    value = st.session_state.get(key)
    if isinstance(value, str) and len(value) > most:
        st.session_state[key] = value[:most]
        st.session_state.setdefault("_notices", []).append(("input.chars_cut", {"n": len(value), "keep": most}))
        publish(key)


def hold_long_link() -> None:
    """Take a link's values longer than MAX_URL_TEXT out of the URL, in one message, before anything is written to it:
    Streamlit sends the whole query string again with every write, and a 100 KB value sent 12 times made each open of
    such a link 2.7 MB. `synced` reads a held value as it would the URL's (a long sentence is still the link's)."""
    params = st.query_params
    long = {k: params.get(k) for k in params if sum(map(len, params.get_all(k))) > MAX_URL_TEXT}
    if long:
        st.session_state.setdefault(_HELD, {}).update(long)
        params.from_dict({k: params.get_all(k) for k in params if k not in long})


def note_dropped_link() -> None:
    """A link Streamlit ignored for its size (serving.close_to_visitors): said once, and its mark taken out of it."""
    raw = st.query_params.get(DROPPED_LINK)
    if raw is None:
        return
    del st.query_params[DROPPED_LINK]
    length = int(raw) if raw.isdigit() else 0
    st.session_state.setdefault("_notices", []).append(("query.dropped", {"n": length}))


def take_notices() -> list[tuple[str, dict]]:
    return st.session_state.pop("_notices", [])


def bad_link(key: str, raw, used) -> None:
    """Remember that the link asked for something this view cannot show (said on the page)."""
    st.session_state.setdefault("_bad_link", []).append((key, str(raw)[:80], str(used)))


def take_bad_link() -> list[tuple[str, str, str]]:
    return st.session_state.pop("_bad_link", [])


def forget_noted() -> None:
    """Drop what an earlier run noted but did not show (it stopped first): it belongs to that run."""
    st.session_state.pop("_bad_link", None)
    st.session_state.pop("_notices", None)
    st.session_state.pop(_LINKED, None)  # a value the link gave in an earlier run is the session's now


def clamp(key: str, n: int) -> int:
    """Keep an index-valued key (layer, head, step) within 0..n-1, saying so (see replace)."""
    value = st.session_state.get(key, 0)
    if not isinstance(value, int) or not 0 <= value < n:
        used = 0 if not isinstance(value, int) or value < 0 else n - 1
        replace(key, value, used)
        value = used
    return value


MAX_URL_TEXT = 1000  # longer values stay out of the link: browsers and servers cap URL length


def url_text(value) -> str:
    text = ("1" if value else "0") if isinstance(value, bool) else str(value)
    return text.encode("utf-8", "ignore").decode("utf-8")  # a lone surrogate has no URL form


def linkable(key: str) -> bool:
    """Whether the session's value of `key` fits in a link (else a copied link opens without it)."""
    return len(url_text(st.session_state.get(key, ""))) <= MAX_URL_TEXT


def link_note(key: str) -> str | None:
    """The i18n key of what a text box says of its text in the link (n=MAX_URL_TEXT): None where the link holds the
    text, "input.fingerprint" where it holds the text's fingerprint (publish), "input.unlinked" where neither."""
    if linkable(key):
        return None
    return "input.fingerprint" if STORE.fits(url_text(st.session_state.get(key, ""))) else "input.unlinked"


def publish(key: str) -> None:
    """Mirror the session's value of `key` into the URL. A text over MAX_URL_TEXT characters goes in as its
    fingerprint, `key`.sha, the server keeping the text (text_store); one too long for that too is left out."""
    value = st.session_state.get(key)
    if value is None:
        return
    text = url_text(value)
    long = len(text) > MAX_URL_TEXT
    put(key, None if long else text)
    put(key + SHA, STORE.put(text) if long else None)


def put(param: str, value: str | None) -> None:
    """Set the URL's `param` to `value`, or take it out for None; nothing is sent where it already is so."""
    if value is None:
        if param in st.query_params:
            del st.query_params[param]
    elif st.query_params.get(param) != value:
        st.query_params[param] = value
