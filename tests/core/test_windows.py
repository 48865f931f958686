"""Local and sliding-window attention (ModelConfig.window, window_layers): the mask, the config's checks, and decoding
with the KV cache on prompts longer than the window, against transformers' generate() for GPT-Neo and Mistral (whose
folders, window 4, are tests/families/neo.py's)."""
from __future__ import annotations

import json
import os

import pytest
import torch

from core_model import ModelConfig, checkpoints
from core_model.decoding import greedy
from core_model.nn.masks import causal_mask

os.environ["HF_HUB_OFFLINE"] = "1"  # everything is made here; nothing is fetched
transformers = pytest.importorskip("transformers")

from tests.families.build import reference  # noqa: E402  (after the skip: it imports transformers)
from tests.families import FAMILIES  # noqa: E402
from tests.families.compare import generate  # noqa: E402

LONG = "The cat sat on the mat, and the dog sat on the log."  # far more tokens than the window of 4


def test_a_window_keeps_the_last_w_keys_of_the_causal_mask():
    want = torch.tensor([[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [0, 1, 1, 0, 0], [0, 0, 1, 1, 0], [0, 0, 0, 1, 1]]).bool()
    assert torch.equal(causal_mask(5, window=2)[0, 0], want)
    assert torch.equal(causal_mask(2, 5, offset=3, window=2)[0, 0], want[3:])  # cached steps: the same rows
    assert torch.equal(causal_mask(5, window=9), causal_mask(5))  # a window past the sequence blocks nothing more


@pytest.mark.parametrize("fields, named", [({"window": 4}, "window_layers"), ({"window_layers": [0]}, "window"),
                                           ({"window": 4, "window_layers": [2]}, "window_layers"),
                                           ({"window": 4, "window_layers": [1, 0]}, "window_layers"),
                                           ({"window": -1, "window_layers": [0]}, "window"),
                                           ({"window": 4, "window_layers": ["0"]}, "window_layers"),
                                           ({"qkv_bias": "no"}, "qkv_bias")])
def test_a_bad_window_is_refused_naming_its_field(fields, named):
    with pytest.raises(ValueError, match=named):
        ModelConfig(architecture="decoder", n_encoder_layers=0, n_decoder_layers=2, **fields)


def test_an_old_config_has_no_window_and_a_saved_one_reads_its_layers_back():
    data = ModelConfig().to_dict()
    for name in ("window", "window_layers", "qkv_bias"):
        del data[name]
    old = ModelConfig.from_dict(data)
    assert (old.window, old.window_layers, old.qkv_bias) == (0, (), True)
    cfg = ModelConfig.from_dict({**data, "window": 3, "window_layers": [1]})  # as json.loads gives it
    assert cfg.window_layers == (1,) and ModelConfig.from_dict(json.loads(json.dumps(cfg.to_dict()))) == cfg


@pytest.fixture(scope="module", params=["gpt-neo", "mistral"])
def windowed(request, hub_folder):
    folder = hub_folder(request.param)
    return checkpoints.load(folder), reference(FAMILIES[request.param], folder)


def test_cached_decoding_past_the_window_gives_generates_ids(windowed):
    ours, theirs = windowed
    cfg, prompt = ours.config, ours.tokenizers["tgt"].encode(LONG)
    assert cfg.window == 4 and len(prompt) > 3 * cfg.window
    cached, uncached = greedy(ours.model, prompt, max_len=12), greedy(ours.model, prompt, max_len=12, use_cache=False)
    want = generate(theirs, ours, prompt, 12, cfg.eos_id)
    eos = [cached.steps[-1].chosen] if cached.finished_by == "eos" else []
    assert list(cached.ids) + eos == want and cached.ids == uncached.ids and len(cached.steps) >= 4
    for step in cached.steps:  # each step's row: a local layer reads only the last `window` positions
        for layer in range(cfg.n_decoder_layers):
            seen = (step.self_attn[layer] > 0).any(axis=0)  # [len(prefix)] over the heads
            assert seen.sum() == (cfg.window if layer in cfg.window_layers else len(step.prefix)), (step.index, layer)
