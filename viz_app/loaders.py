"""The only place that caches: models with st.cache_resource, traced runs in a shared cache, the rest with st.cache_data.

Pages ask for a `Run` (one traced forward pass with its token labels); moving a layer, head
or step control re-draws from the cached run and never re-runs the model.
Every cache is bounded: st.cache_resource by its entries, st.cache_data by its entries and its
pickled bytes, the runs' shared cache by its entries and bytes (one lm-en trace of 2,048 tokens alone
is hundreds of MiB), so no visitor can grow the server without limit (tests/app/test_cache_bounds.py).
"""
from __future__ import annotations

import math
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import streamlit as st
import torch

from core_model import checkpoints, decoding
from core_model.importers import bert
from core_model.training import tasks
from core_model.attribution import Gradients, attribute, explained_token
from core_model.generation import Generation, read_generation
from core_model.nn.positional import alibi_bias, alibi_slopes, rope_angles, rope_rotate, sinusoidal_table
from core_model.nn.attention import attention
from core_model.nn.masks import apply_mask, causal_mask, masked_softmax
from core_model.messages import CodedError
from core_model.training.tasks import LABEL_SMOOTHING, TASKS, Task, corpus, make_batch
from core_model.trace import Trace, run_with_trace
from core_model.training.train import cooldown_steps, encode_pairs, learning_rate  # noqa: F401 (cooldown_steps: for the page)
from core_model.training.snapshots import Snapshots, read_snapshots
from core_model.training.train_log import TrainLog, read_log

from .batch import Batch, SentenceError, batch_masks, final_output, pad_rows
from .shared_cache import shared_cache
from .views.blocks import SIDES  # which side feeds a block's queries and its keys
from .views.tokens import nearest
from .text import clean, piece, show_piece, token_labels, visible

MODELS_DIR = Path(__file__).resolve().parent.parent / "assets" / "models"
DEFAULT_MODEL = "translate-en-fr"
# A user's own model is named "own-" + the hash of its files and kept in OWN_DIR under that name
# (viz_app/own_model.py), so its cached model and traces serve only sessions that brought the same files.
OWN_PREFIX = "own-"
OWN_DIR = Path(tempfile.gettempdir()) / "attention-viz-own-models"


def available_models() -> list[str]:
    """Shipped checkpoint folders, the default first, then all-MiniLM-L6-v2 if its package is installed."""
    names = sorted(p.name for p in MODELS_DIR.iterdir() if (p / checkpoints.CONFIG).is_file()) if MODELS_DIR.is_dir() else []
    imported = [bert.MINILM] if bert.minilm_path() is not None else []
    return sorted(names, key=lambda n: n != DEFAULT_MODEL) + imported


def model_folder(name: str) -> Path:
    """Where the model `name` is: a shipped folder, the installed MiniLM, or a user's own under OWN_DIR."""
    if name == bert.MINILM:
        return bert.minilm_path() or MODELS_DIR / name
    return (OWN_DIR if name.startswith(OWN_PREFIX) else MODELS_DIR) / name


@st.cache_resource(max_entries=8, show_spinner=False)
def load_model(name: str) -> checkpoints.Loaded:
    """Load once per server; shared read-only by every session."""
    return checkpoints.load(model_folder(name))


@dataclass(frozen=True)
class Prepared:
    """Text made ready for a tokenizer: the ids, and what the page should tell the user."""
    ids: tuple[int, ...]
    notices: tuple[tuple[str, dict], ...]  # (i18n key, fields)


def unfamiliar_words(tokenizer, ids, words: list[str]) -> list[str]:
    """Words the tokenizer has no piece for: it fell back to bytes, <unk>, or one letter at a time."""
    pieces_of: dict[int, list[tuple[int, str]]] = {}
    for w, i in zip(tokenizer.word_ids(list(ids)), ids):
        if 0 <= w < len(words):
            pieces_of.setdefault(w, []).append((i, tokenizer.id_to_piece(i).lstrip("▁")))
    return sorted({words[w] for w, pieces in pieces_of.items()
                   if any(i == tokenizer.unk_id or p.startswith("<0x") for i, p in pieces)
                   or (len(pieces) > 1 and all(len(p) <= 1 for _, p in pieces))})


def prepare(tokenizer, text: str, max_tokens: int) -> Prepared:
    """Tokenize `text`, cut to `max_tokens`, and note removed characters, truncation, unknown words.

    The text is framed as its tokenizer says (tokenizer.frame: BERT's [CLS] … [SEP], BART's <s> … </s>, Marian's
    … </s>), within max_tokens.
    """
    text, notices = clean(text)
    frame = len(tokenizer.frame([]))
    ids = tokenizer.encode(text)
    if len(ids) + frame > max_tokens:
        notices.append(("input.truncated", {"n": len(ids) + frame, "keep": max_tokens}))
        ids = ids[:max_tokens - frame]
    unknown = unfamiliar_words(tokenizer, ids, text.split())
    if unknown:
        notices.append(("input.unknown", {"words": ", ".join(visible(w) for w in unknown[:20])}))
    if frame and ids:
        ids = tokenizer.frame(ids)
    return Prepared(tuple(ids), tuple(notices))


def readable(cfg) -> int:
    """How many tokens of text a model reads: its positions (lm-en: 2,048, past the 512 it was trained on, as
    ALiBi has no table), one less for the <s> a decoder reads first, and room for a decoder-only model to
    continue by LM_NEW_TOKENS (a small one: by at most half its positions)."""
    if cfg.architecture == "decoder":
        return max(cfg.positions - 1 - LM_NEW_TOKENS, (cfg.positions - 1) // 2)
    return cfg.positions - 1 if cfg.has_decoder else cfg.positions


@dataclass(frozen=True)
class Run:
    """One traced forward pass and what the pages need to label it."""
    model: str
    trace: Trace
    src_ids: tuple[int, ...]  # encoder input (empty for a decoder-only model)
    tgt_ids: tuple[int, ...]  # decoder input: <s> + target or prompt (empty for an encoder-only model)
    src_labels: tuple[str, ...]
    tgt_labels: tuple[str, ...]
    output: str  # the model's translation or continuation ("" for an encoder)
    notices: tuple[tuple[str, dict], ...]


# Shared as it is, never pickled (shared_cache.py): a short sentence's run holds ~1 MB, a 2,048-token
# lm-en one a few hundred. The bytes bound holds: the oldest runs go first, and a run alone over it is
# drawn but not kept. A miss costs one traced forward pass (the greedy output it reads is in `decode`'s
# own cache). See RELIABILITY.md, "Bounded memory".
RUN_BYTES = 512 * 2**20


@shared_cache(max_entries=16, max_bytes=RUN_BYTES, size=lambda r: r.trace.nbytes)
def run(name: str, src_text: str, tgt_text: str = "", scale: bool = True, pad_mask: bool = True,
        limit: int = 0) -> Run:
    """Trace `name` on the text; without a target, the decoder reads the model's own output.

    `limit` > 0 reads at most that many tokens of the text (the masks page's batch), else all it can.
    """
    loaded = load_model(name)
    cfg = loaded.config
    side = "src" if cfg.has_encoder else "tgt"
    limit = min(limit, readable(cfg)) if limit > 0 else readable(cfg)
    prepared = prepare(loaded.tokenizers[side], src_text, limit)
    cut = "input.batch_cut" if limit < readable(cfg) else "input.truncated"  # the masks page's own bound, or the model's
    notices = [(cut if key == "input.truncated" else key, fields) for key, fields in prepared.notices]
    src_ids, tgt_ids, output = prepared.ids, (), ""
    if cfg.has_decoder:
        try:  # the same greedy output the decoding page steps through
            generated = decode(name, src_text).ids
        except ValueError:  # an empty source, or a prompt that leaves no room to continue
            generated = ()
            if not cfg.has_encoder:
                notices.append(("input.no_room", {"max_len": cfg.positions}))
        output = loaded.tokenizers["tgt"].decode_visible(list(generated))  # shown: a stray byte as <C3>
    if cfg.architecture == "decoder":
        tgt_ids, src_ids = (cfg.bos_id, *prepared.ids), ()
    elif cfg.architecture == "encoder-decoder":
        target = generated
        if tgt_text.strip():
            forced = prepare(loaded.tokenizers["tgt"], tgt_text, limit)
            target, notices = forced.ids, notices + list(forced.notices)
        tgt_ids = (cfg.bos_id, *target)
    _, trace = run_with_trace(loaded.model, list(src_ids) or None, list(tgt_ids) or None,
                              scale=scale, pad_mask=pad_mask)
    return Run(name, trace, src_ids, tgt_ids,
               token_labels(loaded.tokenizers["src"], src_ids) if src_ids else (),
               token_labels(loaded.tokenizers["tgt"], tgt_ids) if tgt_ids else (),
               output, tuple(notices))


# ----- attribution page ---------------------------------------------------------------------

ATTRIBUTED_TOKENS = 128  # input tokens an attribution reads: integrated gradients runs the model hundreds of times
FLOW_TOKENS = 48  # attention flow solves one maximum flow per input token over layers × n² edges


@dataclass(frozen=True)
class Attributed:
    """One output's attributions over the input tokens it can depend on (core_model/attribution.py)."""
    labels: tuple[str, ...]  # the input tokens: the source, or a decoder's tokens up to the position
    methods: dict  # method → [n] per token: rollout, flow (absent past FLOW_TOKENS), times_input, integrated
    explained: str  # the output token (a decoder), "" for an encoder's [CLS]
    gradients: Gradients


def read_and_next(now: Run) -> tuple[str, ...]:
    """A decoder's tokens as a reader sees them, then the token the model picks after the last one."""
    tokenizer = load_model(now.model).tokenizers["tgt"]
    return tuple(piece(tokenizer, i) for i in (*now.tgt_ids, explained_token(now.trace, now.tgt_ids,
                                                                               len(now.tgt_ids) - 1)))


@st.cache_data(max_entries=32, max_size="16MB", show_spinner=False)
def attribution(name: str, src_text: str, tgt_text: str = "", position: int = 0) -> Attributed:
    """The four attributions of output `position` (a decoder) or of the final [CLS] vector (an encoder)."""
    loaded, now = load_model(name), run(name, src_text, tgt_text)
    cfg = loaded.config
    labels = now.tgt_labels[:position + 1] if cfg.architecture == "decoder" else now.src_labels
    if len(labels) > ATTRIBUTED_TOKENS:  # the page offers no such output and says why
        raise ValueError(f"Attribution reads at most {ATTRIBUTED_TOKENS} tokens; this input has {len(labels)}.")
    found = attribute(loaded.model, now.trace, now.src_ids, now.tgt_ids, position, FLOW_TOKENS)
    explained = piece(loaded.tokenizers["tgt"], found.token) if cfg.has_decoder else ""
    return Attributed(labels, found.methods, explained, found.gradients)


# ----- decoding page ------------------------------------------------------------------------

DECODE_METHODS = ("greedy", "beam", "sample")
DECODE_TOP = 10  # candidates kept per step for the page's top-k chart
LM_NEW_TOKENS = 20  # as many tokens as `run` lets a decoder-only model continue
# Whatever a model's config says (an uploaded one may say max_len 8192 and never pick </s>), a decoding
# takes at most this many steps and starts no step after this many seconds: a cached function cannot be
# interrupted, and a visitor who closes the tab does not stop it.
MAX_DECODE_STEPS = 256
DECODE_SECONDS = 20.0


@st.cache_data(max_entries=16, max_size="1MB", show_spinner=False)
def generation(name: str) -> Generation | None:
    """The model folder's own generation settings (a Hugging Face folder's generation_config.json), or None."""
    return read_generation(model_folder(name))


def decoding_applies(architecture: str) -> bool:
    """Only a model with a decoder generates tokens; an encoder-only one has nothing to step through."""
    return architecture in ("encoder-decoder", "decoder")


@st.cache_data(max_entries=32, max_size="64MB", show_spinner=False)
def decode(name: str, src_text: str, method: str = "greedy", width: int = 4, alpha: float = 0.6,
           temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0) -> decoding.Decoded:
    """Decode the text with `method` (greedy, beam or sample); the same arguments give the same record.

    The source is prepared exactly as `run` prepares it, so its positions match `run(...).src_labels`.
    Only the arguments of the chosen method matter; the page passes the others at their defaults.
    """
    loaded = load_model(name)
    cfg = loaded.config
    if not decoding_applies(cfg.architecture):
        raise CodedError("an encoder-only model has no decoder, so it cannot generate tokens.", "no_decoder")
    side = "src" if cfg.has_encoder else "tgt"
    limit = readable(cfg)
    ids = list(prepare(loaded.tokenizers[side], src_text, limit).ids)
    max_len = min(limit - 1, MAX_DECODE_STEPS) if cfg.has_encoder else LM_NEW_TOKENS
    try:
        own = generation(name)
    except checkpoints.CheckpointError:  # the page says why it is not used (place/decoding.own_generation) and goes on without it
        own = None
    if own is not None and own.max_new_tokens:
        max_len = min(max_len, own.max_new_tokens)
    common = dict(max_len=max_len, n_top=DECODE_TOP, seconds=DECODE_SECONDS)
    if method == "greedy":
        return decoding.greedy(loaded.model, ids, **common)
    if method == "beam":
        return decoding.beam_search(loaded.model, ids, width=width, length_penalty=alpha, **common)
    if method == "sample":
        return decoding.sample(loaded.model, ids, temperature=temperature, top_k=top_k, top_p=top_p,
                               seed=seed, **common)
    raise CodedError(f"method is {method!r}, but must be one of: {', '.join(DECODE_METHODS)}.", "bad_argument",
                     {"name": "method"})


# ----- masks page: several sentences padded into one batch (helpers in batch.py) ------------

BATCH_TOKENS = 64  # tokens of each line the masks page batches: masks read at a glance, and a batch stays small


@st.cache_data(max_entries=16, max_size="128MB", show_spinner=False)
def padded_batch(name: str, sentences: tuple[str, ...], pad_mask: bool = True) -> Batch:
    """Pad the sentences (each cut to BATCH_TOKENS) to the longest and trace them in one batched forward pass."""
    loaded = load_model(name)
    cfg = loaded.config
    alone = []  # each sentence by itself, with the padding mask
    for line, sentence in enumerate(sentences, 1):
        try:
            alone.append(run(name, sentence, limit=BATCH_TOKENS if readable(cfg) > BATCH_TOKENS else 0))
        except ValueError as e:  # nothing left to read once unusable characters are removed
            raise SentenceError(line) from e
    src = pad_rows([r.src_ids for r in alone], cfg.pad_id) if cfg.has_encoder else np.zeros((len(alone), 0), np.int64)
    tgt = pad_rows([r.tgt_ids for r in alone], cfg.pad_id) if cfg.has_decoder else np.zeros((len(alone), 0), np.int64)
    _, trace = run_with_trace(loaded.model, torch.as_tensor(src) if cfg.has_encoder else None,
                              torch.as_tensor(tgt) if cfg.has_decoder else None, pad_mask=pad_mask)
    lengths = {"src": np.array([len(r.src_ids) for r in alone]), "tgt": np.array([len(r.tgt_ids) for r in alone])}
    batched = final_output(trace, cfg)
    invariance = tuple(float(np.abs(batched[i, :one.shape[1]] - one[0]).max())
                       for i, one in enumerate(final_output(r.trace, cfg) for r in alone))
    labels = {side: tuple(token_labels(loaded.tokenizers[side], row) for row in ids) if ids.shape[1] else ()
              for side, ids in (("src", src), ("tgt", tgt))}
    notices = []
    for notice in (n for r in alone for n in r.notices):
        if notice not in notices:  # the same message once, not once per sentence
            notices.append(notice)
    return Batch(tuple(sentences), src, tgt, lengths, labels["src"], labels["tgt"], trace,
                 batch_masks(cfg, src, tgt, pad_mask, lengths), invariance, tuple(notices))


# ----- tokens page --------------------------------------------------------------------------

@dataclass(frozen=True)
class Neighbours:
    """Each token's nearest vocabulary entries by cosine similarity of embedding rows."""
    ids: np.ndarray  # [n, k]
    cosine: np.ndarray  # [n, k]
    vectors: np.ndarray  # [n, k, d_model]
    pieces: tuple[tuple[str, ...], ...]  # [n][k] the neighbours' display pieces


@st.cache_data(max_entries=32, max_size="32MB", show_spinner=False)
def vocab_neighbours(name: str, side: str, ids: tuple[int, ...], k: int) -> Neighbours:
    """The k entries of the `side` embedding matrix nearest each of `ids` (special tokens left out)."""
    loaded = load_model(name)
    cfg = loaded.config
    weight = getattr(loaded.model, f"{side}_embed").tok.weight.detach().numpy()  # [vocab, d_model]
    found, cosine = nearest(weight, ids, k, exclude=(cfg.pad_id, cfg.unk_id, cfg.bos_id, cfg.eos_id))
    display = loaded.tokenizers[side].display_pieces
    return Neighbours(found, cosine, weight[found], tuple(tuple(display(row.tolist())) for row in found))


def token_pieces(name: str, side: str, ids: tuple[int, ...]) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The `side` tokenizer's display pieces of `ids`, and the word each belongs to (-1: none; cheap, not cached)."""
    tokenizer = load_model(name).tokenizers[side]
    return tuple(tokenizer.display_pieces(list(ids))), tuple(tokenizer.word_ids(list(ids)))


# ----- positional page ----------------------------------------------------------------------

@st.cache_data(max_entries=16, max_size="32MB", show_spinner=False)
def model_positions(name: str, n: int) -> dict:
    """The model's own position information over its first n positions (at most max_len), by kind.

    sinusoidal / learned: {side: [n, d_model]} for each side; rope: {"angles": [n, d_head/2],
    "offset": [n, n] (q·k of one fixed q and k placed at every pair of positions)};
    alibi: {"bias": [h, n, n], "slopes": [h]}; none: {}.
    """
    loaded = load_model(name)
    cfg = loaded.config
    positions = torch.arange(min(n, cfg.max_len))
    with torch.no_grad():
        if cfg.positional in ("sinusoidal", "learned"):
            return {side: getattr(loaded.model, f"{side}_embed").pos(positions).numpy() for side in cfg.sides}
        if cfg.positional == "rope":
            q, k = torch.randn(2, 1, 1, 1, cfg.d_head, generator=torch.Generator().manual_seed(0))
            rq, rk = (rope_rotate(x.expand(1, 1, len(positions), -1), positions, cfg.positional_base,
                                  cfg.rope_layout)[0, 0] for x in (q, k))  # [n, d_head] each
            return {"angles": rope_angles(positions, cfg.d_head, cfg.positional_base).numpy(),
                    "offset": (rq @ rk.T).numpy()}  # [n, n]
        if cfg.positional == "alibi":
            return {"bias": alibi_bias(cfg.n_heads, positions, positions)[0].numpy(),  # [h, n, n]
                    "slopes": alibi_slopes(cfg.n_heads).numpy()}  # [h]
    return {}


@st.cache_data(max_entries=16, max_size="32MB", show_spinner=False)
def sinusoid(length: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The paper's sinusoidal table for the lab's settings: [length, d_model] float32 (1 MiB at 512 × 512)."""
    return sinusoidal_table(length, d_model, base).numpy()


# ----- overview page ------------------------------------------------------------------------

@st.cache_data(max_entries=32, max_size="4MB", show_spinner=False)
def sentence_embedding(name: str, text: str) -> np.ndarray:
    """An encoder's sentence embedding as sentence-transformers makes it: [d_model], length 1.

    The last encoder layer's output of `run(name, text)`, averaged over its tokens (none is padding) and normalized.
    """
    loaded = load_model(name)
    trace = run(name, text).trace
    last = torch.tensor(trace.layer_output("encoder", loaded.config.n_encoder_layers - 1))  # [1, n, d_model], a copy
    return bert.sentence_embedding(last, torch.ones(last.shape[:2], dtype=torch.bool)).numpy()[0]  # [d_model]


def parameter_counts(name: str) -> dict[str, int]:
    """Trainable parameters per top-level part of the model (src_embed, encoder, ...), a tied matrix once."""
    return load_model(name).model.parameter_counts()


# ----- FFN, residual & normalization page: the logit lens -----------------------------------

LENS_TOP = 3  # tokens listed per layer and position


@dataclass(frozen=True)
class Lens:
    """The decoder's prediction read out after every layer, as if that layer were the last one."""
    probs_of_final: np.ndarray  # [layers, t] probability, under each layer's readout, of the model's own prediction
    top_ids: np.ndarray  # [layers, t, LENS_TOP], most likely first
    top_probs: np.ndarray  # [layers, t, LENS_TOP]
    top_pieces: tuple[tuple[tuple[str, ...], ...], ...]  # [layers][t][LENS_TOP]
    final_ids: np.ndarray  # [t] argmax of the model's logits


@st.cache_data(max_entries=32, max_size="64MB", show_spinner=False)
def logit_lens(name: str, src_text: str, tgt_text: str = "", scale: bool = True, pad_mask: bool = True) -> Lens:
    """Each decoder layer's output through the final norm (pre-norm stacks) and the output layer."""
    loaded = load_model(name)
    model, cfg = loaded.model, loaded.config
    if not cfg.has_decoder:
        raise ValueError("an encoder-only model has no output layer to read a prediction from.")
    trace = run(name, src_text, tgt_text, scale, pad_mask).trace
    hidden = torch.from_numpy(np.stack([trace.layer_output("decoder", i)[0]
                                        for i in range(cfg.n_decoder_layers)]))  # [layers, t, d_model]
    with torch.no_grad():
        if model.decoder.final_norm is not None:  # a pre-norm stack's output is only read through it
            hidden = model.decoder.final_norm(hidden)
        probs = torch.softmax(model.generator(hidden), dim=-1).numpy()  # [layers, t, vocab]
    final_ids = trace["logits"][0].argmax(-1)  # [t]
    top_ids = np.argsort(-probs, axis=-1, kind="stable")[..., :LENS_TOP]  # [layers, t, k]
    tokenizer = loaded.tokenizers["tgt"]

    def pieces(ids):  # as in token_labels, without the positions
        return tuple(show_piece(p) for p in tokenizer.display_pieces(list(ids)))

    return Lens(np.take_along_axis(probs, final_ids[None, :, None], -1)[..., 0],
                top_ids, np.take_along_axis(probs, top_ids, -1),
                tuple(tuple(pieces(pos) for pos in layer) for layer in top_ids), final_ids)


# ----- self-attention step by step and the worked example: a head's weights, a hand-set head ------

def head_weights(block: torch.nn.Module, head: int) -> dict[str, np.ndarray]:
    """W_Q, W_K, W_V of one head as [d_model, d_head] (so Q = X W_Q + b_Q), their biases, and W_O, b_O.

    A model without biases gets zero biases, so the formulas hold as written. Under grouped-query attention W_K and
    W_V are those of the key/value head the query head reads.
    """
    d_head = block.d_head
    kv = head // (block.n_heads // block.n_kv_heads)
    out = {}
    for name, linear, h in (("q", block.q_proj, head), ("k", block.k_proj, kv), ("v", block.v_proj, kv)):
        rows = slice(h * d_head, (h + 1) * d_head)  # nn.Linear keeps W as [out, in]: a head owns out rows
        out[f"w_{name}"] = linear.weight.detach()[rows].T.numpy().copy()  # [d_model, d_head]; never a view of the model
        bias = torch.zeros(linear.out_features) if linear.bias is None else linear.bias.detach()
        out[f"b_{name}"] = bias[rows].numpy().copy()
    out["w_o"] = block.out_proj.weight.detach().T.numpy().copy()  # [h·d_head, d_model]
    b_o = block.out_proj.bias
    out["b_o"] = np.zeros(out["w_o"].shape[1], np.float32) if b_o is None else b_o.detach().numpy().copy()
    return out


@st.cache_data(max_entries=32, max_size="16MB", show_spinner=False)
def block_weights(name: str, block: str, layer: int, head: int) -> dict[str, np.ndarray]:
    """head_weights of one head of `block` ('stack.kind') at `layer` of the model `name`."""
    stack, kind = block.split(".")
    return head_weights(load_model(name).model.get_submodule(f"{stack}.layers.{layer}.{kind}"), head)


def worked_attention(x, w_q, w_k, w_v, causal: bool) -> dict[str, np.ndarray]:
    """Q, K, V, the mask and every attention stage of a hand-set example, through core_model's attention()."""
    def tensor(a):
        return torch.as_tensor(np.asarray(a, dtype=np.float64))

    x = tensor(x)
    q, k, v = x @ tensor(w_q), x @ tensor(w_k), x @ tensor(w_v)  # [n, d_k]
    n = x.shape[0]
    mask = causal_mask(n) if causal else None  # [1, 1, n, n]
    stages = {"q": q.numpy(), "k": k.numpy(), "v": v.numpy(),
              "mask": np.ones((n, n)) if mask is None else mask[0, 0].numpy().astype(np.float64)}

    def keep(leaf, value):  # attention()'s hook: every step, as one head of a batch of one
        stages[leaf] = value[0, 0].numpy()
        return value

    with torch.no_grad():
        attention(q[None, None], k[None, None], v[None, None], mask=mask, hook=keep)
    return stages


# ----- training page ------------------------------------------------------------------------

TEACHER_PAIRS = 4  # pairs in the teacher-forcing batch the page draws


def shipped_task(name: str) -> Task | None:
    """The task a shipped model was trained on (its folder name), or None (MiniLM, a user's own model)."""
    return TASKS.get(name) if name in TASKS and (MODELS_DIR / name / checkpoints.CONFIG).is_file() else None


@st.cache_data(max_entries=16, max_size="16MB", show_spinner=False)
def training_log(name: str) -> TrainLog | None:
    """The training log kept in the model's folder (train_log.csv), or None; CheckpointError if it is bad."""
    return read_log(model_folder(name))


@st.cache_data(max_entries=4, max_size="64MB", show_spinner=False)
def training_snapshots(name: str) -> Snapshots | None:
    """The attention snapshots kept in the model's folder (attention_steps.safetensors), or None; CheckpointError
    if they are bad."""
    return read_snapshots(model_folder(name))


def lr_schedule(d_model: int, warmup: int, factor: float, steps: int, cooldown: float = 0.0) -> np.ndarray:
    """core_model.training.train.learning_rate for steps 1 … steps: the schedule training follows."""
    return np.array([learning_rate(step, d_model, warmup, factor, steps, cooldown) for step in range(1, steps + 1)])


@dataclass(frozen=True)
class TeacherBatch:
    src: np.ndarray | None  # [b, s] ids
    tgt_in: np.ndarray  # [b, t]
    tgt_out: np.ndarray  # [b, t]
    loss: np.ndarray  # [b, t] each target's cross-entropy under LABEL_SMOOTHING (0 at padding)
    pieces: dict  # "src" / "tgt_in" / "tgt_out" -> rows of display pieces


@st.cache_data(max_entries=8, max_size="8MB", show_spinner=False)
def teacher_batch(name: str) -> TeacherBatch:
    """The first pairs of the task's training split (its own generator, seed 0) made into a batch by training's
    own make_batch, and the shipped weights' loss of each target token (eval mode: no dropout)."""
    loaded, task = load_model(name), shipped_task(name)
    cfg = loaded.config
    pairs = corpus(task, 0, 16 * TEACHER_PAIRS)["train"]
    batch = make_batch(encode_pairs(pairs, loaded.tokenizers, cfg.max_len)[:TEACHER_PAIRS], cfg)
    with torch.no_grad():
        logits = loaded.model(batch["src"], batch["tgt_in"])
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), batch["tgt_out"].flatten(), reduction="none",
                                                 ignore_index=cfg.pad_id, label_smoothing=LABEL_SMOOTHING)
    sides = {"src": ("src", batch["src"]), "tgt_in": ("tgt", batch["tgt_in"]), "tgt_out": ("tgt", batch["tgt_out"])}
    pieces = {key: [[show_piece(p) for p in loaded.tokenizers[side].display_pieces(row.tolist())] for row in ids]
              for key, (side, ids) in sides.items() if ids is not None}
    return TeacherBatch(None if batch["src"] is None else batch["src"].numpy(), batch["tgt_in"].numpy(),
                        batch["tgt_out"].numpy(), loss.view(batch["tgt_out"].shape).numpy().astype(np.float64), pieces)


# ----- positional page: every encoding on one sentence (place/encodings.py, views/encodings.py) -----

# Each positional encoding as a shipped model uses it (its config.json's "positional").
ENCODING_MODELS = {"sinusoidal": DEFAULT_MODEL, "learned": bert.MINILM, "rope": "lm-en-rope", "alibi": "lm-en"}
ENCODING_TOKENS = 32  # positions shown at most: a 32 × 32 pattern reads at a glance


@dataclass(frozen=True)
class EncodingRun:
    """One model's layer-0 self-attention on the first ENCODING_TOKENS tokens of a sentence (split by its own
    tokenizer), what its position signal is made of, and what each head would do from position alone. Fields of
    other kinds are None."""
    model: str
    kind: str  # the config's positional: sinusoidal, learned, rope, alibi
    labels: tuple[str, ...]  # [n] the tokens the model reads, with their positions
    causal: bool  # layer 0 is a decoder's: a query sees no later key
    pattern: np.ndarray  # [h, n, n] layer 0's self-attention weights on the sentence (the trace's)
    scores: np.ndarray  # [h, n, n] layer 0's scores from position alone, before the mask (see position_scores)
    alone: np.ndarray  # [h, n, n] their softmax, under the causal mask if `causal`: the attention of position alone
    pos: np.ndarray | None = None  # sinusoidal, learned: [n, d_model] the vectors added to the tokens (the trace's)
    angles: np.ndarray | None = None  # rope: [n, d_head/2] the angle each pair is turned by at each position
    slopes: np.ndarray | None = None  # alibi: [h] each head's penalty per token of distance (its bias is `scores`)


def encoding_ids(loaded: checkpoints.Loaded, text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(src, tgt) ids of the first ENCODING_TOKENS tokens, laid out as `run` lays them out: a decoder-only
    model reads <s> first; an encoder-decoder's encoder reads the text (its decoder only <s>)."""
    cfg = loaded.config
    if cfg.architecture == "decoder":
        return (), (cfg.bos_id, *prepare(loaded.tokenizers["tgt"], text, ENCODING_TOKENS - 1).ids)
    src = prepare(loaded.tokenizers["src"], text, ENCODING_TOKENS).ids
    return src, (cfg.bos_id,) if cfg.has_decoder else ()


def position_input(model, cfg, n: int) -> torch.Tensor:
    """What layer 0's self-attention reads at positions 0 … n-1 when every token vector is zero: the position
    vectors (+ token type 0's vector, which BERT adds to every token), through the embedding's norm (BERT's)
    and, in a pre-norm layer, through norm1: [n, d_model]."""
    embed = model.src_embed if cfg.has_encoder else model.tgt_embed
    x = embed.pos(torch.arange(n))  # [n, d_model]
    if embed.token_type is not None:
        x = x + embed.token_type.weight[0]
    if embed.norm is not None:
        x = embed.norm(x)
    layer = (model.encoder if cfg.has_encoder else model.decoder).layers[0]
    return layer.norm1(x) if layer.pre_norm else x


def layer0_input(cfg) -> str:
    """The leaf of layer 0 its self-attention reads: norm1 in a pre-norm layer, else what enters the layer."""
    return "norm1" if cfg.norm_placement == "pre" else "resid_pre"


def position_scores(model, cfg, trace: Trace, side: str, stack: str) -> tuple[torch.Tensor, dict]:
    """Layer 0's scores [h, n, n] from position alone, before the mask, and the fields of what they are made of.

    sinusoidal, learned: (P W_Q + b_Q)(P W_K + b_K)ᵀ / √d_head of the position vectors alone (position_input);
    rope: the sentence's mean query and mean key (before rope_rotate), each turned for every position, / √d_head;
    alibi: the bias itself (no query or key carries position).
    """
    attn, n = getattr(model, stack).layers[0].self_attn, trace.attn(stack, 0).pattern.shape[-1]
    positions = torch.arange(n)
    if cfg.positional == "alibi":
        return alibi_bias(cfg.n_heads, positions, positions)[0], dict(slopes=alibi_slopes(cfg.n_heads).numpy())
    if cfg.positional in ("sinusoidal", "learned"):
        x = position_input(model, cfg, n)[None]  # [1, n, d_model]
        q, k = attn.split(attn.q_proj(x)), attn.split(attn.k_proj(x), attn.n_kv_heads)  # [1, h or kv, n, d_head]
        fields = dict(pos=trace[f"{side}_embed.pos"][0])
    elif cfg.positional == "rope":
        x = torch.tensor(trace.layer(stack, 0, layer0_input(cfg)))  # [1, n, d_model], a copy (the trace's is read-only)
        mean_q, mean_k = (attn.split(proj(x), heads).mean(2, keepdim=True)
                          for proj, heads in ((attn.q_proj, attn.n_heads), (attn.k_proj, attn.n_kv_heads)))
        q, k = (rope_rotate(m.expand(-1, -1, n, -1), positions, cfg.positional_base, cfg.rope_layout)
                for m in (mean_q, mean_k))
        fields = dict(angles=rope_angles(positions, cfg.d_head, cfg.positional_base).numpy())  # [n, d_head/2]
    else:
        raise ValueError(f"no position signal to show for the kind {cfg.positional!r}.")
    k = attn.shared(k)  # each key head repeated for the query heads that read it (grouped-query attention)
    return (q @ k.transpose(-2, -1))[0] / math.sqrt(cfg.d_head), fields  # [h, n, n]


@st.cache_data(max_entries=16, max_size="16MB", show_spinner=False)
def encoding_run(name: str, text: str) -> EncodingRun:
    """Trace model `name` on the first ENCODING_TOKENS tokens of `text`, keep its layer 0's self-attention, and
    give what its heads would do from position alone (position_scores, softmax under the model's own mask)."""
    loaded = load_model(name)
    model, cfg = loaded.model, loaded.config
    src, tgt = encoding_ids(loaded, text)
    side, stack = ("src", "encoder") if cfg.has_encoder else ("tgt", "decoder")
    pattern = f"{stack}.layers.0.self_attn.pattern"  # recorded after the two others: the model stops there
    _, trace = run_with_trace(model, list(src) or None, list(tgt) or None, stop_after=pattern,
                              names=[f"{side}_embed.pos", f"{stack}.layers.0.{layer0_input(cfg)}", pattern])
    ids = src if cfg.has_encoder else tgt
    causal = cfg.architecture == "decoder"
    with torch.no_grad():
        scores, fields = position_scores(model, cfg, trace, side, stack)
        mask = causal_mask(len(ids)) if causal else None  # [1, 1, n, n]
        alone = masked_softmax(apply_mask(scores[None], mask), mask)[0]  # [h, n, n]
    return EncodingRun(name, cfg.positional, token_labels(loaded.tokenizers[side], ids), causal,
                       trace.attn(stack, 0).pattern[0], scores.numpy(), alone.numpy(), **fields)


# ----- explorer: queries and keys of a corpus (views/qk_space.py) -----------------------------


QK_SENTENCES = 64  # held-out sentences a head's queries and keys are drawn from: a few thousand points at most
QK_TOKENS = 32  # tokens of a sentence at most, on each side (<s>, or [CLS] and [SEP], included)
QK_BATCH = 16  # sentences traced in one forward pass: the progress bar moves after each batch
QK_BORROWED = DEFAULT_MODEL  # the task whose sentences a model with none of its own (MiniLM, a user's) reads


@dataclass(frozen=True)
class HeldOut:
    """The sentences a model's queries and keys are drawn from, as each of its sides reads them."""
    task: str  # the corpus's task: its held-out test split, as core_model.training.evaluate takes it (corpus(task, 0)["test"])
    own: bool  # the model's own task's; else the model has none and borrows QK_BORROWED's
    src: tuple[str, ...]  # per sentence, what the encoder reads ("" for a model without one)
    tgt: tuple[str, ...]  # per sentence, what the decoder reads after <s> ("" for a model without one)


@st.cache_data(max_entries=8, max_size="1MB", show_spinner=False)
def held_out(name: str) -> HeldOut:
    """The first QK_SENTENCES held-out test sentences of the model's task (seed 0, as evaluate.py draws them:
    translate-en-fr's come after its 150,000 training pairs, ~11 s). A translator reads both sides of each pair; a
    one-sided model reads the English: a language model's sentence, or a borrowed pair's source."""
    cfg = load_model(name).config
    task = shipped_task(name)
    pairs = tasks.held_out((task or TASKS[QK_BORROWED]).name)["test"][:QK_SENTENCES]  # drawn once per server
    if cfg.architecture == "encoder-decoder":
        src, tgt = tuple(s for s, _, _ in pairs), tuple(t for _, t, _ in pairs)
    else:
        english = tuple(s if s is not None else t for s, t, _ in pairs)
        none = ("",) * len(english)
        src, tgt = (english, none) if cfg.has_encoder else (none, english)
    return HeldOut((task or TASKS[QK_BORROWED]).source, task is not None, src, tgt)


@dataclass(frozen=True)
class QKCorpus:
    """One attention block's layer over held-out sentences: every head's queries and keys at the sentences' real
    tokens (no padding), sentence after sentence, as the trace records them (RoPE's rotated)."""
    q: np.ndarray  # [heads, n_q, d_head]
    k: np.ndarray  # [heads, n_k, d_head]
    q_tokens: tuple[str, ...]  # [n_q] "3·the": each query's token, with its position in its sentence
    k_tokens: tuple[str, ...]  # [n_k]
    q_sentence: np.ndarray  # [n_q] int: the index in q_texts of the sentence each query is in
    k_sentence: np.ndarray  # [n_k] int: the same in k_texts
    q_texts: tuple[str, ...]  # the sentences the queries are read from (the target's, in cross-attention)
    k_texts: tuple[str, ...]  # the sentences the keys are read from
    q_frame: np.ndarray  # [n_q] bool: the token is a [CLS] or [SEP] framing its sentence (False if nothing frames it)
    k_frame: np.ndarray  # [n_k] bool


def qk_ids(loaded: checkpoints.Loaded, side: str, text: str) -> tuple[int, ...]:
    """A held-out sentence's ids on `side` as `run` lays them out, within QK_TOKENS and the model's positions: the
    encoder reads the text (BERT's in [CLS] … [SEP]), the decoder <s> and then the text."""
    limit = min(QK_TOKENS, loaded.config.positions)
    if side == "src":
        return prepare(loaded.tokenizers["src"], text, limit).ids
    return (loaded.config.bos_id, *prepare(loaded.tokenizers["tgt"], text, limit - 1).ids)


@st.cache_data(max_entries=64, max_size="12MB", show_spinner=False)
def qk_batch(name: str, block: str, layer: int, first: int) -> QKCorpus:
    """Held-out sentences first … first + QK_BATCH - 1 padded into one batch and traced, keeping only `block`'s q and
    k at `layer`; each row cut to its sentence's own tokens (sentence indices and texts are the batch's)."""
    loaded = load_model(name)
    cfg = loaded.config
    sentences = held_out(name)
    texts = {"src": sentences.src[first:first + QK_BATCH], "tgt": sentences.tgt[first:first + QK_BATCH]}
    ids = {side: [qk_ids(loaded, side, text) for text in texts[side]] for side in cfg.sides}
    batch = {side: torch.as_tensor(pad_rows(rows, cfg.pad_id)) for side, rows in ids.items()}  # [b, longest]
    stack, kind = block.split(".")
    prefix = f"{stack}.layers.{layer}.{kind}."
    _, trace = run_with_trace(loaded.model, batch.get("src"), batch.get("tgt"), names=[prefix + "q", prefix + "k"],
                              stop_after=prefix + "k")  # k comes after q: the rest of the model is not needed
    fields = {}
    for leaf, side in zip("qk", SIDES[block]):
        full = trace[prefix + leaf]  # [b, h, longest, d_head]
        rows = ids[side]
        fields[leaf] = np.concatenate([full[i, :, :len(r)] for i, r in enumerate(rows)], axis=1)  # [h, Σ n, d_head]
        fields[f"{leaf}_tokens"] = tuple(x for r in rows for x in token_labels(loaded.tokenizers[side], r))
        fields[f"{leaf}_sentence"] = np.repeat(np.arange(len(rows)), [len(r) for r in rows])  # [Σ n]
        fields[f"{leaf}_texts"] = texts[side]
        tok = loaded.tokenizers[side]
        ends = (tok.bos_id, tok.eos_id) if tok.frames_input else ()
        fields[f"{leaf}_frame"] = np.array([x in ends for r in rows for x in r], bool)  # [Σ n]
    return QKCorpus(**fields)


def qk_corpus(name: str, block: str, layer: int, progress=None) -> QKCorpus:
    """Every held-out sentence through `block` at `layer`, QK_BATCH at a time: each batch cached, so the model runs
    once per model, block and layer, and another head re-reads them; `progress(done, total)` after each batch."""
    firsts = range(0, len(held_out(name).src), QK_BATCH)
    parts = []
    for done, first in enumerate(firsts, 1):
        parts.append(qk_batch(name, block, layer, first))
        if progress is not None:
            progress(done, len(firsts))
    fields = {}
    for leaf in "qk":
        fields[leaf] = np.concatenate([getattr(p, leaf) for p in parts], axis=1)  # [h, n, d_head]
        fields[f"{leaf}_frame"] = np.concatenate([getattr(p, f"{leaf}_frame") for p in parts])
        fields[f"{leaf}_sentence"] = np.concatenate([getattr(p, f"{leaf}_sentence") + first
                                                     for p, first in zip(parts, firsts)])  # the batch's → the corpus's
        for field in ("tokens", "texts"):
            fields[f"{leaf}_{field}"] = tuple(x for p in parts for x in getattr(p, f"{leaf}_{field}"))
    return QKCorpus(**fields)
