"""Strings of the Tokens & embeddings page."""

STRINGS = {
    "tokens.intro": {
        "en": "The model never sees letters. A tokenizer cuts the sentence into pieces from a fixed vocabulary "
              "and replaces each piece by its id; the embedding matrix E then gives every id a row of d_model "
              "numbers. Those rows are what the first layer reads, after being scaled and given their position.",
        "zh": "模型看不到字母。分词器先把句子切成固定词表中的片段，并把每个片段换成它的编号；"
              "嵌入矩阵 E 再为每个编号给出一行 d_model 个数。这些行经过缩放并加上位置信息后，才是第一层读到的输入。"},
    "tokens.formula": {"en": "The vector of the token at position i:", "zh": "位置 i 上词元的向量："},
    "tokens.side.src": {"en": "Source (encoder input)", "zh": "源句（编码器输入）"},
    "tokens.side.tgt": {"en": "Decoder input", "zh": "解码器输入"},
    "tokens.table": {"en": "Pieces and ids", "zh": "片段与编号"},
    "tokens.table.caption": {
        "en": "▁ marks a piece that starts a word; <E4>-style pieces are single bytes of a character the "
              "vocabulary lacks. The word index counts words in the text; special tokens such as <s> have none (—).",
        "zh": "▁ 表示该片段是一个词的开头；形如 <E4> 的片段是词表中没有的字符被拆出的单个字节。"
              "词序号是该片段所属的词在文本中的位置；<s> 等特殊词元没有词序号（—）。"},
    "tokens.col.position": {"en": "position", "zh": "位置"},
    "tokens.col.piece": {"en": "piece", "zh": "片段"},
    "tokens.col.id": {"en": "id", "zh": "编号"},
    "tokens.col.word": {"en": "word index", "zh": "词序号"},
    "tokens.heatmaps": {"en": "Embedding rows, before and after ×√d_model", "zh": "嵌入向量：乘以 √d_model 之前与之后"},
    "tokens.heatmaps.caption": {
        "en": "Each heatmap has its own colour range, so neither is left blank: ±{tok:.3g} on the left, ±{scaled:.3g} "
              "on the right (the bars below compare the sizes). Hover a cell for its value.",
        "zh": "两张热图各用自己的色标范围，以免其中一张几乎看不出颜色：左图 ±{tok:.3g}，右图 ±{scaled:.3g}"
              "（下方的柱状图比较两者的大小）。鼠标悬停可查看每个格子的数值。"},
    "tokens.heat.tok": {"en": "E[token] (looked up)", "zh": "E[词元]（查表所得）"},
    "tokens.heat.scaled": {"en": "E[token] × √d_model", "zh": "E[词元] × √d_model"},
    "tokens.axis.dim": {"en": "dimension", "zh": "维度"},
    "tokens.axis.token": {"en": "token", "zh": "词元"},
    "tokens.scale": {"en": "Why multiply by √d_model?", "zh": "为什么要乘以 √d_model？"},
    "tokens.scale.why": {
        "en": "Embedding rows are trained with small values, while every sinusoidal position row has length "
              "√(d_model/2). Multiplying by √d_model = √{d} = {factor:.2f} brings the token vectors to a "
              "comparable size, so adding the position does not drown out which token it is.",
        "zh": "嵌入行训练得到的数值较小，而每个正弦位置编码行的长度都是 √(d_model/2)。"
              "乘以 √d_model = √{d} = {factor:.2f} 让词元向量达到相近的大小，"
              "这样加上位置编码之后，仍能分辨出这是哪个词元。"},
    "tokens.scale.off": {
        "en": "This model does not scale its embeddings (scale_embedding is false in its config): the rows "
              "enter as they are, so the two heatmaps and the first two bars are equal.",
        "zh": "该模型不缩放嵌入（配置中 scale_embedding 为 false）：嵌入行原样进入下一步，"
              "所以两张热图相同，前两组柱子也相同。"},
    "tokens.norms": {"en": "Length (L2 norm) of each token's vector", "zh": "每个词元向量的长度（L2 范数）"},
    "tokens.norm.tok": {"en": "‖E[token]‖", "zh": "‖E[词元]‖"},
    "tokens.norm.scaled": {"en": "‖E[token] × √d_model‖", "zh": "‖E[词元] × √d_model‖"},
    "tokens.norm.pos": {"en": "‖position vector‖", "zh": "‖位置向量‖"},
    "tokens.norm.axis": {"en": "L2 norm", "zh": "L2 范数"},
    "tokens.norm.mean": {"en": "Mean length: {before:.3f} before, {after:.3f} after scaling (factor {factor:.2f}).",
                         "zh": "平均长度：缩放前 {before:.3f}，缩放后 {after:.3f}（倍数 {factor:.2f}）。"},
    "tokens.norm.mean_pos": {"en": " Mean length of the position vectors: {pos:.3f}.",
                             "zh": "位置向量的平均长度：{pos:.3f}。"},
    "tokens.projection": {"en": "The sentence's embeddings in 2-D, with their nearest vocabulary neighbours",
                          "zh": "句中词元嵌入的二维投影，以及词表中与之最近的词元"},
    "tokens.projection.why": {
        "en": "A d_model-wide vector cannot be drawn, so the rows are projected on the two directions in which "
              "this sentence's embeddings vary most (principal component analysis). Grey points are, for each "
              "token, the k vocabulary entries whose embeddings point in the most similar direction "
              "(highest cosine similarity over the whole embedding matrix).",
        "zh": "d_model 维的向量无法直接画出，因此把这些行投影到本句嵌入变化最大的两个方向上（主成分分析）。"
              "灰色点是每个词元在整个嵌入矩阵中方向最相近（余弦相似度最高）的 k 个词表条目。"},
    "tokens.k": {"en": "Neighbours per token (k)", "zh": "每个词元的近邻数（k）"},
    "tokens.proj.title": {"en": "PCA of the token embeddings ({share:.0%} of their variance shown)",
                          "zh": "词元嵌入的主成分投影（保留 {share:.0%} 的方差）"},
    "tokens.proj.x": {"en": "principal axis 1", "zh": "第 1 主成分"},
    "tokens.proj.y": {"en": "principal axis 2", "zh": "第 2 主成分"},
    "tokens.proj.tokens": {"en": "sentence tokens", "zh": "句中词元"},
    "tokens.proj.neighbours": {"en": "vocabulary neighbours", "zh": "词表近邻"},
    "tokens.proj.few": {
        "en": "The sentence has fewer than three different tokens, so the axes are fitted on its tokens and their neighbours together.",
        "zh": "句中不同的词元少于三个，因此主成分由这些词元与它们的近邻一起求得。"},
    "tokens.neighbour.hover": {"en": "{piece} (near {token}, cos {cos:.3f})", "zh": "{piece}（靠近 {token}，余弦 {cos:.3f}）"},
    "tokens.col.token": {"en": "token", "zh": "词元"},
    "tokens.col.neighbour": {"en": "neighbour {i} (cos)", "zh": "近邻 {i}（余弦）"},
}
