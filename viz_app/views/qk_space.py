"""The explorer's queries and keys of a corpus (AttentionViz's view): one head's query vectors and key vectors over
many held-out sentences, projected together onto the top two principal axes of all of them."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .tokens import pca_2d


@dataclass(frozen=True)
class QKSpace:
    """One head's queries and keys on two shared axes, each point with its token and its sentence."""
    head: int
    queries: np.ndarray  # [n_q, 2] each query vector on the two axes
    keys: np.ndarray  # [n_k, 2] each key vector on the same axes
    share: np.ndarray  # [2] the share of the stacked vectors' variance along each axis
    q_tokens: tuple[str, ...]  # [n_q] "3·the": the token and its position in its sentence
    k_tokens: tuple[str, ...]  # [n_k]
    q_sentences: tuple[str, ...]  # [n_q] the sentence each query's token is in
    k_sentences: tuple[str, ...]  # [n_k]
    hidden: int = 0  # [CLS] and [SEP] points left out (queries and keys), when they are hidden

    @property
    def points(self) -> np.ndarray:
        """Queries, then keys, as one table: [n_q + n_k, 2]."""
        return np.concatenate([self.queries, self.keys])


def project(q, k) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Queries [n_q, d] and keys [n_k, d] on the top two principal axes of all n_q + n_k vectors stacked (a plain
    PCA: centred on their joint mean, numpy SVD): (queries [n_q, 2], keys [n_k, 2], variance share per axis [2]).

    One fit for both, so a query and a key at the same point are the same vector seen along these axes.
    """
    q, k = np.asarray(q), np.asarray(k)
    (both,), share = pca_2d(np.concatenate([q, k]))  # [n_q + n_k, 2]
    return both[:len(q)], both[len(q):], share


def space(corpus, head: int, hide: bool = False) -> QKSpace:
    """Head `head` (at most the last) of `corpus`: any object with loaders.QKCorpus's fields (q, k [heads, n, d_head],
    their tokens, sentence indices, sentences and [CLS]/[SEP] flags). `hide` leaves the [CLS] and [SEP] points out
    before the axes are fitted, so they neither show nor pull the axes their way."""
    head = min(head, corpus.q.shape[0] - 1)
    qi, ki = (np.flatnonzero(~frame) if hide else np.arange(len(frame)) for frame in (corpus.q_frame, corpus.k_frame))
    kv = head // (corpus.q.shape[0] // corpus.k.shape[0])  # the key head it reads (grouped-query attention)
    queries, keys, share = project(corpus.q[head][qi], corpus.k[kv][ki])
    return QKSpace(head, queries, keys, share, tuple(corpus.q_tokens[i] for i in qi),
                   tuple(corpus.k_tokens[i] for i in ki), tuple(corpus.q_texts[corpus.q_sentence[i]] for i in qi),
                   tuple(corpus.k_texts[corpus.k_sentence[i]] for i in ki),
                   len(corpus.q_frame) - len(qi) + len(corpus.k_frame) - len(ki))
