"""The FFN & residual page's contribution graph."""
STRINGS = {
    "graph.title": {"en": "Where a token's last state comes from: the contribution graph",
                    "zh": "一个词元的最终状态从哪里来：贡献图"},
    "graph.not_applicable": {
        "en": "The graph reads a pre-norm decoder-only model (lm-en, lm-en-rope, GPT-2, Llama), whose attention and "
              "FFN add their outputs to the stream as they are. This model normalises the stream after them or joins "
              "them otherwise.",
        "zh": "贡献图只读前归一化的仅解码器模型（例如 lm-en），它们的注意力和前馈网络把输出原样加到信息流上。这个模型在"
              "它们之后对信息流做归一化，或以别的方式合并它们。"},
    "graph.about": {
        "en": "As in Meta's LLM Transparency Tool: each state of a token is a sum (its state before, what each head "
              "brings from each earlier token, what the FFN adds). A part's share is how much closer the sum is to "
              "zero without it (in L1), the shares of one state adding up to 1. From the chosen token's last state, "
              "every edge with at least the threshold is followed back. Click a head's point to make it the sidebar's.",
        "zh": "与 Meta 的 LLM Transparency Tool 一样：一个词元的每个状态都是一个和（它之前的状态、每个头从每个更早词元"
              "带来的内容、前馈网络加上的内容）。某部分的份额是：去掉它之后，这个和离零近了多少（按 L1 计），同一状态"
              "的各份额加起来为 1。从所选词元的最终状态出发，沿所有不低于阈值的边往回走。点击某个头的点，即可把它设为"
              "侧栏的头。"},
    "graph.too_long": {"en": "The graph is not drawn: {reason}", "zh": "贡献图未绘制：{reason}"},
    "graph.token": {"en": "Token whose last state is traced back", "zh": "要回溯最终状态的词元"},
    "graph.threshold": {"en": "Smallest share of an edge followed", "zh": "沿着走的边的最小份额"},
    "graph.level.embedding": {"en": "embedding", "zh": "嵌入"},
    "graph.level.attention": {"en": "layer {layer} attention", "zh": "第 {layer} 层注意力"},
    "graph.level.ffn": {"en": "layer {layer} FFN", "zh": "第 {layer} 层前馈网络"},
    "graph.residual": {"en": "residual", "zh": "残差"},
    "graph.ffn": {"en": "FFN", "zh": "前馈网络"},
    "graph.head": {"en": "head {head}", "zh": "头 {head}"},
    "graph.figure": {"en": "What makes up the last state of {token}", "zh": "{token} 的最终状态由什么组成"},
    "graph.caption": {"en": "{n} edges of at least {threshold:.2f} of the state they end in.",
                      "zh": "{n} 条边，每条至少占其终点状态的 {threshold:.2f}。"},
}
