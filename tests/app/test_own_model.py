"""Your own model, through the sidebar: a good zip or folder is added and selected; a bad one is
refused with its reason while the model the user had stays selected and its page still draws."""
import shutil

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from core_model import checkpoints
from tests.app.conftest import APP, assert_clean, chart_names, decode, named_chart, open_page, shown
from tests.bad_checkpoints import REVERSE, bad_zips, files_of, zip_of
from viz_app import loaders, own_model
from viz_app.i18n import text

SENTENCE = "two three four five"  # words the reverse model knows, and the translator too (no "one" in its grammar)


@pytest.fixture(autouse=True)
def own_dir(monkeypatch, tmp_path):
    monkeypatch.setattr(own_model, "OWN_DIR", tmp_path / "own")
    return tmp_path / "own"


def upload(at: AppTest, name: str, data: bytes) -> AppTest:
    at.sidebar.file_uploader[0].set_value((name, data, "application/zip"))
    return at.run()


def errors(at: AppTest) -> list[str]:
    return [shown(e.value) for e in at.error]  # as the reader sees it, without the code-span marks


def refusal(source: str, kind: str, reason: str, lang: str = "en") -> str:
    """The one message a refused model gets: what, why in the user's words (of `kind`), and the loader's reason."""
    return text("own.failed", lang, source=source, why=text(f"own.why.{kind}", lang), reason=reason)


KINDS = {"pickle checkpoint": "unsafe", "pickle named model.safetensors": "invalid", "truncated weights": "invalid",
         "weights of another config": "invalid", "zip slip": "unsafe", "absolute path": "unsafe", "zip bomb": "limit",
         "not a zip": "invalid", "oversized zip": "limit"}


def test_a_good_zip_is_added_selected_and_drawn_on_every_page():
    at = open_page("overview", src=SENTENCE)
    upload(at, "my-reverse.zip", zip_of(files_of(REVERSE)))
    assert_clean(at)
    name = at.session_state["model"]
    assert name.startswith("own-")
    assert at.sidebar.selectbox(key="model").options == loaders.available_models() + ["my-reverse (yours)"]
    assert [shown(s.value) for s in at.success] == [text("own.loaded", "en", source="my-reverse.zip")]
    assert at.session_state["src"] == SENTENCE  # the sentence stays
    # The same weights as the shipped reverse model, so the same output: the page runs the upload.
    assert loaders.run("reverse", SENTENCE).output in [t.value for t in at.text]
    for page in ("tokens", "positional", "self_attention", "explorer", "masks", "decoding", "ffn_norm",
                 "worked_example", "training"):
        at.switch_page(f"app_pages/{page}.py").run()
        assert_clean(at)
        assert at.session_state["model"] == name, page
        assert at.get("plotly_chart"), page


def test_the_uploaded_bytes_are_not_kept(monkeypatch):
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager

    stores = []
    original = MemoryUploadedFileManager.add_file
    monkeypatch.setattr(MemoryUploadedFileManager, "add_file",
                        lambda self, *a, **k: (stores.append(self), original(self, *a, **k))[1])
    at = open_page("overview", src=SENTENCE)
    upload(at, "my-reverse.zip", zip_of(files_of(REVERSE)))
    assert at.session_state["model"].startswith("own-")
    assert stores and all(store._total_bytes == 0 and store._file_count == 0 for store in stores)
    assert at.sidebar.file_uploader[0].value is None  # the next zip goes into an empty uploader


def test_the_upload_feeds_the_charts():
    at = open_page("self_attention", src=SENTENCE, layer=1, head=1)
    upload(at, "my-reverse.zip", zip_of(files_of(REVERSE)))
    assert at.session_state["model"].startswith("own-")
    # the upload holds the shipped reverse model's weights, so its attention is the same
    shipped = loaders.run("reverse", SENTENCE).trace.attn("encoder", 1, "self_attn")
    np.testing.assert_array_equal(decode(named_chart(at, "self_attention.pattern")["data"][0]["z"]),
                                  shipped.pattern[0, 1])


@pytest.fixture(scope="module")
def bad(tmp_path_factory):
    marker = tmp_path_factory.mktemp("marker") / "pwned"
    return bad_zips(marker), marker


@pytest.mark.parametrize("case", ["pickle checkpoint", "pickle named model.safetensors", "truncated weights",
                                  "weights of another config", "zip slip", "absolute path", "zip bomb", "not a zip",
                                  "oversized zip"])
def test_a_bad_zip_is_refused_and_the_model_stays(bad, case, own_dir):
    zips, marker = bad
    data, reason = zips[case]
    at = open_page("self_attention", model="reverse", src=SENTENCE)
    before = named_chart(at, "self_attention.pattern")
    upload(at, "bad.zip", data)
    assert_clean(at)
    assert errors(at) == [refusal("bad.zip", KINDS[case], reason)]
    assert at.session_state["model"] == "reverse"
    assert at.sidebar.selectbox(key="model").options == loaders.available_models()
    assert named_chart(at, "self_attention.pattern") == before  # the page goes on with the model it had
    assert not marker.exists()
    assert not [p for p in own_dir.iterdir() if p.name.startswith("own-")]
    assert not (own_dir.parent / "evil").exists() and not (own_dir / ".." / "evil").exists()


def test_a_refusal_is_said_in_chinese_without_english_sentences(bad):
    """The zip itself is refused (not a zip), then one the child process refuses (its weights' shape): both
    reasons in Chinese, the second's code and fields carried out of the child."""
    import json

    at = open_page("overview", model="reverse", src=SENTENCE, lang="zh")
    upload(at, "bad.zip", bad[0]["not a zip"][0])
    assert errors(at) == ["未能加载 bad.zip：其中的文件不构成本应用能读取的检查点。原因：这个文件不是 zip 压缩包"
                          "（或者压缩包已损坏）。原先选中的模型保持不变。"]
    cfg = json.loads((REVERSE / "config.json").read_text())
    upload(at, "other.zip", bad[0]["weights of another config"][0])
    assert errors(at) == [f"未能加载 other.zip：其中的文件不构成本应用能读取的检查点。原因：model.safetensors："
                          f"encoder.layers.0.ffn.linear1.weight 的形状是 [{2 * cfg['d_ff']}, {cfg['d_model']}]，"
                          f"但配置要求 [{cfg['d_ff']}, {cfg['d_model']}]。原先选中的模型保持不变。"]
    assert at.session_state["model"] == "reverse"


def test_the_message_goes_once_the_user_moves_on(bad):
    at = open_page("self_attention", model="reverse", src=SENTENCE)
    upload(at, "bad.zip", bad[0]["not a zip"][0])
    assert errors(at)
    at.sidebar.selectbox(key="head").set_value(1).run()
    assert errors(at) == [] and at.session_state["model"] == "reverse"


def test_a_folder_on_the_server_is_added(monkeypatch):
    monkeypatch.setenv(own_model.ROOT_SETTING, str(REVERSE.parent))  # the folder the server opens to visitors
    at = open_page("overview", src=SENTENCE)
    at.sidebar.text_input(key=own_model.FOLDER).set_value(str(REVERSE)).run()
    assert_clean(at)
    assert at.sidebar.selectbox(key="model").options[-1] == "reverse (yours)"
    assert at.session_state["model"].startswith("own-")
    assert loaders.run("reverse", SENTENCE).output in [t.value for t in at.text]


@pytest.mark.parametrize("damage, kind, reason", [
    (lambda p: open(p / "model.safetensors", "wb").truncate(600 * 2**20),  # sparse: no room on disk
     "limit", "model.safetensors is 600 MB, over the limit of 512 MB."),
    (lambda p: (p / "config.json").unlink(), "invalid", "the checkpoint folder {src} has no config.json."),
    (lambda p: shutil.rmtree(p), "invalid", "{src} is not a checkpoint folder."),
])
def test_a_bad_folder_is_refused_and_the_model_stays(tmp_path, monkeypatch, damage, kind, reason):
    monkeypatch.setenv(own_model.ROOT_SETTING, str(tmp_path))
    src = tmp_path / "mine"
    shutil.copytree(REVERSE, src)
    damage(src)
    at = open_page("self_attention", model="lm-en", src="the old man")
    at.sidebar.text_input(key=own_model.FOLDER).set_value("mine").run()  # as typed: relative to the root
    assert_clean(at)
    assert errors(at) == [refusal("mine", kind, reason.format(src="mine"))]
    assert at.session_state["model"] == "lm-en" and at.get("plotly_chart")


def test_the_refusal_is_said_in_chinese_too(bad):
    at = open_page("overview", lang="zh", src=SENTENCE)
    upload(at, "坏.zip", bad[0]["zip slip"][0])
    assert errors(at) == ["未能加载 坏.zip：它包含出于安全考虑一律不读取的内容。原因：压缩包条目 ../evil 用“..”跳出了所在的"
                          "文件夹。原先选中的模型保持不变。"]
    assert "安全" in errors(at)[0]  # why, in the user's language
    assert at.sidebar.expander[0].label == "你自己的模型"


def test_an_own_model_is_only_in_its_own_session():
    at = open_page("overview", src=SENTENCE)
    upload(at, "my-reverse.zip", zip_of(files_of(REVERSE)))
    name = at.session_state["model"]
    other = AppTest.from_file(APP, default_timeout=60)
    other.query_params["model"] = name  # a link copied from the first session
    other.run()
    assert_clean(other)
    assert other.session_state["model"] == loaders.DEFAULT_MODEL
    assert other.sidebar.selectbox(key="model").options == loaders.available_models()
    assert any(name in w.value for w in other.warning)  # the link's model is said to be unknown


def test_choosing_another_model_after_an_upload_sticks_across_pages():
    at = open_page("overview", src=SENTENCE)
    upload(at, "my-reverse.zip", zip_of(files_of(REVERSE)))
    at.sidebar.selectbox(key="model").set_value("lm-en").run()
    at.switch_page("app_pages/tokens.py").run()
    assert_clean(at)
    assert at.session_state["model"] == "lm-en"  # the earlier upload was not taken again


def test_only_the_latest_own_models_stay_on_disk(own_dir, monkeypatch):
    monkeypatch.setattr(own_model.probe, "check", lambda folder, waiting=None: None)  # ten good copies: pruning is tested here
    for i in range(own_model.MAX_FOLDERS + 2):  # each a different card, so a different content hash
        data = zip_of({**files_of(REVERSE), "card.md": f"# copy {i}\n".encode()})
        own_model.bring_in(lambda folder, data=data: checkpoints.extract_zip(data, folder), "z", loaders.load_model)
    kept = sorted(p for p in own_dir.iterdir())
    assert len(kept) == own_model.MAX_FOLDERS
    cards = {(p / "card.md").read_text() for p in kept}
    assert cards == {f"# copy {i}\n" for i in range(2, own_model.MAX_FOLDERS + 2)}  # the two oldest went


def test_a_file_name_made_of_markdown_is_shown_as_typed():
    from tests.app.conftest import rendered

    at = open_page("overview", src=SENTENCE)
    name = "![x](http://example.com/p.png) [click](http://example.com).zip"
    upload(at, name, b"not a zip")
    assert_clean(at)
    html = rendered(at.error[0].value)
    assert "<img" not in html and "<a " not in html  # nothing to fetch, nothing to click
    assert name in errors(at)[0]


def test_an_uploaded_models_training_log_is_drawn_and_a_damaged_one_is_said():
    from core_model.training.snapshots import SNAPSHOT_FILE
    from core_model.training.train_log import LOG_FILE, parse_log

    rows = "step,train_loss,valid_loss,lr,grad_norm,tokens\n10,2.5,,0.001,3.0,500\n20,1.5,1.25,0.002,2.0,1000\n"
    at = open_page("training", src=SENTENCE)
    upload(at, "logged.zip", zip_of({**files_of(REVERSE), LOG_FILE: rows.encode()}))
    assert_clean(at)
    log = parse_log(rows.encode())
    train, valid = named_chart(at, "training.log.loss")["data"]
    np.testing.assert_array_equal(decode(train["x"]), [10, 20])
    np.testing.assert_array_equal(decode(train["y"]), log.train_loss)
    np.testing.assert_array_equal(decode(valid["y"]), [np.nan, 1.25])
    np.testing.assert_array_equal(decode(named_chart(at, "training.log.lr")["data"][0]["y"]), [0.001, 0.002])
    damaged = {LOG_FILE: rows.replace("2.5", "nan").encode(), SNAPSHOT_FILE: b"not safetensors at all"}
    upload(at, "damaged.zip", zip_of({**files_of(REVERSE), **damaged}))
    assert_clean(at)
    assert at.session_state["model"].startswith("own-")  # the model itself is fine and loaded
    charts = chart_names(at)
    assert "training.log.loss" not in charts and "training.forming.grid" not in charts
    assert [shown(w.value) for w in at.warning] == [text(f"training.{kind}.bad", "en", model="damaged (yours)")
                                                    for kind in ("log", "forming")]


def test_a_layer_the_upload_lacks_is_not_blamed_on_a_link():
    """Layer 2 chosen in the session (no link), then a two-layer model: layer 1, and no "the link asked for"."""
    at = open_page("overview", src=SENTENCE, layer=2)
    upload(at, "my-reverse.zip", zip_of(files_of(REVERSE)))
    assert_clean(at)
    said = " ".join(shown(w.value) for w in at.warning)
    assert at.session_state["layer"] == 1 and "The link asked for" not in said
    assert text("query.stale", "en", setting="layer = 2", used=1) in said


def test_a_layer_a_link_asked_for_is_the_link_s_only_on_the_run_that_read_it():
    """Opened from a link with layer = 2, then a two-layer model: the link was honoured, the model changed since."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(layer="2", src=SENTENCE)
    at.run()
    assert at.session_state["layer"] == 2 and not at.warning
    upload(at, "my-reverse.zip", zip_of(files_of(REVERSE)))
    said = " ".join(shown(w.value) for w in at.warning)
    assert at.session_state["layer"] == 1 and "The link asked for" not in said and "There is no layer = 2" in said


def test_a_model_the_server_removed_leaves_the_list_with_a_word_and_no_path(own_dir):
    at = upload(open_page("self_attention", src=SENTENCE), "mine.zip", zip_of(files_of()))
    name = at.session_state["model"]
    assert own_model.is_own(name)
    shutil.rmtree(own_model.folder_of(name))  # as prune does once MAX_FOLDERS newer models came from anyone
    loaders.models._load_own.clear()  # and the loaded copy was let go for newer ones
    at.run()
    assert_clean(at)
    assert not at.error  # before: "…/attention-viz-own-models/own-24f7… is not a checkpoint folder" on every page
    assert [shown(w.value) for w in at.warning] == [text("own.removed", "en", source="mine",
                                                         n=own_model.MAX_FOLDERS)]
    assert at.session_state["model"] == loaders.first_model() and named_chart(at, "self_attention.pattern")
    assert name not in at.sidebar.selectbox(key="model").options
    assert not any(str(own_dir) in shown(e.value) for e in (*at.warning, *at.info, *at.markdown))


def distinct_zip(i: int) -> bytes:
    return zip_of({**files_of(REVERSE), "card.md": f"# copy {i}\n".encode()})  # another card: another content name


def test_a_session_keeps_three_models_it_brought_and_is_told_which_left(own_dir):
    at = open_page("self_attention", src=SENTENCE)
    for i in range(own_model.PER_SESSION + 1):
        upload(at, f"copy{i}.zip", distinct_zip(i))
        assert_clean(at)
    titles = list(at.session_state[own_model.OWN].values())
    assert titles == [f"copy{i}" for i in range(1, own_model.PER_SESSION + 1)]  # the oldest left its list
    assert len(list(own_dir.iterdir())) == own_model.PER_SESSION  # and the disk: one visitor holds 3 of 8 places
    assert text("own.replaced", "en", source="copy0", n=own_model.PER_SESSION) in [shown(w.value) for w in at.warning]
    assert own_model.is_own(at.session_state["model"]) and named_chart(at, "self_attention.pattern")


def test_the_servers_own_models_are_bounded_on_disk_in_bytes_too(own_dir, monkeypatch):
    monkeypatch.setattr(own_model.probe, "check", lambda folder, waiting=None: None)
    size = sum(len(b) for b in files_of(REVERSE).values())
    monkeypatch.setattr(own_model, "MAX_DISK_BYTES", int(2.5 * size))  # room for two copies' files, not three
    for i in range(4):
        own_model.bring_in(lambda folder, data=distinct_zip(i): checkpoints.extract_zip(data, folder), "z",
                           loaders.load_model)
    cards = sorted((p / "card.md").read_text() for p in own_dir.iterdir())
    assert cards == ["# copy 2\n", "# copy 3\n"]  # the newest that fit, the oldest gone first


def test_visitors_models_stay_in_memory_in_a_cache_of_their_own(own_dir, monkeypatch):
    from viz_app.loaders import models

    monkeypatch.setattr(own_model.probe, "check", lambda folder, waiting=None: None)
    shipped = loaders.load_model("reverse")
    names = [own_model.bring_in(lambda folder, data=distinct_zip(i): checkpoints.extract_zip(data, folder), "z",
                                loaders.load_model)[0] for i in range(own_model.MAX_FOLDERS + 1)]
    assert loaders.load_model("reverse") is shipped  # nine visitors' models pushed no shipped one out (8 before)
    loaded = [loaders.load_model(n) for n in names[-own_model.MAX_LOADED:]]
    assert all(loaders.load_model(n) is m for n, m in zip(names[-own_model.MAX_LOADED:], loaded))  # kept
    assert models._load_own._info.max_entries == own_model.MAX_LOADED


def test_a_visitors_model_pushed_out_of_memory_gives_its_memory_back(own_dir, monkeypatch):
    from viz_app import serving
    from viz_app.loaders import models

    monkeypatch.setattr(own_model.probe, "check", lambda folder, waiting=None: None)
    given = []
    monkeypatch.setattr(serving, "give_back", lambda: given.append(len(given)))
    models._load_own.clear()
    models._released.clear()
    names = [own_model.bring_in(lambda folder, data=distinct_zip(i): checkpoints.extract_zip(data, folder), "z",
                                loaders.load_model)[0] for i in range(own_model.MAX_LOADED + 2)]
    # one give-back for each of the two models the fifth and sixth pushed out; none while the cache had room
    # (malloc kept a freed model's weights: eight 230 MiB models brought in turn held eight's worth, bench/uploads.py)
    assert len(given) == 2, given
    loaders.load_model(names[-1])  # a hit pushes nothing out
    assert len(given) == 2
