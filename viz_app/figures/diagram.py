"""The model as a Graphviz diagram (DOT text), annotated with the current sentence's shapes."""
from __future__ import annotations


def _box(name: str, label: str, fill: str) -> str:
    safe = label.replace("\\", "\\\\").replace('"', '\\"')
    return f'  {name} [label="{safe}", fillcolor="{fill}"];'


def model_diagram(shape, words: dict) -> str:
    """DOT text of the architecture; `shape` holds its sizes and the sentence's lengths (views.overview.Diagram),
    `words` the translated box labels (see i18n overview)."""
    arch, d_model, vocab, n_src, n_tgt = shape.arch, shape.d_model, shape.vocab, shape.n_src, shape.n_tgt
    embed = "\n".join(words[key] for key in shape.embed)  # what the model does: scaled or not, a position vector…
    note = "\n" + words[shape.attn_note] if shape.attn_note else ""  # ALiBi's bias, RoPE's rotation
    ffn = words["ffn"] + ("\n" + words[shape.block_note] if shape.block_note else "")  # a parallel layer says so
    lines = ['digraph model {', '  rankdir=BT; node [shape=box, style="rounded,filled", fontname="sans-serif"];']
    if arch in ("encoder-decoder", "encoder"):
        lines += [
            _box("src", f"{words['src_tokens']} [{n_src}]", "#eeeeee"),
            _box("src_embed", f"{embed}\n[{n_src} × {d_model}]", "#dbe9f6"),
            _box("encoder", f"{words['encoder']}\n{words['self_attn']}{note}\n{ffn}\n[{n_src} × {d_model}]",
                 "#c6dbef"),
            "  src -> src_embed -> encoder;",
        ]
    if arch in ("encoder-decoder", "decoder"):
        attn = words["masked_self_attn"] + note + ("\n" + words["cross_attn"] if arch == "encoder-decoder" else "")
        lines += [
            _box("tgt", f"{words['tgt_tokens']} [{n_tgt}]", "#eeeeee"),
            _box("tgt_embed", f"{embed}\n[{n_tgt} × {d_model}]", "#fde0c5"),
            _box("decoder", f"{words['decoder']}\n{attn}\n{ffn}\n[{n_tgt} × {d_model}]", "#fdc38d"),
            _box("generator", f"{words['output']}\n[{n_tgt} × {vocab}]", "#fbb4ae"),
            "  tgt -> tgt_embed -> decoder -> generator;",
        ]
    if arch == "encoder-decoder":
        lines.append('  encoder -> decoder [label="K, V"];')
    lines.append("}")
    return "\n".join(lines)
