"""English left on a page shown in Chinese, as a reader sees it in the browser.

`english_leaks(page, allowed_words)` reads every visible text node of the page and of its frames: the
main area, the sidebar and navigation when shown, Streamlit's own chrome, and the SVG text of plotly
charts. A node leaks if it holds a Latin word (two letters or more) that is none of: a formula's symbol
or name (FORMULA_WORDS; inside KaTeX those, KATEX_WORDS and nothing else), a format or tool named as Chinese
text names it too (NAMES), the name of a recorded value or of a file (named()), or one of `allowed_words`
(the model's own tokens, which the caller takes from the model, never from the page). Numbers, punctuation
and single letters (x, Q) are never English. Code spans (`python -m …`) are commands, the same in every language, and are not read.
"""
from __future__ import annotations

import re

# Symbols and names of the formulas the pages write, in KaTeX or in plain text: the same in a Chinese textbook.
FORMULA_WORDS = {
    "softmax", "QK", "LayerNorm", "RMSNorm", "ReLU", "GELU", "FFN", "RoPE", "ALiBi", "PE", "sin", "cos", "exp", "log",
    "argmax", "sqrt", "base", "concat", "Concat", "top", "lr", "eps", "inf", "NaN", "d_model", "d_k", "d_v", "d_ff", "d_head",
    "W_Q", "W_K", "W_V", "W_O", "max_len", "vocab_size", "n_heads", "logit", "logits", "rms",
}
# Inside KaTeX a subscript or \text{} is its own word: d_model is "d", "model".
# KaTeX also joins neighbouring letters of one font into one text (A_{ij}: "ij"): two letters pass there.
KATEX_WORDS = {"model", "ff", "head", "pos", "max", "min", "len", "mid", "out", "MultiHead", "Attention", "enc", "dec"}
# The names of recorded values (DESIGN.md, "Trace names"), which the pages quote as the model's own labels:
# resid_mid, norm1, encoder.layers.0.resid_mid, ffn.hidden. A dotted name passes if every part is one of these.
TRACE_PARTS = {"encoder", "decoder", "layers", "self_attn", "cross_attn", "ffn", "hidden", "out", "resid_pre",
               "resid_mid", "resid_post", "resid_", "norm1", "norm2", "norm3", "final_norm", "src_embed", "tgt_embed",
               "tok", "scaled", "pos", "scores", "scores_scaled", "scores_masked", "pattern", "logits", "probs"}
FILE_TYPES = {"csv", "json", "safetensors", "md", "model", "zip", "html", "png"}  # train_log.csv, config.json
# Formats, tools and model families, written in Latin letters in Chinese text as well.
NAMES = {
    "Transformer", "BERT", "GPT", "MiniLM", "WordPiece", "BPE", "sentencepiece", "PCA", "CSV", "PNG", "HTML", "MB",
    "KB", "GB", "AER", "Adam", "zip", "JSON", "safetensors", "pickle", "UTF", "ASCII", "CPU", "URL", "ID", "id",
    "ids", "English", "Hugging", "Face", "CLS", "SEP", "UNK", "PAD", "pad", "unk", "bos", "eos", "Enter", "Ctrl", "txt",
    "PyTorch", "Captum", "Abnar", "Zuidema",  # a library, and the authors a method is cited by
}
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*")  # d_model, W_Q, ffn.hidden: one word each
_BYTE = re.compile(r"<0x[0-9A-Fa-f]{2}>")  # a byte-fallback token as the pages label it

# [text, "formula" | "text"] for each visible, non-empty text node of a document.
_TEXT_NODES = """() => {
    // not text: scripts, code spans (commands), KaTeX's hidden MathML copy, icons drawn from a font's ligatures
    const SKIP = 'script, style, noscript, template, code, pre, .katex-mathml, [data-testid="stIconMaterial"]';
    const out = [];
    const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const text = n.nodeValue.replace(/\\s+/g, ' ').trim();
        const el = n.parentElement;
        if (!text || !el || el.closest(SKIP)) continue;
        if (el.checkVisibility && !el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) continue;
        const range = document.createRange();
        range.selectNodeContents(n);
        const box = range.getBoundingClientRect();
        const own = el.getBoundingClientRect();  // a skip link: 1 px, clipped, its text spilling out unseen
        if (Math.min(box.width, box.height, own.width, own.height) <= 1) continue;
        out.push([text, el.closest('.katex') ? 'formula' : 'text']);
    }
    return out;
}"""


def visible_texts(page) -> list[tuple[str, str]]:
    """(text, kind) of every visible text node of the page and of its frames (components, exported HTML)."""
    out = []
    for frame in page.frames:
        try:
            out += [tuple(pair) for pair in frame.evaluate(_TEXT_NODES)]
        except Exception:  # a frame that went away meanwhile, or a cross-origin one: nothing of ours in it
            continue
    return out


def named(word: str) -> bool:
    """A recorded value's name (resid_mid, encoder.layers.0.norm1) or a file's (train_log.csv)."""
    parts = word.split(".")
    return all(p in TRACE_PARTS or p.isdigit() for p in parts) or (len(parts) == 2 and parts[1] in FILE_TYPES)


def foreign_words(text: str, kind: str, allowed: set[str]) -> list[str]:
    """The words of `text` that are English: not allowed, not a formula's, not a name."""
    words = [w for w in _WORD.findall(_BYTE.sub(" ", text)) if sum(c.isalpha() for c in w) > 1]
    if kind == "formula":
        words = [w for w in words if len(w) > 2]
    known = FORMULA_WORDS | KATEX_WORDS if kind == "formula" else FORMULA_WORDS | NAMES | allowed
    lowered = {w.lower() for w in known}
    return [w for w in words if w not in known and w.lower() not in lowered and not named(w)]


def english_leaks(page, allowed_words) -> list[str]:
    """Every visible text of `page` that holds English beyond `allowed_words` (the model's tokens); [] if none."""
    allowed = set(allowed_words)
    return sorted({text for text, kind in visible_texts(page) if foreign_words(text, kind, allowed)})


def model_words(*tokenizers) -> set[str]:
    """The Latin words of the tokenizers' pieces (▁ and byte pieces aside): what a page may show of a model."""
    words = set()
    for tok in tokenizers:
        for i in range(tok.vocab_size):
            words |= set(_WORD.findall(_BYTE.sub(" ", tok.id_to_piece(i))))
    return words
