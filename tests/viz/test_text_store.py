"""The server's store of long texts for links (text_store), and reading a .txt file (text.read_txt): every bound a
visitor's route meets, count, bytes, one text's length, the fingerprint's form, the file's size and encoding."""
import pytest

from viz_app import text_store
from viz_app.text import MAX_TEXT_CHARS, MAX_TXT_BYTES, flatten, read_txt
from viz_app.text_store import DIGEST_HEX, TextStore


def test_a_kept_text_comes_back_by_its_fingerprint_and_only_by_it():
    store = TextStore()
    key = store.put("a long text " * 200)
    assert len(key) == DIGEST_HEX and set(key) <= set("0123456789abcdef")
    assert store.get(key) == "a long text " * 200
    assert store.put("a long text " * 200) == key and len(store) == 1  # the same text: one entry
    for other in (key.upper(), key[:-1], key + "0", "0" * DIGEST_HEX, f"../{key}", None, 7, "x" * 100_000):
        assert store.get(other) is None


def test_the_fingerprint_is_keyed_by_the_servers_secret():
    """Not a plain hash of the text: a visitor cannot compute it for a text they guess (another server, another key)."""
    import hashlib

    text = "the old man " * 100
    assert TextStore().fingerprint(text) != TextStore().fingerprint(text)
    assert TextStore().fingerprint(text) not in hashlib.sha256(text.encode()).hexdigest()


def test_the_store_keeps_at_most_its_count_the_least_recently_used_out():
    store = TextStore(max_texts=3)
    keys = [store.put(f"text {i} " * 200) for i in range(3)]
    assert store.get(keys[0])  # used: now the most recent
    fourth = store.put("text 3 " * 200)
    assert len(store) == 3 and store.get(keys[1]) is None  # the oldest unused one went
    assert all(store.get(k) for k in (keys[0], keys[2], fourth))


def test_the_store_keeps_at_most_its_bytes_counted_in_utf8():
    store = TextStore(max_bytes=10_000)
    first = store.put("猫" * 2000)  # 6,000 bytes of UTF-8 in 2,000 characters
    second = store.put("猫" * 1500)  # 4,500 more: over 10,000, so the first goes
    assert store.get(first) is None and store.get(second) and store.nbytes == 4500
    for i in range(50):
        store.put(f"{i} " + "x" * 3000)
        assert store.nbytes <= 10_000


def test_a_text_longer_than_a_box_takes_is_not_kept():
    store = TextStore()
    assert store.put("x" * (MAX_TEXT_CHARS + 1)) is None and len(store) == 0
    assert store.put("x" * MAX_TEXT_CHARS) is not None


def test_the_servers_store_is_bounded():
    store = text_store.STORE
    assert (store.max_texts, store.max_bytes, store.max_chars) == (256, 16 * 2**20, MAX_TEXT_CHARS)
    assert store.max_bytes >= 128 * MAX_TEXT_CHARS  # 128 texts that fill a box, at least


def test_lines_and_tabs_become_single_spaces():
    assert flatten(" the old man\r\n\r\n\tsees\u2028the car \n") == "the old man sees the car"


@pytest.mark.parametrize("data, key", [
    (b"", "txt.empty"), (b" \n\t\r\n ", "txt.empty"), (b"\xef\xbb\xbf", "txt.empty"),
    ("café".encode("latin-1"), "txt.not_utf8"), (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "txt.not_utf8"),
    (b"the cat\x00\x00\x01 sat", "txt.binary"), (b"\x01\x02\x03\x04" + b"abc" * 20, "txt.binary"),
    (b"x" * (MAX_TXT_BYTES + 1), "txt.too_big")])
def test_a_file_that_is_no_readable_text_is_refused_with_its_reason(data, key):
    text, (said, _) = read_txt(data)
    assert text is None and said == key


def test_a_readable_file_is_its_text_flattened_and_cut_to_what_a_box_takes():
    assert read_txt("\ufeffthe old man\nsees 猫\n".encode()) == ("the old man sees 猫", ("txt.read", {"n": 18}))
    text, (said, fields) = read_txt(b"word " * 10_000)
    assert len(text) == MAX_TEXT_CHARS and said == "txt.cut" and fields == {"n": 49_999, "keep": MAX_TEXT_CHARS}
