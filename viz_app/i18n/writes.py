"""The decoding page's "what each head writes": the chosen token's logit split by what writes it."""
STRINGS = {
    "writes.title": {"en": "What each head writes toward «{token}»", "zh": "每个头朝「{token}」写入了多少"},
    "writes.post_norm": {
        "en": "This model normalises its stream after every block (post-norm), so no head writes to the output "
              "directly: its logit cannot be split by head. A pre-norm model (lm-en, GPT-2, Llama) can.",
        "zh": "这个模型在每个块之后都对信息流做归一化（后归一化），所以没有哪个头直接写入输出：它的 logit 无法按头拆分。"
              "前归一化的模型（例如 lm-en）可以。"},
    "writes.intro": {
        "en": "The stream that reaches the output is a sum: the embedding, then each block's output. A head's share is "
              "its output z times its own columns of W_O; each share goes through the final norm (its scale frozen "
              "as this run had it) and the output layer. The shares add up to the chosen token's logit.",
        "zh": "到达输出的信息流是一个和：嵌入，加上每个块的输出。一个头的份额是它的输出 z 乘以 W_O 中属于它的列；"
              "每份都经过最终归一化（其缩放固定为这次运行的值）和输出层。所有份额加起来就是所选词元的 logit。"},
    "writes.heads": {"en": "{block}: each head's share of the logit of «{token}»",
                     "zh": "{block}：每个头在「{token}」的 logit 中的份额"},
    "writes.part": {"en": "Part of the stream", "zh": "信息流的组成部分"},
    "writes.logit": {"en": "Share of the logit", "zh": "在 logit 中的份额"},
    "writes.part.embedding": {"en": "embedding", "zh": "嵌入"},
    "writes.part.ffn": {"en": "FFN of layer {layer}", "zh": "第 {layer} 层的前馈网络"},
    "writes.part.norm": {"en": "final norm's bias and the output bias", "zh": "最终归一化的偏置与输出偏置"},
    "writes.part.bias": {"en": "{block} W_O bias, layer {layer}", "zh": "{block} 的 W_O 偏置，第 {layer} 层"},
    "writes.sum": {
        "en": "Heads {heads:.3f} + the rest {rest:.3f} = {total:.3f}; the model's own logit of {token}: {logit:.3f}.",
        "zh": "各头 {heads:.3f} + 其余 {rest:.3f} = {total:.3f}；模型自己给 {token} 的 logit：{logit:.3f}。"},
}
