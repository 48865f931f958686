"""A core error in the user's language (viz_app/errors.py): every coded fault of a real bad checkpoint has a
Chinese sentence with no English prose in it; an error without a code falls back to a Chinese sentence."""
import re

import pytest

from core_model.checkpoints import CheckpointError, load_zip
from core_model.messages import CodedError
from core_model.checkpoints.safe_load import read_json
from tests.bad_checkpoints import bad_zips
from viz_app.errors import message
from viz_app.i18n import STRINGS

# Words a Chinese sentence may keep: file formats and names of tools, as a Chinese text writes them too.
NAMES = {"JSON", "zip", "pickle", "safetensors", "torch", "save", "sentencepiece", "UTF", "ASCII", "NaN", "MB", "KB",
         "Hugging", "Face", "BERT", "UNK", "CLS", "SEP"}
HAN = re.compile(r"[\u4e00-\u9fff]")


def english_words(zh: str, fields: dict) -> list[str]:
    """Latin words of `zh` once the error's own fields (file names, sizes, tensor names) are taken out."""
    for value in sorted((str(v) for v in fields.values()), key=len, reverse=True):
        zh = zh.replace(value, " ")
    return [w for w in re.findall(r"[A-Za-z]{2,}", zh) if w not in NAMES]


@pytest.fixture(scope="module")
def refusals(tmp_path_factory):
    """(case, the CheckpointError) for every bad upload of tests/bad_checkpoints.py, loaded by the core."""
    marker = tmp_path_factory.mktemp("marker") / "pwned"
    out = []
    for case, (data, _) in bad_zips(marker).items():
        with pytest.raises(CheckpointError) as caught:
            load_zip(data, tmp_path_factory.mktemp("dest"))
        out.append((case, caught.value))
    return out


def test_every_refusal_of_a_bad_zip_has_a_chinese_sentence(refusals):
    assert len(refusals) == 9
    for case, e in refusals:
        assert e.code and f"error.{e.code}" in STRINGS, case
        zh = message(e, language="zh")
        assert HAN.search(zh) and "英文原文" not in zh, (case, zh)
        assert english_words(zh, e.fields) == [], (case, zh)
        assert message(e, language="en") == str(e)  # English readers keep the core's own sentence


def test_the_not_a_zip_refusal_in_chinese():
    with pytest.raises(CheckpointError) as caught:
        load_zip(b"PK\x03\x04 this only looks like a zip", "/nonexistent/never-made")
    assert message(caught.value, language="zh") == "这个文件不是 zip 压缩包（或者压缩包已损坏）。"


def test_quote_wraps_what_the_error_quotes_not_the_sentence():
    e = CheckpointError("the zip entry '../x' climbs out of its folder with '..'.", "unsafe", "zip_climbs",
                        {"entry": "'../x'"})
    assert message(e, quote=lambda s: f"<{s}>", language="zh") == "压缩包条目 <'../x'> 用“..”跳出了所在的文件夹。"
    assert message(e, quote=lambda s: f"<{s}>", language="en") == f"<{e}>"


def test_a_long_list_of_names_says_how_many_more():
    e = CheckpointError("x", code="config_unknown", fields={"file": "config.json", "names": "a, b", "more": 7})
    assert message(e, language="zh") == "config.json 含有未知字段：a, b 等，另有 7 个。"


def test_a_stack_is_named_in_chinese():
    e = CheckpointError("x", "limit", "too_many_layers", {"file": "config.json", "n": 1000, "stack": "decoder",
                                                          "most": 96})
    assert message(e, language="zh") == "config.json 要求 1,000 层解码器，超过了加载器最多构建的 96 层。"


def test_a_json_fault_names_line_and_column():
    with pytest.raises(CheckpointError) as caught:
        read_json('{"a": 1,\n  oops}', "config.json")
    assert message(caught.value, language="zh") == "config.json 不是有效的 JSON（第 2 行第 3 列）。"


@pytest.mark.parametrize("error", [ValueError("max_len must be even."), CodedError("max_len must be even.", "nope"),
                                   CodedError("max_len must be even.", "no_room", {"wrong": 1})])
def test_an_uncoded_error_is_said_in_chinese_with_the_english_quoted(error):
    assert message(error, language="zh") == "出了点问题（英文原文：max_len must be even.）。"
    assert message(error, language="en") == "max_len must be even."


def test_an_unforeseen_exception_shows_its_type_only():
    assert message(RuntimeError("/srv/secret went wrong"), language="zh") == "出了点问题（英文原文：RuntimeError）。"


def test_a_decoding_refusal_in_chinese():
    from core_model import load
    from core_model.decoding import greedy
    from tests.bad_checkpoints import REVERSE

    with pytest.raises(ValueError) as caught:
        greedy(load(REVERSE).model, [])
    assert message(caught.value, language="zh") == "源句为空；编码器-解码器模型至少需要一个源词元。"
