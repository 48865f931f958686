"""The explorer's queries and keys of a corpus: the loader's vectors are the ones core_model's trace records for each
held-out sentence alone (padding left out), and the view's 2-D points are the stacked vectors' top two principal
components."""
import numpy as np
import pytest

from core_model import checkpoints
from core_model.importers import bert
from core_model.training.tasks import TASKS, held_out
from core_model.trace import run_with_trace
from tests.tolerance import assert_activations_close
from viz_app import loaders
from viz_app.views import qk_space as view

# (model, block, layer): a translator's three blocks, rotated queries and keys (RoPE), a borrowed corpus (MiniLM)
CASES = [("translate-en-fr", "encoder.self_attn", 2), ("translate-en-fr", "decoder.cross_attn", 1),
         ("reverse", "decoder.self_attn", 1), ("lm-en-rope", "decoder.self_attn", 2)]
if bert.minilm_path() is not None:
    CASES.append((bert.MINILM, "encoder.self_attn", 4))


def alone(loaded, src_text, tgt_text, block, layer):
    """One held-out sentence traced by itself, laid out as the app's `run` lays text out: (q, k) [h, n, d_head]."""
    cfg = loaded.config
    src = tgt = None
    if cfg.has_encoder:
        src = loaded.tokenizers["src"].encode(src_text)
        if loaded.tokenizers["src"].frames_input:  # BERT reads [CLS] … [SEP]
            src = [loaded.tokenizers["src"].bos_id, *src, loaded.tokenizers["src"].eos_id]
    if cfg.has_decoder:
        tgt = [cfg.bos_id, *loaded.tokenizers["tgt"].encode(tgt_text)]
    stack, kind = block.split(".")
    _, trace = run_with_trace(loaded.model, src, tgt)
    attn = trace.attn(stack, layer, kind)
    return attn.q[0], attn.k[0]


def held_out_text(name, cfg):
    """The sentences each side reads: the first of the task's test split."""
    task = TASKS.get(name, TASKS["translate-en-fr"])  # MiniLM has no task: it borrows translate-en-fr's English
    test = held_out(task.name)["test"][:loaders.QK_SENTENCES]  # as core_model.training.evaluate reads it (seed 0)
    if cfg.architecture == "encoder-decoder":
        return [s for s, _, _ in test], [t for _, t, _ in test]
    english = [s if s is not None else t for s, t, _ in test]
    return (english, [""] * len(english)) if cfg.has_encoder else ([""] * len(english), english)


@pytest.mark.parametrize("name, block, layer", CASES)
def test_each_sentences_vectors_are_the_ones_its_own_trace_records(name, block, layer):
    loaded = checkpoints.load(loaders.model_folder(name))
    got = loaders.qk_corpus(name, block, layer)
    sources, targets = held_out_text(name, loaded.config)
    assert got.q_texts == tuple(targets if block.startswith("decoder") else sources)
    assert got.k_texts == tuple(sources if block != "decoder.self_attn" else targets)
    n_q = n_k = 0
    for i, (src_text, tgt_text) in enumerate(zip(sources, targets)):
        q, k = alone(loaded, src_text, tgt_text, block, layer)  # [h, n, d_head], no padding at all
        rows_q, rows_k = np.flatnonzero(got.q_sentence == i), np.flatnonzero(got.k_sentence == i)
        # exactly the sentence's own tokens, in order: no <pad> position came along from the padded batch
        assert rows_q.tolist() == list(range(n_q, n_q + q.shape[1])), i
        assert rows_k.tolist() == list(range(n_k, n_k + k.shape[1])), i
        n_q, n_k = n_q + q.shape[1], n_k + k.shape[1]
        # Padded into a batch of 16 against alone: float32 sums over other shapes differ in their last bits
        # (tests/tolerance.py), so the bound scales with the vectors' size.
        assert_activations_close(got.q[:, rows_q], q, f"queries of sentence {i}")
        assert_activations_close(got.k[:, rows_k], k, f"keys of sentence {i}")
        assert got.q_tokens[rows_q[0]].startswith("0·") and got.q_tokens[rows_q[-1]].startswith(f"{q.shape[1] - 1}·")
    assert (n_q, n_k) == (got.q.shape[1], got.k.shape[1]) == (len(got.q_tokens), len(got.k_tokens))


def test_padding_positions_are_left_out_even_where_they_differ_from_the_tokens():
    # lm-en-rope's sentences differ in length, so the batch has padding; its q at a padded position is a real
    # vector (the <pad> embedding, rotated), which would be counted if it were kept
    got = loaders.qk_corpus("lm-en-rope", "decoder.self_attn", 0)
    loaded = checkpoints.load(loaders.model_folder("lm-en-rope"))
    lengths = [1 + len(loaded.tokenizers["tgt"].encode(s)) for s in got.q_texts]
    assert len(set(lengths)) > 1  # the guard: some rows of a batch were padded
    assert got.q.shape[1] == sum(lengths) and "<pad>" not in "".join(got.q_tokens + got.k_tokens)
    assert np.bincount(got.q_sentence).tolist() == lengths


def test_only_a_tokenizer_that_frames_its_input_marks_cls_and_sep():
    translator = loaders.qk_corpus("translate-en-fr", "encoder.self_attn", 2)
    assert not translator.q_frame.any() and not translator.k_frame.any()  # its encoder reads the text as it is
    if bert.minilm_path() is None:
        return
    got = loaders.qk_corpus(bert.MINILM, "encoder.self_attn", 4)
    framing = [label.endswith(("·[CLS]", "·[SEP]")) for label in got.q_tokens]
    assert got.q_frame.tolist() == framing and got.k_frame.tolist() == framing  # self-attention: one side
    # each sentence is framed once at each end: its first and its last token
    starts = np.flatnonzero(np.diff(got.q_sentence, prepend=-1))
    ends = np.append(starts[1:] - 1, len(got.q_sentence) - 1)
    assert np.flatnonzero(got.q_frame).tolist() == sorted([*starts, *ends])


def test_hiding_leaves_cls_and_sep_out_before_the_axes_are_fitted():
    rng = np.random.default_rng(1)
    q, k = rng.normal(size=(1, 12, 6)), rng.normal(size=(1, 12, 6))
    frame = np.zeros(12, bool)
    frame[[0, 5, 6, 11]] = True  # two sentences of six tokens, [CLS] … [SEP] each
    q[0, frame] += 50.0  # far from the rest, as BERT's [CLS] and [SEP] vectors are: they would take the first axis
    tokens = tuple(f"{i % 6}·{'[CLS]' if i % 6 == 0 else '[SEP]' if i % 6 == 5 else 'w'}" for i in range(12))
    corpus_ = loaders.QKCorpus(q, k, tokens, tokens, np.repeat([0, 1], 6), np.repeat([0, 1], 6), ("a", "b"),
                               ("a", "b"), frame, frame)
    shown, hidden = view.space(corpus_, 0), view.space(corpus_, 0, hide=True)
    assert len(shown.queries) == 12 and shown.hidden == 0
    assert (len(hidden.queries), len(hidden.keys), hidden.hidden) == (8, 8, 8)
    assert not any("[CLS]" in x or "[SEP]" in x for x in hidden.q_tokens + hidden.k_tokens)
    assert hidden.q_sentences == ("a",) * 4 + ("b",) * 4
    want, share = principal_points(q[0, ~frame], k[0, ~frame])  # fitted to the other tokens' vectors alone
    assert_same_up_to_sign(hidden.points, want)
    np.testing.assert_allclose(hidden.share, share[:2], rtol=1e-5)
    assert shown.share[0] > 0.9 > hidden.share[0]  # the outliers took the first axis when shown


def principal_points(q, k):
    """The test's own PCA, independent of the app's: centre the stacked rows, SVD, coordinates on the top two axes."""
    x = np.concatenate([q, k]).astype(np.float64)
    centred = x - x.mean(axis=0)
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    return centred @ vt[:2].T, s ** 2 / (s ** 2).sum()


def assert_same_up_to_sign(got, want):
    """Each principal axis is defined up to its sign: compare column by column, flipping where they point opposite."""
    for axis in range(2):
        sign = np.sign(got[:, axis] @ want[:, axis])
        assert sign != 0
        # got is float32 (the chart's), want float64: a bound on the scale of the coordinates
        np.testing.assert_allclose(got[:, axis] * sign, want[:, axis], rtol=1e-5, atol=1e-5 * np.abs(want).max())


@pytest.mark.parametrize("name, block, layer", CASES[:3])
def test_the_points_are_the_stacked_vectors_top_two_principal_components(name, block, layer):
    corpus_ = loaders.qk_corpus(name, block, layer)
    head = corpus_.q.shape[0] - 1
    space = view.space(corpus_, head)
    want, share = principal_points(corpus_.q[head], corpus_.k[head])
    n_q = corpus_.q.shape[1]
    assert space.queries.shape == (n_q, 2) and space.keys.shape == (corpus_.k.shape[1], 2)
    assert_same_up_to_sign(space.points, want)
    np.testing.assert_allclose(space.share, share[:2], rtol=1e-5)
    # each point keeps its own token and sentence
    assert space.q_tokens == corpus_.q_tokens and space.k_sentences[0] == corpus_.k_texts[0]
    assert space.q_sentences[-1] == corpus_.q_texts[-1]


def test_queries_and_keys_apart_along_one_direction_fall_apart_on_the_first_axis():
    rng = np.random.default_rng(0)
    q = rng.normal(size=(40, 8))
    k = rng.normal(size=(30, 8))
    q[:, 3] += 20.0  # the queries sit far from the keys along dimension 3, and nowhere else
    queries, keys, share = view.project(q, k)
    gap = queries[:, 0].mean() - keys[:, 0].mean()
    assert abs(gap) > 18  # most of the 20 apart shows on the first axis
    assert (np.sign(queries[:, 0]) == np.sign(gap)).all() and (np.sign(keys[:, 0]) == -np.sign(gap)).all()
    assert share[0] > 0.8 and share[0] + share[1] <= 1.0 + 1e-6


def test_the_head_is_the_last_one_at_most():
    corpus_ = loaders.qk_corpus("reverse", "encoder.self_attn", 0)
    last = corpus_.q.shape[0] - 1
    assert view.space(corpus_, 99).head == last
    np.testing.assert_array_equal(view.space(corpus_, 99).points, view.space(corpus_, last).points)
