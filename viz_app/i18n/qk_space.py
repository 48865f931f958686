"""Strings of the explorer's section on queries and keys of a corpus."""

STRINGS = {
    "qk.title": {"en": "Queries and keys of a corpus", "zh": "语料中的查询与键"},
    "qk.about": {"en": "What this chart shows", "zh": "这张图展示了什么"},
    "qk.intro": {
        "en": "The chosen head turns every token into a query (what the token looks for) and a key (what it offers "
              "to the queries of other tokens). Here both kinds of vector, for every token of many held-out "
              "sentences, share one picture: the two directions in which all of them vary most (PCA). Blue points "
              "are queries, red points keys; hover over a point to see its token and its sentence. If the two "
              "clouds sit apart, this head's queries and keys live in different parts of its space; tokens that "
              "gather in one spot have similar vectors along these two directions, so the head tends to treat them "
              "alike. Attention follows dot products, and two axes keep only part of the picture, so read this "
              "as a map of where the vectors lie, not of who attends to whom.",
        "zh": "所选的注意力头会把每个词元变成一个查询（这个词元在找什么）和一个键（它向其他词元的查询提供什么）。"
              "这里把许多留出句子中每个词元的这两种向量画在同一张图里：取它们全体变化最大的两个方向（主成分分析）。"
              "蓝点是查询，红点是键；把鼠标移到一个点上，可以看到它的词元和所在的句子。"
              "如果两团点彼此分开，说明这个头的查询和键位于其空间的不同区域；"
              "聚在一处的词元在这两个方向上的向量相近，这个头往往会同样对待它们。"
              "注意力取决于点积，而两个坐标轴只保留了部分信息，所以请把这张图当作向量分布的地图，"
              "而不是谁关注谁的答案。"},
    "qk.show": {"en": "Show the queries and keys of held-out sentences", "zh": "显示留出句子的查询与键"},
    "qk.show.help": {
        "en": "Runs the model over {n} held-out sentences, once for each attention block and layer you look at; the "
              "first time takes a few seconds (longer while the sentences are drawn). Off by default, so the page "
              "opens quickly; kept in the link.",
        "zh": "让模型读一遍 {n} 个留出句子，每个注意力模块的每一层只需运行一次；第一次需要几秒钟"
              "（抽取句子时会更久）。默认关闭，以便页面快速打开；此设置会保存在链接中。"},
    "qk.reading": {"en": "Drawing the held-out sentences…", "zh": "正在抽取留出句子…"},
    "qk.progress": {"en": "Ran the model on batch {done} of {total}", "zh": "已运行第 {done} / {total} 批句子"},
    "qk.chart": {"en": "Layer {layer}, head {head}: queries and keys on two principal axes",
                 "zh": "第 {layer} 层，头 {head}：查询与键在两个主成分轴上"},
    "qk.queries": {"en": "queries", "zh": "查询"},
    "qk.keys": {"en": "keys", "zh": "键"},
    "qk.x": {"en": "first principal axis", "zh": "第一主成分轴"},
    "qk.y": {"en": "second principal axis", "zh": "第二主成分轴"},
    "qk.caption": {
        "en": "{n_q} queries and {n_k} keys from {sentences} sentences. The first axis shows {x:.1%} of their "
              "variance, the second {y:.1%}; the rest lies along the other directions and is not drawn.",
        "zh": "共 {n_q} 个查询和 {n_k} 个键，来自 {sentences} 个句子。第一条轴展示了它们方差的 {x:.1%}，"
              "第二条轴展示了 {y:.1%}；其余的方差分布在没有画出的其他方向上。"},
    "qk.source.own": {
        "en": "The sentences are the first ones of the held-out test split of {task}, which the model never trained "
              "on (the split its evaluation uses).",
        "zh": "这些句子取自 {task} 留出测试集的开头部分，模型训练时从未见过（评估时用的正是这一部分）。"},
    "qk.source.borrowed": {
        "en": "This model comes without a corpus of its own, so it reads the English sentences held out from {task}.",
        "zh": "这个模型没有自带语料，所以这里读的是 {task} 留出的英文句子。"},
    "qk.cross": {
        "en": "In cross-attention the queries come from the target sentences (the decoder's input, `<s>` first) and "
              "the keys from the source sentences.",
        "zh": "在交叉注意力中，查询来自目标句子（解码器的输入，以 `<s>` 开头），键来自源句子。"},
    "qk.detected": {
        "en": "On random tokens repeated once, layer {layer}'s head {head} puts {previous:.2f} of its attention on the "
              "token before, {duplicate:.2f} on the same token's earlier place and {induction:.2f} on the token that "
              "followed it there (induction); near 1 names what the head does.",
        "zh": "在重复一次的随机词元上，第 {layer} 层的头 {head} 把 {previous:.2f} 的注意力放在前一个词元上，"
              "{duplicate:.2f} 放在同一词元上次出现的位置，{induction:.2f} 放在上次出现之后的那个词元上（归纳）；"
              "接近 1 即说明这个头在做什么。"},
    "qk.hidden": {
        "en": "[CLS] and [SEP] are hidden (sidebar): their {n} points are left out, and the axes are fitted to the "
              "other tokens' vectors alone.",
        "zh": "[CLS] 和 [SEP] 已隐藏（侧栏）：它们的 {n} 个点没有画出，两条轴只按其余词元的向量来拟合。"},
    "qk.col.kind": {"en": "query or key", "zh": "查询或键"},
    "qk.col.token": {"en": "token", "zh": "词元"},
    "qk.col.sentence": {"en": "sentence", "zh": "句子"},
}
