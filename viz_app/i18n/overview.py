"""Strings of the Overview page."""

STRINGS = {
    "overview.intro": {
        "en": "A Transformer turns the sentence into tokens, gives each token a vector, lets every token "
              "look at the others through attention, and (with a decoder) predicts the output one token "
              "at a time. The diagram shows this model's parts with the shapes of your sentence.",
        "zh": "Transformer 先把句子切成词元，给每个词元一个向量，再通过注意力让每个词元查看其他词元；"
              "带解码器的模型会逐个预测输出词元。下图给出本模型的各个部分，以及你输入的句子在每一步的形状。"},
    "overview.formula": {"en": "Each attention head computes", "zh": "每个注意力头计算"},
    "overview.input": {"en": "Input", "zh": "输入"},
    "overview.output.encoder-decoder": {"en": "Translation (greedy)", "zh": "译文（贪心解码）"},
    "overview.output.decoder": {"en": "Continuation (greedy)", "zh": "续写（贪心解码）"},
    "overview.output.encoder": {"en": "Output", "zh": "输出"},
    "overview.mlm": {"en": "What its masked-LM head guesses at each position",
                     "zh": "掩码语言模型头在每个位置的猜测"},
    "overview.mlm.help": {"en": "Type the mask token ({mask}) in place of a word to ask the model to fill it in; the "
                                "head's three likeliest tokens at every position, with their probabilities.",
                          "zh": "用掩码词元（{mask}）替换一个词，让模型来填空；下表是该头在每个位置最可能的三个词元及其概率。"},
    "overview.mlm.token": {"en": "token", "zh": "词元"},
    "overview.mlm.top": {"en": "likeliest tokens", "zh": "最可能的词元"},
    "overview.encoder_only": {"en": "An encoder produces one vector per token, not text.",
                              "zh": "编码器为每个词元输出一个向量，而不生成文本。"},
    "overview.embedding": {
        "en": "Its sentence embedding, as sentence-transformers makes it: the last layer's {d} numbers averaged "
              "over the tokens, then scaled to length 1. Sentences with similar meaning get nearby vectors.",
        "zh": "它的句向量（sentence-transformers 的做法）：最后一层的 {d} 维向量在所有词元上取平均，再缩放到长度 1。"
              "意思相近的句子得到相近的向量。"},
    "overview.embedding.title": {"en": "Sentence embedding", "zh": "句向量"},
    "overview.embedding.dim": {"en": "dimension", "zh": "维度"},
    "overview.diagram": {"en": "The model, with your sentence's shapes", "zh": "模型结构与当前句子的形状"},
    "overview.params": {"en": "Parameters", "zh": "参数量"},
    "overview.part": {"en": "Part", "zh": "部分"},
    "overview.count": {"en": "Parameters", "zh": "参数个数"},
    "overview.total": {"en": "total", "zh": "合计"},
    "overview.tokens": {"en": "tokens", "zh": "词元"},
    "diagram.src_tokens": {"en": "source tokens", "zh": "源词元"},
    "diagram.tgt_tokens": {"en": "decoder input tokens", "zh": "解码器输入词元"},
    "diagram.embed": {"en": "token embedding", "zh": "词元嵌入"},
    "diagram.embed.scaled": {"en": "token embedding × √{d}", "zh": "词元嵌入 × √{d}"},
    "diagram.embed.pos": {"en": "token embedding + position vector", "zh": "词元嵌入 + 位置向量"},
    "diagram.embed.scaled.pos": {"en": "token embedding × √{d} + position vector", "zh": "词元嵌入 × √{d} + 位置向量"},
    "diagram.embed.type": {"en": "+ token-type vector", "zh": "+ 词元类型向量"},
    "diagram.embed.norm": {"en": "then LayerNorm", "zh": "再做 LayerNorm"},
    "diagram.pos.alibi": {"en": "+ ALiBi distance bias on the scores", "zh": "+ 分数上的 ALiBi 距离偏置"},
    "diagram.pos.relative": {"en": "+ learned relative position bias on the scores (T5)",
                             "zh": "+ 分数上学到的相对位置偏置（T5）"},
    "diagram.pos.rope": {"en": "Q, K rotated by position (RoPE)", "zh": "Q、K 按位置旋转（RoPE）"},
    "diagram.block.parallel": {"en": "∥ side by side: attention and FFN both read the layer's input, each through "
                                     "its own norm; x + attn + FFN",
                               "zh": "∥ 并行：注意力与前馈网络都读取本层的输入（各自经过自己的归一化）；x + 注意力 + 前馈"},
    "diagram.block.parallel_shared": {"en": "∥ side by side: attention and FFN both read the layer's input through "
                                            "one shared norm; x + attn + FFN",
                                      "zh": "∥ 并行：注意力与前馈网络通过同一个归一化读取本层的输入；x + 注意力 + 前馈"},
    "diagram.encoder": {"en": "encoder layer × {n}", "zh": "编码器层 × {n}"},
    "diagram.decoder": {"en": "decoder layer × {n}", "zh": "解码器层 × {n}"},
    "diagram.self_attn": {"en": "self-attention, {h} heads", "zh": "自注意力，{h} 个头"},
    "diagram.masked_self_attn": {"en": "masked self-attention, {h} heads", "zh": "带掩码的自注意力，{h} 个头"},
    "diagram.cross_attn": {"en": "cross-attention, {h} heads", "zh": "交叉注意力，{h} 个头"},
    "diagram.ffn": {"en": "feed-forward {d} → {ff} → {d}", "zh": "前馈网络 {d} → {ff} → {d}"},
    "diagram.output": {"en": "linear + softmax over {v} tokens", "zh": "线性层 + softmax（{v} 个词元）"},
    "part.src_embed": {"en": "source embedding", "zh": "源嵌入"},
    "part.tgt_embed": {"en": "target embedding", "zh": "目标嵌入"},
    "part.encoder": {"en": "encoder", "zh": "编码器"},
    "part.decoder": {"en": "decoder", "zh": "解码器"},
    "part.generator": {"en": "output layer", "zh": "输出层"},
    "part.mlm": {"en": "masked-LM transform", "zh": "掩码语言模型变换"},
}
