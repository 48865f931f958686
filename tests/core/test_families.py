"""Every imported family (tests/families) against transformers' own implementation of it: each folder is made by
transformers (random weights far from their init, the family's real config fields, its tokenizer class's files) and
read by checkpoints.load, which hands it to the family's importer. Our traced forward must give transformers'
attention weights (every query head, cross-attention included) and its output, alone and in a padded batch; greedy
decoding must give generate()'s ids; our tokenizer must give the ids of transformers' tokenizer of the folder.
A family's own behaviour (its config's shape, what it refuses) is tested in tests/core/test_<family>.py."""
from __future__ import annotations

import os

import numpy as np
import pytest

from core_model import checkpoints
from core_model.checkpoints import registry
from core_model.decoding import greedy
from core_model.trace import run_with_trace
from tests.tolerance import assert_activations_close

os.environ["HF_HUB_OFFLINE"] = "1"  # everything is made here; nothing is fetched
transformers = pytest.importorskip("transformers")

from tests.families import FAMILIES  # noqa: E402  (after the skip: it imports transformers)
from tests.families.build import reference as reference_model  # noqa: E402
from tests.families.compare import SENTENCES, TARGETS, compare, feed, generate  # noqa: E402


@pytest.fixture(scope="module", params=list(FAMILIES))
def family(request):
    return FAMILIES[request.param]


@pytest.fixture(scope="module")
def folder(hub_folder, family):
    return hub_folder(family.name)


@pytest.fixture(scope="module")
def ours(folder):
    return checkpoints.load(folder)  # the dispatch: the folder goes to its importer


@pytest.fixture(scope="module")
def reference(folder, family):
    return reference_model(family, folder)


def test_the_folder_goes_to_its_familys_importer(family, ours):
    importer = registry.importer_for(family.model_type)
    assert importer is not None and family.model_type in importer.MODEL_TYPES
    assert ours.config.architecture == family.architecture


@pytest.mark.parametrize("text", SENTENCES[:2])
def test_one_sentence_matches_transformers(family, ours, reference, text):
    compare(ours, reference, [text], family.output)


def test_the_comparison_is_not_trivial(family, ours, reference):
    # Attention far from uniform and outputs far from zero: a near-zero model would match anything.
    fed = feed(ours, SENTENCES[:1])
    out, trace = run_with_trace(ours.model, fed.src, fed.tgt)
    cfg = ours.config
    stack = "decoder" if cfg.has_decoder else "encoder"
    layers = cfg.n_decoder_layers if cfg.has_decoder else cfg.n_encoder_layers
    largest = max(float(trace.attn(stack, i).pattern[..., 1:, :].max()) for i in range(layers))
    assert largest > 0.6
    assert float(out.abs().max()) > 1


def test_a_padded_batch_matches_transformers_and_each_sentence_alone(family, ours, reference):
    texts = [SENTENCES[0], " ".join(SENTENCES), SENTENCES[1]]
    fed = feed(ours, texts)
    keep = fed.src_keep if fed.src is not None else fed.tgt_keep
    assert (~keep).sum() > 10  # the short rows really are padded
    compare(ours, reference, texts, family.output)
    out, _ = run_with_trace(ours.model, fed.src, fed.tgt)
    for row, text in enumerate(texts):
        one = feed(ours, [text], [TARGETS[row]])  # an encoder-decoder's target of that row
        alone, _ = run_with_trace(ours.model, one.src, one.tgt)
        assert_activations_close(out[row, : alone.shape[1]], alone[0], f"row {row} padded vs alone")


def test_greedy_decoding_gives_generates_ids(family, ours, reference):
    cfg = ours.config
    if not cfg.has_decoder:
        pytest.skip("an encoder does not decode")
    tok = ours.tokenizers["src" if cfg.has_encoder else "tgt"]
    for text in ["The cat", "naïve", "Attention heads read"]:
        prompt = tok.frame(tok.encode(text)) if cfg.has_encoder else tok.encode(text)
        got = greedy(ours.model, prompt, max_len=8)
        want = generate(reference, ours, prompt, 8, cfg.eos_id)
        assert list(got.ids) + ([got.steps[-1].chosen] if got.finished_by == "eos" else []) == want, text
        assert want, text


def test_the_tokenizer_gives_transformers_ids(family, ours, folder):
    fast = transformers.AutoTokenizer.from_pretrained(folder)
    cfg = ours.config
    for side, tok in ours.tokenizers.items():
        target = side == "tgt" and cfg.has_encoder  # an encoder-decoder's target side (Marian's has its own model)
        for text in SENTENCES:
            ids = tok.encode(text)
            theirs = fast(text_target=text, add_special_tokens=False) if target else fast(text, add_special_tokens=False)
            assert ids == theirs["input_ids"], (side, text)
            if side == "src":  # an encoder reads the text framed as transformers' tokenizer frames it
                assert tok.frame(ids) == fast(text)["input_ids"], text
            if side == ("tgt" if cfg.has_decoder else "src") and tok.unk_id not in ids:  # what the model outputs
                assert tok.decode(ids).strip() == fast.decode(ids, skip_special_tokens=True).strip(), text


def test_the_trace_keeps_the_key_value_heads_the_model_has(family, ours):
    cfg = ours.config
    fed = feed(ours, SENTENCES[:1])
    _, trace = run_with_trace(ours.model, fed.src, fed.tgt)
    stack = "decoder" if cfg.has_decoder else "encoder"
    view = trace.attn(stack, 0)
    b, h, n, d = view.q.shape
    assert (h, view.k.shape[1], view.v.shape[1]) == (cfg.n_heads, cfg.kv_heads, cfg.kv_heads)
    assert view.pattern.shape == (b, cfg.n_heads, n, n) and not np.isnan(view.pattern).any()
