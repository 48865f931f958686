"""Hostile files and paths through the sidebar, as a stranger on a public server would bring them: each is
refused in one short message, within a bound, the visitor keeps the model they had, nothing is left on
disk, and nothing of the server's disk outside the folder it opens to visitors is read or said to exist."""
import json
import os
import re
import resource
import time

import pytest
import torch

from core_model import checkpoints, messages
from core_model.checkpoints import bounded
from tests.app.conftest import assert_clean, named_chart, open_page, shown
from tests.bad_checkpoints import REVERSE, deep_model, endless_model, files_of, split_regex, tiny_bert, zip_of
from viz_app import loaders, own_model
from viz_app.loaders import cost, runs
from viz_app.i18n import text

SENTENCE = "one two three four five"


@pytest.fixture(autouse=True)
def own_dir(monkeypatch, tmp_path):
    monkeypatch.setattr(own_model, "OWN_DIR", tmp_path / "own")
    return tmp_path / "own"


def upload(at, name: str, data: bytes):
    at.sidebar.file_uploader[0].set_value((name, data, "application/zip"))
    return at.run()


def with_config(**fields) -> bytes:
    config = {**json.loads((REVERSE / "config.json").read_text()), **fields}
    return zip_of({**files_of(), "config.json": json.dumps(config).encode()})


def refused(at, kind: str) -> str:
    """The one error the sidebar shows, checked for its kind and length; the visitor keeps their model."""
    assert_clean(at)
    (error,) = [shown(e.value) for e in at.error]
    assert error.startswith("bad.zip was not loaded: " + text(f"own.why.{kind}", "en")), error
    assert len(error) <= messages.MAX_MESSAGE + 200  # the loader's reason, plus the sentence around it
    assert at.session_state["model"] == "reverse" and named_chart(at, "self_attention.pattern")
    return error


@pytest.mark.parametrize("config, kind, said", [
    ({"max_len": 1_000_000_000, "positional": "rope"}, "limit", "max_len 1,000,000,000"),
    ({"type_vocab_size": 8_000_000}, "limit", "million weights"),
    ({"type_vocab_size": 10**9}, "limit", "million weights"),
    ({**{f"key{i}": 1 for i in range(300_000)}}, "invalid", "…and 299,995 more"),
])
def test_a_config_that_asks_too_much_is_refused_before_anything_is_built(own_dir, config, kind, said):
    at = open_page("self_attention", model="reverse", src=SENTENCE)
    start, peak = time.monotonic(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KB
    error = refused(upload(at, "bad.zip", with_config(**config)), kind)
    assert said in error and time.monotonic() - start < 30  # the probe's own limit is 60 s
    # The server's high-water mark: the 8,000,000 token types once took it from 387 to 4,297 MB.
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak < 200 * 1024
    assert not list(own_dir.iterdir())  # not even a half-unpacked folder


def test_three_nested_configs_leave_nothing_on_disk(own_dir):
    at = open_page("self_attention", model="reverse", src=SENTENCE)
    nested = zip_of({**files_of(), "config.json": b"[" * 200_000 + b"]" * 200_000})  # json would recurse
    for _ in range(3):
        error = refused(upload(at, "bad.zip", nested), "invalid")
        assert "nests more than 64 levels" in error
    assert not list(own_dir.iterdir())


def test_a_number_of_5000_digits_is_named_shortly():
    at = open_page("self_attention", model="reverse", src=SENTENCE)
    data = zip_of({**files_of(), "config.json": b'{"d_model": ' + b"9" * 5000 + b"}"})
    error = refused(upload(at, "bad.zip", data), "invalid")
    assert "over 4,300 digits" in error and "set_int_max_str_digits" not in error


def test_weights_too_large_to_compute_with_are_refused(tmp_path):
    loaded = checkpoints.load(REVERSE)
    with torch.no_grad():
        for p in loaded.model.parameters():
            p.fill_(3e38)  # finite, but any product overflows
    data = zip_of(files_of(checkpoints.save(tmp_path / "huge", loaded.model, loaded.tokenizers)))
    at = open_page("self_attention", model="reverse", src=SENTENCE)
    assert "not finite numbers" in refused(upload(at, "bad.zip", data), "numbers")


def test_an_unforeseen_failure_is_said_without_a_traceback_and_cleaned_up(own_dir, monkeypatch):
    def crash(folder):
        (folder / "config.json").write_text("{}")
        raise RuntimeError("/srv/secret/path went wrong")

    monkeypatch.setattr(checkpoints, "extract_zip", lambda data, folder: crash(folder))
    at = open_page("self_attention", model="reverse", src=SENTENCE)
    error = refused(upload(at, "bad.zip", zip_of(files_of())), "crash")
    assert "/srv/secret" not in error and "RuntimeError" in error
    assert not list(own_dir.iterdir())


def test_decoding_a_model_that_never_stops_ends_at_the_fixed_cap(tmp_path):
    at = open_page("overview", src=SENTENCE)
    upload(at, "endless.zip", zip_of(files_of(endless_model(tmp_path / "endless"))))  # never picks </s>
    assert at.session_state["model"].startswith("own-")
    start = time.monotonic()
    at.switch_page("app_pages/decoding.py").run()
    assert_clean(at)
    decoded = loaders.decode(at.session_state["model"], SENTENCE)
    assert decoded.finished_by in ("max_len", "time") and len(decoded.steps) <= loaders.MAX_DECODE_STEPS
    assert time.monotonic() - start < 3 * loaders.DECODE_SECONDS  # greedy for the output, then the page's own


def test_a_tokenizer_that_panics_on_some_text_says_so_for_that_text(tmp_path):
    bert = tiny_bert(tmp_path / "bert", split_regex("((a+)+)+b"))  # backtracks past its limit on 16+ a's
    at = open_page("overview", src="the cat sat on the mat")
    upload(at, "bert.zip", zip_of(files_of(bert)))
    assert at.session_state["model"].startswith("own-") and named_chart(at, "overview.embedding")
    at.sidebar.text_input(key="src").set_value("a" * 40).run()
    assert_clean(at)  # the tokenizers library's PanicException used to leave the page blank
    assert [i.value for i in at.info] == [text("input.unreadable", "en")]
    at.sidebar.text_input(key="src").set_value("the cat sat").run()
    assert_clean(at)
    assert not at.info and named_chart(at, "overview.embedding")  # other text reads as before


# ----- the folder box: only inside the one folder the server opens to visitors -------------------------------

def folder_box(at):
    return [w for w in at.sidebar.text_input if w.key == own_model.FOLDER]


def test_without_the_setting_there_is_no_folder_box(monkeypatch):
    monkeypatch.delenv(own_model.ROOT_SETTING, raising=False)
    at = open_page("overview", src=SENTENCE)
    assert_clean(at)
    assert folder_box(at) == [] and at.sidebar.file_uploader  # uploads stay possible


@pytest.fixture
def root(tmp_path, monkeypatch):
    """A server that opens tmp_path/models to visitors; a folder with secrets lies beside it."""
    models = tmp_path / "models"
    (models / "mine").mkdir(parents=True)
    for name, data in files_of().items():
        (models / "mine" / name).write_bytes(data)
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "config.json").write_text(json.dumps({"api_key": "k", "db_password": "p"}))
    (secrets / "weights.bin").write_bytes(b"x")
    (models / "link").symlink_to(secrets)
    monkeypatch.setenv(own_model.ROOT_SETTING, str(models))
    return tmp_path


def typed(at, path: str) -> list[str]:
    folder_box(at)[0].set_value(path)
    at.run()
    assert_clean(at)
    return [shown(e.value) for e in at.error]


@pytest.mark.parametrize("path", ["{tmp}/secrets", "{tmp}/nowhere", "../secrets", "../nowhere", "link", "/etc",
                                  "/proc/self/cwd", "/"])
def test_a_path_outside_the_opened_folder_is_never_read_nor_said_to_exist(root, path):
    at = open_page("self_attention", model="reverse", src=SENTENCE)
    path = path.format(tmp=root)
    assert typed(at, path) == [text("own.outside", "en", source=path)]  # the same words, whether it exists or not
    assert at.session_state["model"] == "reverse"
    assert not own_model.OWN_DIR.exists() or not list(own_model.OWN_DIR.iterdir())  # nothing was copied


@pytest.mark.parametrize("path", ["~", "~root", "~nosuchuser", "$HOME"])
def test_a_tilde_or_a_variable_is_a_name_inside_the_folder(root, path):
    at = open_page("self_attention", model="reverse", src=SENTENCE)
    (error,) = typed(at, path)  # no home directory is looked up: "~nosuchuser" used to crash the page
    assert error.startswith(f"{path} was not loaded") and "is not a checkpoint folder" in error
    assert str(root) not in error and os.path.expanduser("~") + "/" not in error


def test_a_folder_inside_is_loaded_by_its_relative_path(root):
    at = open_page("overview", src=SENTENCE)
    assert typed(at, "mine") == []
    assert at.session_state["model"].startswith("own-")
    assert [shown(s.value) for s in at.success] == [text("own.loaded", "en", source="mine")]


def test_a_costly_model_reads_what_one_visitors_run_may_hold_says_the_figures_and_keeps_its_run(tmp_path,
                                                                                              monkeypatch):
    # 24 layers × 8 heads and 8,192 positions, within every limit of the loader, against a bound of 128 MiB (the
    # server's is 2 GiB: 96 layers × 32 heads are cut from 500 tokens to 413 by it, in 31 s of this test)
    monkeypatch.setattr(cost, "VISITOR_RUN_BYTES", 128 * 2**20)
    folder = deep_model(tmp_path / "deep", layers=24, heads=8)
    text_500 = ("one two " * 250).strip()  # 2,000 characters, the sentence box's own limit: 500 tokens
    at = open_page("overview", src=SENTENCE)
    upload(at, "deep.zip", zip_of(files_of(folder)))
    name = at.session_state["model"]
    assert own_model.is_own(name)
    traced = []
    trace = runs._run
    monkeypatch.setattr(runs, "_run", lambda *a: traced.append(a[1]) or trace(*a))
    at.session_state["src"] = text_500
    at.switch_page("app_pages/explorer.py").run(timeout=120)
    assert_clean(at)
    (said,) = [shown(w.value) for w in at.warning if "a model you brought" in w.value]
    keep = int(re.search(r"reads at most ([\d,]+) of them", said).group(1).replace(",", ""))
    assert "The text has 500 tokens" in said and "24 layers × 8 heads" in said and "128 MB" in said
    at.run(timeout=120)  # the run was kept: a rerun does not trace it again
    assert_clean(at)
    assert traced == [name]
    # what the run read: <s> and `keep` tokens, whose attention weights alone fit the bound, unlike 500 tokens'
    run = loaders.run(name, text_500)
    assert len(run.tgt_ids) == keep + 1 and 4 * 24 * 8 * (keep + 1) ** 2 <= 128 * 2**20 < 4 * 24 * 8 * 501 ** 2
    assert run.trace.nbytes <= loaders.RUN_BYTES


def test_a_tokenizer_that_takes_too_long_on_a_text_is_stopped_and_said(tmp_path):
    # Nested repeats: a run of n "a"s takes time exponential in min(n, 22), times n (300 took 19 s in the server)
    bert = tiny_bert(tmp_path / "bert", split_regex("(?:a|a){1,22}b"))
    at = open_page("overview", src="the cat sat on the mat")
    upload(at, "bert.zip", zip_of(files_of(bert)))  # the probe's sentence is fast: accepted
    name = at.session_state["model"]
    assert own_model.is_own(name) and named_chart(at, "overview.embedding")
    start = time.monotonic()
    at.sidebar.text_input(key="src").set_value("a" * 300).run(timeout=60)
    assert_clean(at)
    assert time.monotonic() - start < bounded.ENCODE_SECONDS + 5
    (said,) = [shown(i.value) for i in at.info]
    assert said.startswith("The tokenizer took over 5 s on this text and was stopped")
    at.sidebar.text_input(key="src").set_value("the cat sat").run()  # a fresh child reads the next text
    assert_clean(at)
    assert not at.info and named_chart(at, "overview.embedding")
