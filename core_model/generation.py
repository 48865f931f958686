"""A Hugging Face folder's own generation settings (generation_config.json), as core_model.decoding takes them.

transformers writes generation_config.json beside the weights: a translator (Marian) asks for beam search with a
few beams, a language model may ask for sampling with a temperature, top-k or top-p, and either for a number of new
tokens. The decoding page starts from these. What our decoding does differently is named, never silently dropped:
transformers' length_penalty divides a beam's score by its length to that power, where ours is GNMT's
((5 + |y|) / 6)^α, so only a length_penalty of 0 (no penalty in both) carries over.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .checkpoints.safe_load import GENERATION_FILE as FILE, MAX_FILE_BYTES, CheckpointError, read_json_file, size_text


@dataclass(frozen=True)
class Generation:
    """The settings a folder asks for; None where it names none (the page keeps its own default)."""
    method: str = "greedy"  # greedy, beam or sample, as do_sample and num_beams say
    width: int | None = None  # num_beams
    alpha: float | None = None  # 0.0 when length_penalty is 0 (no penalty), else None
    temperature: float | None = None
    top_k: int | None = None
    top_p: float | None = None
    max_new_tokens: int | None = None
    not_applied: tuple[str, ...] = ()  # the fields it sets that our decoding does not follow


NUMBERS = {"num_beams": int, "temperature": float, "top_k": int, "top_p": float, "max_new_tokens": int,
           "length_penalty": float}
# The values each may take, as transformers checks them: (lowest, whether the lowest is allowed, highest or None),
# written in interval notation when refused.
RANGES = {"num_beams": (1, True, None), "temperature": (0, False, None), "top_k": (0, True, None),
          "top_p": (0, False, 1), "max_new_tokens": (1, True, None)}
# Fields that change what transformers generates and that our decoding has no counterpart for, with the value
# that changes nothing (transformers' default).
UNFOLLOWED = {"repetition_penalty": 1.0, "encoder_repetition_penalty": 1.0, "no_repeat_ngram_size": 0,
              "bad_words_ids": None, "forced_bos_token_id": None, "forced_eos_token_id": None, "min_length": 0,
              "min_new_tokens": None, "num_beam_groups": 1, "diversity_penalty": 0.0, "typical_p": 1.0,
              "epsilon_cutoff": 0.0, "eta_cutoff": 0.0, "penalty_alpha": None,
              "max_length": None}  # prompt + new tokens; the page bounds new tokens itself (max_new_tokens, its cap)


def number(data: dict, name: str):
    """data[name] as NUMBERS[name] says, or None when absent; a wrong type is refused naming the field."""
    value = data.get(name)
    if value is None:
        return None
    kind = NUMBERS[name]
    whole = isinstance(value, (int, float)) and float(value).is_integer()
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and not whole):
        raise CheckpointError(f"{FILE} says {name} is {value!r}, but it must be a number.", code="generation_field",
                              fields={"file": FILE, "name": name})
    low, closed, high = RANGES.get(name, (None, True, None))
    if (low is not None and (value < low or (value == low and not closed))) or (high is not None and value > high):
        interval = f"{'[' if closed else '('}{low}, {'∞)' if high is None else f'{high}]'}"
        raise CheckpointError(f"{FILE} says {name} is {value!r}, but it must be in {interval}.",
                              code="generation_range",
                              fields={"file": FILE, "name": name, "value": repr(value), "range": interval})
    return kind(value)


def read_generation(folder) -> Generation | None:
    """The folder's generation_config.json as a Generation, or None without one."""
    path = Path(folder) / FILE
    if not path.is_file():
        return None
    if path.stat().st_size > MAX_FILE_BYTES:
        size, limit = size_text(path.stat().st_size), size_text(MAX_FILE_BYTES)
        raise CheckpointError(f"{FILE} is {size}, over the limit of {limit}.", "limit", "file_too_big",
                              {"file": FILE, "size": size, "limit": limit})
    data = read_json_file(path, FILE)
    if not isinstance(data, dict):
        raise CheckpointError(f"{FILE} must hold a JSON object of field names and values.", code="config_not_object",
                              fields={"file": FILE})
    found = {name: number(data, name) for name in NUMBERS}
    sample, beams = data.get("do_sample") is True, found["num_beams"] or 1
    method = "sample" if sample else "beam" if beams > 1 else "greedy"
    penalty = found["length_penalty"]
    not_applied = [name for name, neutral in UNFOLLOWED.items() if data.get(name, neutral) not in (neutral, None)]
    if method == "beam" and penalty not in (None, 0.0):
        not_applied.append("length_penalty")
    return Generation(method, beams if method == "beam" else None, 0.0 if penalty == 0.0 else None,
                      found["temperature"], found["top_k"], found["top_p"], found["max_new_tokens"],
                      tuple(not_applied))
