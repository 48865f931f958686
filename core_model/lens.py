"""The logit lens: a decoder's prediction read out after every layer, as if that layer were the last one.

Each layer's output of a traced run goes through the decoder's final norm (a pre-norm stack's output is only
ever read through it) and the output layer; the softmax gives what the model would predict had it stopped there.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from .trace import Trace, on_device


@dataclass(frozen=True)
class Readout:
    """What each decoder layer predicts at each position of a traced run."""
    probs_of_final: np.ndarray  # [layers, t] probability, under each layer's readout, of the model's own prediction
    top_ids: np.ndarray  # [layers, t, k], most likely first
    top_probs: np.ndarray  # [layers, t, k]
    final_ids: np.ndarray  # [t] argmax of the model's logits


def layer_probs(model, trace: Trace) -> np.ndarray:
    """Each decoder layer's output through the final norm (pre-norm stacks) and the output layer: [layers, t, vocab]."""
    if not model.cfg.has_decoder:
        raise ValueError("an encoder-only model has no output layer to read a prediction from.")
    hidden = torch.from_numpy(np.stack([trace.layer_output("decoder", i)[0]
                                        for i in range(model.cfg.n_decoder_layers)]))  # [layers, t, d_model]
    hidden = on_device(model, hidden)
    with torch.no_grad():
        if model.decoder.final_norm is not None:  # a pre-norm stack's output is only read through it
            hidden = model.decoder.final_norm(hidden)
        return torch.softmax(model.output_layer(hidden), dim=-1).cpu().numpy()  # [layers, t, vocab]


def logit_lens(model, trace: Trace, k: int) -> Readout:
    """The k most likely tokens of every layer's readout (ties in id order), and the model's own prediction's
    probability under each."""
    probs = layer_probs(model, trace)  # [layers, t, vocab]
    final_ids = trace["logits"][0].argmax(-1)  # [t]
    top_ids = np.argsort(-probs, axis=-1, kind="stable")[..., :k]  # [layers, t, k]
    return Readout(np.take_along_axis(probs, final_ids[None, :, None], -1)[..., 0],
                   top_ids, np.take_along_axis(probs, top_ids, -1), final_ids)
