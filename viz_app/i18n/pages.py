"""Page titles, as the navigation shows them."""

STRINGS = {
    "page.overview": {"en": "Overview", "zh": "总览"},
    "page.tokens": {"en": "Tokens & embeddings", "zh": "词元与嵌入"},
    "page.positional": {"en": "Positional encoding lab", "zh": "位置编码实验室"},
    "page.self_attention": {"en": "Self-attention step by step", "zh": "自注意力逐步计算"},
    "page.explorer": {"en": "Attention explorer", "zh": "注意力浏览器"},
    "page.masks": {"en": "Masks", "zh": "掩码"},
    "page.decoding": {"en": "Decoding", "zh": "解码"},
    "page.attribution": {"en": "Attribution", "zh": "归因"},
    "page.ffn_norm": {"en": "FFN, residual & normalization", "zh": "前馈网络、残差与归一化"},
    "page.worked_example": {"en": "Worked example", "zh": "手算示例"},
    "page.training": {"en": "Training", "zh": "训练"},
}
