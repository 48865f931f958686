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


def space(corpus, head: int) -> QKSpace:
    """Head `head` (at most the last) of `corpus`: any object with loaders.QKCorpus's fields (q, k [heads, n, d_head],
    their tokens, sentence indices and sentences)."""
    head = min(head, corpus.q.shape[0] - 1)
    queries, keys, share = project(corpus.q[head], corpus.k[head])
    return QKSpace(head, queries, keys, share, tuple(corpus.q_tokens), tuple(corpus.k_tokens),
                   tuple(corpus.q_texts[i] for i in corpus.q_sentence),
                   tuple(corpus.k_texts[i] for i in corpus.k_sentence))
