"""A Hugging Face folder's generation_config.json, read as the decoding page starts from it."""
import json

import pytest

from core_model.generation import read_generation
from core_model.checkpoints.safe_load import MAX_FILE_BYTES, CheckpointError


def folder_with(tmp_path, settings: dict):
    (tmp_path / "generation_config.json").write_text(json.dumps(settings), encoding="utf-8")
    return tmp_path


def test_a_marian_style_config_asks_for_beams_and_names_what_is_not_followed(tmp_path):
    own = read_generation(folder_with(tmp_path, {"num_beams": 4, "length_penalty": 1.0, "max_length": 512,
                                                 "bad_words_ids": [[58100]], "forced_eos_token_id": 0,
                                                 "repetition_penalty": 1.0, "transformers_version": "4.40"}))
    assert (own.method, own.width, own.alpha, own.max_new_tokens) == ("beam", 4, None, None)
    # transformers' length_penalty is a power of the length, ours GNMT's: only 0 (none at all) is the same
    assert own.not_applied == ("bad_words_ids", "forced_eos_token_id", "max_length", "length_penalty")
    # repetition_penalty 1.0 changes nothing, so it is not named
    assert read_generation(folder_with(tmp_path, {"num_beams": 2, "length_penalty": 0})).alpha == 0.0


def test_sampling_and_greedy_settings(tmp_path):
    own = read_generation(folder_with(tmp_path, {"do_sample": True, "temperature": 0.7, "top_k": 40, "top_p": 0.9,
                                                 "num_beams": 1, "max_new_tokens": 30}))
    assert (own.method, own.width, own.temperature, own.top_k, own.top_p, own.max_new_tokens) == \
        ("sample", None, 0.7, 40, 0.9, 30)
    assert isinstance(own.top_k, int) and own.not_applied == ()
    assert read_generation(folder_with(tmp_path, {"max_new_tokens": 5})).method == "greedy"
    assert read_generation(folder_with(tmp_path, {"do_sample": "yes"})).method == "greedy"  # only true samples


def test_no_file_is_no_settings_and_a_bad_one_is_refused_naming_the_field(tmp_path):
    assert read_generation(tmp_path) is None
    with pytest.raises(CheckpointError, match="num_beams") as e:
        read_generation(folder_with(tmp_path, {"num_beams": "four"}))
    assert e.value.code == "generation_field" and e.value.fields["name"] == "num_beams"
    with pytest.raises(CheckpointError, match="top_k"):
        read_generation(folder_with(tmp_path, {"top_k": 2.5}))
    for name, value, interval in (("max_new_tokens", -5, "[1, ∞)"), ("num_beams", 0, "[1, ∞)"),
                                  ("temperature", 0, "(0, ∞)"), ("top_p", 1.5, "(0, 1]"), ("top_k", -1, "[0, ∞)")):
        with pytest.raises(CheckpointError) as e:
            read_generation(folder_with(tmp_path, {name: value}))
        assert str(e.value) == f"generation_config.json says {name} is {value}, but it must be in {interval}."
        assert e.value.code == "generation_range" and e.value.fields["range"] == interval
    assert read_generation(folder_with(tmp_path, {"top_p": 1, "top_k": 0, "temperature": 0.01})).top_p == 1.0
    with pytest.raises(CheckpointError) as e:
        read_generation(folder_with(tmp_path, [1, 2]))
    assert e.value.code == "config_not_object"
    (tmp_path / "generation_config.json").write_bytes(b" " * (MAX_FILE_BYTES + 1))
    with pytest.raises(CheckpointError, match="over the limit") as e:
        read_generation(tmp_path)
    assert (e.value.kind, e.value.code) == ("limit", "file_too_big")
