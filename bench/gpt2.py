"""A GPT-2-shaped model of 124M parameters with random weights: our traced forward of the imported folder against
transformers' GPT2LMHeadModel on the same ids.

No hub and no download: transformers builds the model from GPT2Config's defaults (12 layers, 12 heads, 768 wide,
1,024 positions, a vocabulary of 50,257) and writes the folder as save_pretrained does; its byte-level BPE
tokenizer.json is made here with `tokenizers` (the 256 byte symbols, merges of pairs of them up to the vocabulary
size, and <|endoftext|>), so core_model.importers.gpt2 reads a folder shaped exactly like the real one.
transformers runs with eager attention and output_attentions=True, so both sides hand back every head's weights.
"""
from __future__ import annotations

import os
import statistics
import tempfile
from pathlib import Path

import numpy as np
import torch

from core_model import checkpoints
from core_model.trace import run_with_trace

from .core import median_ms

SIZES = (128, 512)
EOT = "<|endoftext|>"
TEXT = "the visualizer lets a student type a sentence and step through every head of a real pretrained model "


def byte_tokenizer(size: int, first: tuple[str, ...] = (), last: tuple[str, ...] = ()):
    """A byte-level BPE `tokenizers.Tokenizer` of `size` ids, shaped as the hub's GPT-2, SmolLM and Qwen2 files are:
    the specials `first` at ids 0, 1, …, the 256 byte symbols, merges of pairs of them (then, past 65,536 merges,
    of a pair and a byte: Qwen2's 151,936 ids), then the specials `last`. Our importers want a decoder's tokenizer
    exactly as large as its embedding."""
    import itertools

    import tokenizers

    alphabet = sorted(tokenizers.pre_tokenizers.ByteLevel.alphabet())
    pairs = ((a, b) for a in alphabet for b in alphabet)
    triples = ((a + b, c) for a in alphabet for b in alphabet for c in alphabet)
    merges = list(itertools.islice(itertools.chain(pairs, triples), size - len(first) - len(alphabet) - len(last)))
    vocab = {special: i for i, special in enumerate(first)}
    vocab.update({piece: len(first) + i for i, piece in enumerate([*alphabet, *(a + b for a, b in merges)])})
    vocab.update({special: len(vocab) + i for i, special in enumerate(last)})
    tk = tokenizers.Tokenizer(tokenizers.models.BPE(vocab=vocab, merges=merges))
    tk.add_special_tokens([*first, *last])
    tk.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = tokenizers.decoders.ByteLevel()
    return tk


def gpt2_folder(dest: Path, dtype: torch.dtype = torch.float32, **config) -> Path:
    """A GPT-2 folder with random weights (GPT2Config's defaults, updated by `config`) saved in `dtype`, and a
    byte-level BPE tokenizer.json of the config's vocabulary size."""
    import transformers

    tk = byte_tokenizer(config.pop("vocab_size", transformers.GPT2Config().vocab_size), last=(EOT,))
    transformers.GPT2TokenizerFast(tokenizer_object=tk, bos_token=EOT, eos_token=EOT, unk_token=EOT).save_pretrained(dest)
    eot = tk.token_to_id(EOT)
    cfg = transformers.GPT2Config(vocab_size=tk.get_vocab_size(), bos_token_id=eot, eos_token_id=eot, **config)
    torch.manual_seed(0)
    transformers.GPT2LMHeadModel(cfg).to(dtype).save_pretrained(dest, safe_serialization=True)
    return dest


def ids_of_length(tokenizer, n: int) -> torch.Tensor:
    """<|endoftext|> (our decoder's <s>) + the text's tokens repeated: exactly n ids, [1, n]."""
    body = tokenizer.encode(TEXT)
    return torch.tensor([[tokenizer.bos_id, *(body * (n // len(body) + 1))[:n - 1]]])


def agreement(logits, trace, ref) -> float:
    """The largest difference between ours and transformers, over the logits (relative to their largest size)
    and every attention weight (absolute: they lie in 0..1)."""
    scale = float(ref.logits.abs().max())
    return max(float((logits - ref.logits).abs().max()) / scale,
               max(float(abs(trace.attn("decoder", i, "self_attn").pattern - a.numpy()).max())
                   for i, a in enumerate(ref.attentions)))


def bench_gpt2(repeats: int = 6, sizes=SIZES, **config) -> list[dict]:
    """Per length: median ms per traced forward of ours (every value recorded) and per forward of transformers
    (eager, output_attentions=True), interleaved. Row keys: tokens, parameters, ours_ms, transformers_ms, ratio,
    values, trace_mb, max_error, agree."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    import transformers

    with tempfile.TemporaryDirectory() as tmp:
        folder = gpt2_folder(Path(tmp) / "gpt2-random", **config)
        ours = checkpoints.load(folder)
        theirs = transformers.GPT2LMHeadModel.from_pretrained(folder, attn_implementation="eager").eval()
    parameters = sum(p.numel() for p in theirs.parameters())
    return [dict(parameters=parameters, **bench_length(ours.model, theirs, ids_of_length(ours.tokenizers["tgt"], n),
                                                        repeats)) for n in sizes]


def bench_length(model, theirs, ids: torch.Tensor, repeats: int) -> dict:
    def mine():
        return run_with_trace(model, None, ids)

    def reference():
        with torch.no_grad():
            return theirs(ids, output_attentions=True)

    (logits, trace), ref = mine(), reference()
    error = agreement(logits, trace, ref)
    kept = dict(values=len(trace), trace_mb=trace.nbytes / 2**20)
    del logits, trace, ref  # nothing of the check stays alive while timing
    times = {fn: [] for fn in (mine, reference)}
    for _ in range(max(1, repeats // 3)):  # interleaved, so a neighbour's load hits both alike
        for fn in times:
            times[fn].append(median_ms(fn, 3))
    a, b = (statistics.median(times[fn]) for fn in (mine, reference))
    return dict(tokens=ids.shape[1], ours_ms=a, transformers_ms=b, ratio=a / b, max_error=error,
                agree=bool(np.isfinite(error) and error <= 1e-4), **kept)


if __name__ == "__main__":  # python -m bench.gpt2: the rows as JSON, one thread as bench.run uses
    import json

    torch.set_num_threads(1)
    print(json.dumps(bench_gpt2(), indent=2))
