"""Strings of the Worked example page."""

STRINGS = {
    "worked_example.intro": {
        "en": "Attention small enough to check by hand: three tokens, each a vector of 4 numbers (d_model = 4), "
              "and one head with d_k = 4. Change any number in the grids below and every matrix after them is "
              "recomputed, with its values printed in the cells. The computation is the model's own attention "
              "function, so what you see here is exactly what happens inside each head of the real model.",
        "zh": "一个小到可以手算的注意力：三个词元，每个词元是 4 个数的向量（d_model = 4），只有一个头，d_k = 4。"
              "修改下面表格中的任意数字，后面的每个矩阵都会重新计算，并在格子里写出数值。"
              "这里调用的正是模型自己的注意力函数，所以你看到的就是真实模型每个头内部发生的事情。"},
    "worked_example.words": {"en": "I love cats", "zh": "我 爱 猫"},
    "worked_example.token": {"en": "token", "zh": "词元"},
    "worked_example.inputs": {"en": "Your numbers", "zh": "输入的数字"},
    "worked_example.x": {"en": "X: one row per token (the token's name is editable too)",
                         "zh": "X：每个词元一行（词元的名字也可以修改）"},
    "worked_example.weights": {"en": "The weight matrices (input dimension → head dimension)",
                               "zh": "权重矩阵（输入维度 → 头内维度）"},
    "worked_example.causal": {"en": "Causal mask (a token sees only itself and earlier tokens)",
                              "zh": "因果掩码（每个词元只能看到自己和之前的词元）"},
    "worked_example.limit": {"en": "Numbers from −{limit:g} to {limit:g}.", "zh": "数值范围 −{limit:g} 到 {limit:g}。"},
    "worked_example.missing": {"en": "{grid} has {n} empty or non-numeric cell(s); they are counted as 0.",
                               "zh": "{grid} 中有 {n} 个空白或非数字的格子，按 0 计算。"},
    "worked_example.clamped": {"en": "{grid} has {n} number(s) beyond ±{limit:g}; they were clipped to ±{limit:g}.",
                               "zh": "{grid} 中有 {n} 个数超出 ±{limit:g}，已截断为 ±{limit:g}。"},
    "worked_example.results": {"en": "Every step, with its numbers", "zh": "每一步及其数值"},
    "worked_example.step.q": {"en": "Q: queries", "zh": "Q：查询"},
    "worked_example.step.k": {"en": "K: keys", "zh": "K：键"},
    "worked_example.step.v": {"en": "V: values", "zh": "V：值"},
    "worked_example.step.scores": {"en": "QKᵀ: raw scores", "zh": "QKᵀ：原始得分"},
    "worked_example.step.scores_scaled": {"en": "Scaled scores", "zh": "缩放后的得分"},
    "worked_example.step.mask": {"en": "Mask (1 = may attend)", "zh": "掩码（1 = 可以关注）"},
    "worked_example.step.scores_masked": {"en": "Masked scores", "zh": "掩码后的得分"},
    "worked_example.step.pattern": {"en": "Softmax: each row sums to 1", "zh": "Softmax：每行之和为 1"},
    "worked_example.step.z": {"en": "Output: a weighted mix of V's rows", "zh": "输出：V 各行的加权混合"},
    "worked_example.axis.query": {"en": "query token", "zh": "查询词元"},
    "worked_example.axis.key": {"en": "key token", "zh": "键词元"},
    "worked_example.axis.token": {"en": "token", "zh": "词元"},
    "worked_example.axis.dim": {"en": "dimension", "zh": "维度"},
    "worked_example.read": {
        "en": "How to read it: row i of the softmax says how much token i takes from each token's value; "
              "the output row i is that mix of the rows of V.",
        "zh": "读法：softmax 的第 i 行表示词元 i 从每个词元的值向量中各取多少；输出的第 i 行就是 V 各行按这些比例的混合。"},
}
