"""Our traced forward against transformers' on the same ids: every attention weight (self- and cross-attention, every
query head) and the output (logits or last hidden state) at the real tokens, for any of our three architectures."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from core_model.trace import run_with_trace
from tests.tolerance import assert_activations_close

ATTN_TOL = 1e-5  # attention weights lie in 0..1: a fixed absolute bound (tests/tolerance.py)
SENTENCES = ["The cat sat on the lazy dog.", "naïve café: 猫!", "  two  spaces,\ta tab and a newline\n"]
TARGETS = ["A fox sat on the mat.", "Numbers like 1999!", "the first one"]  # what an encoder-decoder's decoder reads


def padded(rows: list[list[int]], pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Ids [b, n] right-padded with `pad`, and the mask of real tokens [b, n]."""
    n = max(map(len, rows))
    keep = torch.tensor([[True] * len(r) + [False] * (n - len(r)) for r in rows])
    return torch.tensor([r + [pad] * (n - len(r)) for r in rows]), keep


@dataclass
class Feed:
    """What both models read: each side's ids and mask of real tokens (None where the architecture has no side)."""
    src: torch.Tensor | None = None
    src_keep: torch.Tensor | None = None
    tgt: torch.Tensor | None = None
    tgt_keep: torch.Tensor | None = None


def feed(loaded, texts: list[str], targets: list[str] | None = None) -> Feed:
    """An encoder reads each text framed as its tokenizer frames it ([CLS] … [SEP], … </s>); a decoder reads bos
    and the text (an encoder-decoder's decoder: its start tokens, decoder_start, and one of TARGETS, chosen by the
    text's length, so a text reads the same target alone and in a batch)."""
    cfg, tokens, out = loaded.config, loaded.tokenizers, Feed()
    if cfg.has_encoder:
        tok = tokens["src"]
        out.src, out.src_keep = padded([tok.frame(tok.encode(t)) for t in texts], cfg.pad_id)
    if cfg.has_decoder:
        tok = tokens["tgt"]
        read = texts if not cfg.has_encoder else [TARGETS[len(t) % len(TARGETS)] for t in texts]  # alone: the same
        out.tgt, out.tgt_keep = padded([[*cfg.decoder_start] + tok.encode(t) for t in read], cfg.pad_id)
    return out


def reference_run(reference, fed: Feed, output: str = "logits"):
    """transformers' outputs, with every attention weight (and every layer's hidden states where `output` reads the
    last of them: a model class with a task head gives its logits, not its body's last hidden state)."""
    if fed.src is not None and fed.tgt is not None:
        inputs = dict(input_ids=fed.src, attention_mask=fed.src_keep.long(), decoder_input_ids=fed.tgt,
                      decoder_attention_mask=fed.tgt_keep.long())
    else:
        ids, keep = (fed.src, fed.src_keep) if fed.src is not None else (fed.tgt, fed.tgt_keep)
        inputs = dict(input_ids=ids, attention_mask=keep.long())
    with torch.no_grad():
        return reference(**inputs, output_attentions=True, output_hidden_states=output == "hidden_states")


def reference_output(ref, output: str) -> torch.Tensor:
    """`output` of transformers' run: an output by its name, or for "hidden_states" the last layer's."""
    return ref.hidden_states[-1] if output == "hidden_states" else getattr(ref, output)


def attentions(cfg, fed: Feed, ref) -> list[tuple[str, int, str, torch.Tensor, torch.Tensor]]:
    """(stack, layer, kind, transformers' weights [b, h, q, k], the queries' mask of real tokens), every one."""
    if cfg.architecture == "encoder-decoder":
        out = [("encoder", i, "self_attn", w, fed.src_keep) for i, w in enumerate(ref.encoder_attentions)]
        return out + [("decoder", i, kind, weights[i], fed.tgt_keep) for i in range(cfg.n_decoder_layers)
                      for kind, weights in (("self_attn", ref.decoder_attentions), ("cross_attn", ref.cross_attentions))]
    stack, keep = ("encoder", fed.src_keep) if cfg.has_encoder else ("decoder", fed.tgt_keep)
    return [(stack, i, "self_attn", w, keep) for i, w in enumerate(ref.attentions)]


def compare(loaded, reference, texts: list[str], output: str = "logits") -> dict[str, float]:
    """Assert every attention weight and the output equal transformers' at the real tokens; return the largest
    differences seen, by name."""
    cfg, fed = loaded.config, feed(loaded, texts)
    out, trace = run_with_trace(loaded.model, fed.src, fed.tgt)
    ref = reference_run(reference, fed, output)
    rows = (fed.tgt_keep if cfg.has_decoder else fed.src_keep).numpy()
    got, want = out.detach().numpy()[rows], reference_output(ref, output).numpy()[rows]  # [real tokens, …]
    assert_activations_close(got, want, output)
    seen = {output: float(np.abs(got - want).max())}
    listed = attentions(cfg, fed, ref)
    per_decoder_layer = 2 if cfg.has_encoder else 1  # an encoder-decoder's decoder layer: self- and cross-attention
    assert len(listed) == cfg.has_encoder * cfg.n_encoder_layers + cfg.has_decoder * cfg.n_decoder_layers * \
        per_decoder_layer
    for stack, i, kind, weights, keep in listed:
        pattern = trace.attn(stack, i, kind).pattern  # [b, h, q, k]: every query head
        assert pattern.shape == tuple(weights.shape), (stack, i, kind)
        error = np.abs(pattern - weights.numpy()).transpose(0, 2, 1, 3)[keep.numpy()]  # [real queries, h, k]
        assert error.max() <= ATTN_TOL, f"{stack} {i} {kind}: {error.max()}"
        seen[f"{stack} {i} {kind}"] = float(error.max())
    return seen


def generate(reference, loaded, prompt: list[int], max_new: int, eos: int) -> list[int]:
    """transformers' greedy ids after the prompt: a decoder is given bos + prompt as ours reads it, an encoder-decoder
    the framed source (its decoder's start tokens dropped: decoder_start_token_id, and forced_bos_token_id if the
    folder's generation settings force one). forced_eos_token_id (eos forced at the length limit), which our
    decoding does not follow (core_model/generation.py names it), is switched off."""
    cfg = loaded.config
    ids = prompt if cfg.has_encoder else [cfg.bos_id] + prompt
    forced = len(cfg.decoder_start) - 1  # a forced first token is one of generate()'s new tokens, one of our start's
    with torch.no_grad():
        out = reference.generate(torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                                 max_new_tokens=max_new + forced, do_sample=False, num_beams=1, eos_token_id=eos,
                                 pad_token_id=cfg.pad_id, forced_eos_token_id=None)
    return out[0, len(cfg.decoder_start):].tolist() if cfg.has_encoder else out[0, len(ids):].tolist()
