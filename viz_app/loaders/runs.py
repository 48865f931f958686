"""Runs: one traced forward pass of a text (in a shared cache, never pickled), and what is drawn from a text's run
with st.cache_data: a batch of padded sentences, attributions, the logit lens, a sentence embedding, and each
positional encoding's layer 0.

Pages ask for a `Run` (one traced forward pass with its token labels); moving a layer, head or step control
re-draws from the cached run and never re-runs the model. The maths of what is drawn from a run is core_model's
(attribution, lens, importers.bert, nn.position_signal); here the model and the run are fetched and labelled.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np
import streamlit as st
import torch

from core_model import checkpoints, contributions, lens
from core_model.attribution import Gradients, attribute, explained_token
from core_model.importers import bert
from core_model.nn import position_signal
from core_model.trace import Trace, run_with_trace
from core_model.trace.on_demand import OnDemand

from .. import own_model, serving
from ..batch import Batch, SentenceError, batch_masks, invariance, pad_rows
from ..figures.attention import GRID_SIDE
from ..shared_cache import shared_cache
from ..text import piece, prepare, show_piece, token_labels
from ..views import explorer
from . import cost, decodings, models
from .cost import ON_DEMAND_BYTES, RUN_BYTES
from .scope import per_visitor

__all__ = ["Run", "RUN_BYTES", "run", "BATCH_TOKENS", "SentenceError", "padded_batch", "ATTRIBUTED_TOKENS",
           "FLOW_TOKENS", "Attributed", "read_and_next", "attribution", "LENS_TOP", "Lens", "logit_lens",
           "sentence_embedding", "ENCODING_MODELS", "ENCODING_TOKENS", "EncodingRun", "encoding_ids", "encoding_run",
           "contribution_graph_applies", "contribution_shares"]

# ----- one traced run -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Run:
    """One traced forward pass and what the pages need to label it."""
    model: str
    trace: Trace
    src_ids: tuple[int, ...]  # encoder input (empty for a decoder-only model)
    tgt_ids: tuple[int, ...]  # decoder input: <s> + target or prompt (empty for an encoder-only model)
    src_labels: tuple[str, ...]
    tgt_labels: tuple[str, ...]
    output: str  # an encoder-decoder's translation, what its decoder reads ("" for others: decodings.continuation)
    notices: tuple[tuple[str, dict], ...]




def tracing(loaded, src_ids, tgt_ids, own: bool = False) -> OnDemand | None:
    """How `run` traces: on demand past ON_DEMAND_BYTES (with the explorer's statistics taken as it goes: in the
    run's own thread for a model a visitor brought, `own`, on every core for any other), else everything (None)."""
    if cost.weight_bytes(loaded.config, len(src_ids), len(tgt_ids)) <= ON_DEMAND_BYTES:
        return None
    marks = {side: explorer.marks_of(loaded.tokenizers[side], ids) for side, ids in (("src", src_ids), ("tgt", tgt_ids))
             if ids}
    return OnDemand(side=GRID_SIDE, digest=explorer.digest(marks, 1) if own else explorer.digest(marks))


@per_visitor("src_text", "tgt_text")
@shared_cache(max_entries=16, max_bytes=RUN_BYTES, size=lambda r: r.trace.nbytes)
def run(name: str, src_text: str, tgt_text: str = "", scale: bool = True, pad_mask: bool = True,
        limit: int = 0, half: bool = False, scope: str = "") -> Run:
    """Trace `name` on the text; without a target, the decoder reads the model's own output.

    `limit` > 0 reads at most that many tokens of the text (the masks page's batch), else all it can. A text that
    fills a large model (more than ON_DEMAND_BYTES of attention weights) is run on every core, unless a visitor brought
    it (its run takes one core and gives way to others': viz_app/fair.py). `half` keeps the
    attention weights in float16 (the sidebar's switch; the pages say so).
    """
    loaded = models.load_model(name)
    cfg = loaded.config
    most = models.readable(cfg)
    limit = min(limit, most) if limit > 0 else most
    limit = min(limit, cost.visitor_tokens(name, cfg, decodings.MAX_DECODE_STEPS) or limit)
    prepared = prepare(loaded.tokenizers["src" if cfg.has_encoder else "tgt"], src_text, limit, models.known_words(name))
    n = len(prepared.ids)
    large = cost.weight_bytes(cfg, n, n) > ON_DEMAND_BYTES and not own_model.is_own(name)
    with serving.large_run() if large else contextlib.nullcontext():
        return _run(loaded, name, prepared, src_text, tgt_text, scale, pad_mask, limit, half)


def _run(loaded, name: str, prepared, src_text: str, tgt_text: str, scale: bool, pad_mask: bool, limit: int,
         half: bool) -> Run:
    """`run`'s body, once the text is read (`prepared`): the model's output, then the traced forward pass."""
    cfg = loaded.config
    notices = [cut_notice(name, cfg, limit, fields) if key == "input.truncated" else (key, fields)
               for key, fields in prepared.notices]
    notices += [("run.half", {})] if half else []
    src_ids, tgt_ids, output, generated = prepared.ids, (), "", ()
    if cfg.architecture == "encoder-decoder":  # its output is what its decoder reads (a decoder-only model's is
        try:  # the overview's own: decodings.continuation). The same greedy output the decoding page steps through.
            generated = decodings.decode(name, src_text).ids
        except ValueError:  # an empty source
            generated = ()
        output = loaded.tokenizers["tgt"].decode_visible(list(generated))  # shown: a stray byte as <C3>
    if cfg.architecture == "decoder":
        tgt_ids, src_ids = (cfg.bos_id, *prepared.ids), ()
    elif cfg.architecture == "encoder-decoder":
        target = generated
        if tgt_text.strip():
            forced = prepare(loaded.tokenizers["tgt"], tgt_text, limit)
            target, notices = forced.ids, notices + list(forced.notices)
        tgt_ids = (*cfg.decoder_start, *target)  # bos (and an mBART-50's target language) first
    _, trace = run_with_trace(loaded.model, list(src_ids) or None, list(tgt_ids) or None, scale=scale,
                              pad_mask=pad_mask, on_demand=tracing(loaded, src_ids, tgt_ids, own_model.is_own(name)),
                              half=half)
    return Run(name, trace, src_ids, tgt_ids,
               token_labels(loaded.tokenizers["src"], src_ids) if src_ids else (),
               token_labels(loaded.tokenizers["tgt"], tgt_ids) if tgt_ids else (),
               output, tuple(notices))


def cut_notice(name: str, cfg, limit: int, fields: dict) -> tuple[str, dict]:
    """Why a text was cut to `limit` tokens (prepare's "input.truncated" and its fields): the model's positions, a
    visitor's own model's cost (cost.py), or the masks page's batch."""
    if limit == models.readable(cfg):
        return "input.truncated", fields
    if limit == cost.visitor_tokens(name, cfg, decodings.MAX_DECODE_STEPS):
        return cost.cost_notice(cfg, fields["n"], fields["keep"], decodings.MAX_DECODE_STEPS)
    return "input.batch_cut", fields


# ----- masks page: several sentences padded into one batch (helpers in viz_app/batch.py) ----------

BATCH_TOKENS = 64  # tokens of each line the masks page batches: masks read at a glance, and a batch stays small


@per_visitor("sentences")
@st.cache_data(max_entries=16, max_size="128MB", show_spinner=False)
def padded_batch(name: str, sentences: tuple[str, ...], pad_mask: bool = True, scope: str = "") -> Batch:
    """Pad the sentences (each cut to BATCH_TOKENS) to the longest and trace them in one batched forward pass."""
    loaded = models.load_model(name)
    cfg = loaded.config
    alone = []  # each sentence by itself, with the padding mask
    for line, sentence in enumerate(sentences, 1):
        try:
            alone.append(run(name, sentence, limit=BATCH_TOKENS if models.readable(cfg) > BATCH_TOKENS else 0))
        except ValueError as e:  # nothing left to read once unusable characters are removed
            raise SentenceError(line) from e
    src = pad_rows([r.src_ids for r in alone], cfg.pad_id) if cfg.has_encoder else np.zeros((len(alone), 0), np.int64)
    tgt = pad_rows([r.tgt_ids for r in alone], cfg.pad_id) if cfg.has_decoder else np.zeros((len(alone), 0), np.int64)
    _, trace = run_with_trace(loaded.model, torch.as_tensor(src) if cfg.has_encoder else None,
                              torch.as_tensor(tgt) if cfg.has_decoder else None, pad_mask=pad_mask)
    lengths = {"src": np.array([len(r.src_ids) for r in alone]), "tgt": np.array([len(r.tgt_ids) for r in alone])}
    labels = {side: tuple(token_labels(loaded.tokenizers[side], row) for row in ids) if ids.shape[1] else ()
              for side, ids in (("src", src), ("tgt", tgt))}
    notices = []
    for notice in (n for r in alone for n in r.notices):
        if notice not in notices:  # the same message once, not once per sentence
            notices.append(notice)
    return Batch(tuple(sentences), src, tgt, lengths, labels["src"], labels["tgt"], trace,
                 batch_masks(cfg, src, tgt, pad_mask, lengths), invariance(trace, [r.trace for r in alone], cfg),
                 tuple(notices), cfg.window, cfg.window_layers)


# ----- attribution page ---------------------------------------------------------------------------

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
    tokenizer = models.load_model(now.model).tokenizers["tgt"]
    return tuple(piece(tokenizer, i) for i in (*now.tgt_ids, explained_token(now.trace, now.tgt_ids,
                                                                               len(now.tgt_ids) - 1)))


@per_visitor("src_text", "tgt_text")
@st.cache_data(max_entries=32, max_size="16MB", show_spinner=False)
def attribution(name: str, src_text: str, tgt_text: str = "", position: int = 0, scope: str = "") -> Attributed:
    """The four attributions of output `position` (a decoder) or of the final [CLS] vector (an encoder)."""
    loaded, now = models.load_model(name), run(name, src_text, tgt_text)
    cfg = loaded.config
    labels = now.tgt_labels[:position + 1] if cfg.architecture == "decoder" else now.src_labels
    if len(labels) > ATTRIBUTED_TOKENS:  # the page offers no such output and says why
        raise ValueError(f"Attribution reads at most {ATTRIBUTED_TOKENS} tokens; this input has {len(labels)}.")
    found = attribute(loaded.model, now.trace, now.src_ids, now.tgt_ids, position, FLOW_TOKENS)
    explained = piece(loaded.tokenizers["tgt"], found.token) if cfg.has_decoder else ""
    return Attributed(labels, found.methods, explained, found.gradients)


# ----- FFN, residual & normalization page: the logit lens -----------------------------------------

LENS_TOP = 3  # tokens listed per layer and position


@dataclass(frozen=True)
class Lens:
    """The decoder's prediction read out after every layer, as if that layer were the last one."""
    probs_of_final: np.ndarray  # [layers, t] probability, under each layer's readout, of the model's own prediction
    top_ids: np.ndarray  # [layers, t, LENS_TOP], most likely first
    top_probs: np.ndarray  # [layers, t, LENS_TOP]
    top_pieces: tuple[tuple[tuple[str, ...], ...], ...]  # [layers][t][LENS_TOP]
    final_ids: np.ndarray  # [t] argmax of the model's logits


@per_visitor("src_text", "tgt_text")
@st.cache_data(max_entries=32, max_size="64MB", show_spinner=False)
def logit_lens(name: str, src_text: str, tgt_text: str = "", scale: bool = True, pad_mask: bool = True,
               scope: str = "") -> Lens:
    """core_model.lens.logit_lens of the run: each decoder layer's prediction, with its tokens' pieces."""
    loaded = models.load_model(name)  # an encoder-only model: ValueError, it has no output layer to read
    read = lens.logit_lens(loaded.model, run(name, src_text, tgt_text, scale, pad_mask).trace, LENS_TOP)
    tokenizer = loaded.tokenizers["tgt"]

    def pieces(ids):  # as in token_labels, without the positions
        return tuple(show_piece(p) for p in tokenizer.display_pieces(list(ids)))

    return Lens(read.probs_of_final, read.top_ids, read.top_probs,
                tuple(tuple(pieces(pos) for pos in layer) for layer in read.top_ids), read.final_ids)


# ----- FFN & residual page: the contribution graph ---------------------------------------------------

def contribution_graph_applies(name: str) -> bool:
    """Whether the model's sublayers add to its stream as they are (core_model.contributions.applies)."""
    return contributions.applies(models.load_model(name).model)


def contribution_shares(name: str, src_text: str, tgt_text: str = "") -> list:
    """core_model.contributions.shares of the text's run (cached); not cached itself: a few hundred small numpy
    products over a run of at most contributions.MAX_TOKENS tokens. ValueError for a longer text."""
    return contributions.shares(models.load_model(name).model, run(name, src_text, tgt_text).trace)


# ----- overview page ------------------------------------------------------------------------------

@per_visitor("text")
@st.cache_data(max_entries=32, max_size="4MB", show_spinner=False)
def sentence_embedding(name: str, text: str, scope: str = "") -> np.ndarray:
    """An encoder's sentence embedding as sentence-transformers makes it: [d_model], length 1.

    The last encoder layer's output of `run(name, text)`, averaged over its tokens (none is padding) and normalized.
    """
    return bert.traced_sentence_embedding(run(name, text).trace, models.load_model(name).config.n_encoder_layers)


# ----- positional page: every encoding on one sentence (place/encodings.py, views/encodings.py) ---

# Each positional encoding as a shipped model uses it (its config.json's "positional").
ENCODING_MODELS = {"sinusoidal": models.DEFAULT_MODEL, "learned": bert.MINILM, "rope": "lm-en-rope", "alibi": "lm-en"}
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
    scores: np.ndarray  # [h, n, n] layer 0's scores from position alone, before the mask (position_signal)
    alone: np.ndarray  # [h, n, n] their softmax, under the causal mask if `causal`: the attention of position alone
    pos: np.ndarray | None = None  # sinusoidal, learned: [n, d_model] the vectors added to the tokens (the trace's)
    angles: np.ndarray | None = None  # rope: [n, d_head/2] the angle each pair is turned by at each position
    slopes: np.ndarray | None = None  # alibi: [h] each head's penalty per token of distance (its bias is `scores`)


def encoding_ids(loaded: checkpoints.Loaded, text: str, known: frozenset[str] | None = None
                 ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(src, tgt) ids of the first ENCODING_TOKENS tokens, laid out as `run` lays them out (`known`: as
    models.known_words): a decoder-only model reads <s> first; an encoder-decoder's encoder reads the text (its
    decoder only its start, <s>)."""
    cfg = loaded.config
    if cfg.architecture == "decoder":
        return (), (cfg.bos_id, *prepare(loaded.tokenizers["tgt"], text, ENCODING_TOKENS - 1, known).ids)
    src = prepare(loaded.tokenizers["src"], text, ENCODING_TOKENS, known).ids
    return src, cfg.decoder_start if cfg.has_decoder else ()


@per_visitor("text")
@st.cache_data(max_entries=16, max_size="16MB", show_spinner=False)
def encoding_run(name: str, text: str, scope: str = "") -> EncodingRun:
    """Trace model `name` on the first ENCODING_TOKENS tokens of `text`, keep its layer 0's self-attention, and
    give what its heads would do from position alone (core_model.nn.position_signal.position_attention)."""
    loaded = models.load_model(name)
    model, cfg = loaded.model, loaded.config
    src, tgt = encoding_ids(loaded, text, models.known_words(name))
    side, stack = ("src", "encoder") if cfg.has_encoder else ("tgt", "decoder")
    pattern = f"{stack}.layers.0.self_attn.pattern"  # recorded after the two others: the model stops there
    read = f"{stack}.layers.0.{position_signal.layer0_input(cfg)}"  # what layer 0's self-attention reads
    _, trace = run_with_trace(model, list(src) or None, list(tgt) or None, stop_after=pattern,
                              names=[f"{side}_embed.pos", read, pattern])
    ids = src if cfg.has_encoder else tgt
    causal = cfg.architecture == "decoder"
    scores, alone, fields = position_signal.position_attention(model, cfg, trace, side, stack, causal)
    return EncodingRun(name, cfg.positional, token_labels(loaded.tokenizers[side], ids), causal,
                       trace.attn(stack, 0).pattern[0], scores, alone, **fields)
