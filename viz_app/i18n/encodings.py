"""Strings of the positional page's comparison of the four encodings (place/encodings.py)."""

STRINGS = {
    "encodings.header": {"en": "Four encodings, one sentence", "zh": "四种位置编码，同一个句子"},
    "encodings.toggle": {"en": "Compare the four positional encodings on this sentence",
                         "zh": "在这个句子上比较四种位置编码"},
    "encodings.toggle.help": {
        "en": "Loads four shipped models (translate-en-fr, all-MiniLM-L6-v2, lm-en-rope and lm-en), which takes a "
              "few seconds the first time; off by default so the page opens quickly.",
        "zh": "需要加载四个随附的模型（translate-en-fr、all-MiniLM-L6-v2、lm-en-rope 和 lm-en），"
              "第一次需要几秒钟；默认关闭，以便页面快速打开。"},
    "encodings.wait": {
        "en": "These charts show which positions are alike, so they wait until the lab's question above is "
              "answered. Answer it, then press the button.",
        "zh": "这些图会显示哪些位置彼此相似，所以要等上面实验室里的问题回答之后才显示。请先作答，再按下按钮。"},
    "encodings.show": {"en": "Show the four encodings", "zh": "显示四种位置编码"},
    "encodings.spinner": {"en": "Running the four models on your sentence…", "zh": "正在用四个模型处理你的句子…"},
    "encodings.intro": {
        "en": "Each column is a shipped model that uses one of the four encodings. Each model splits the sentence "
              "with its own tokenizer and reads at most its first {n} tokens, so the columns can differ in tokens "
              "and length. Top: the position signal itself. Middle: the attention one head of layer 0 would give "
              "from position alone. Bottom: the same head's real attention on the sentence, for comparison.",
        "zh": "每一列是一个使用其中一种位置编码的随附模型。每个模型用自己的分词器切分句子，最多只读前 {n} 个词元，"
              "因此各列的词元和长度可能不同。上：位置信号本身。中：第 0 层的某个头仅凭位置会给出的注意力。"
              "下：同一个头在这个句子上真实的注意力，便于对照。"},
    "encodings.missing": {"en": "{model} is not installed here, so this column stays empty.",
                          "zh": "这里没有安装 {model}，所以这一列为空。"},
    "encodings.unreadable": {"en": "{model} finds nothing to read in this sentence.",
                             "zh": "{model} 在这个句子里找不到可读的内容。"},
    "encodings.column": {"en": "{kind} · {model}", "zh": "{kind} · {model}"},
    "encodings.kind.sinusoidal": {"en": "Sinusoidal", "zh": "正弦编码"},
    "encodings.kind.learned": {"en": "Learned", "zh": "可学习编码"},
    "encodings.kind.rope": {"en": "RoPE", "zh": "RoPE"},
    "encodings.kind.alibi": {"en": "ALiBi", "zh": "ALiBi"},
    "encodings.what.sinusoidal": {
        "en": "Adds a fixed vector of sines and cosines to every token, one wavelength per pair of dimensions. "
              "Caveat: it is defined at every position, but a model trained on short sentences has never seen "
              "the long ones.",
        "zh": "给每个词元加上一个固定的正弦、余弦向量，每对维度一个波长。"
              "注意：任何位置都有定义，但只在短句上训练过的模型从未见过更靠后的位置。"},
    "encodings.what.learned": {
        "en": "Adds a vector learned in training to every token, one row per position. Caveat: the table has "
              "{max_len} rows, so it cannot go past position {last}: a learned table cannot extrapolate.",
        "zh": "给每个词元加上一个训练中学到的向量，每个位置一行。"
              "注意：这张表只有 {max_len} 行，无法超过第 {last} 个位置：学到的表不能外推。"},
    "encodings.what.rope": {
        "en": "Adds nothing to the tokens: inside attention it turns each pair of a query's and a key's dimensions "
              "by an angle that grows with the position. Caveat: it is relative, so q·k sees only the offset "
              "between two positions, and the slow pairs barely turn within a short sentence.",
        "zh": "不给词元加任何东西：在注意力内部，把查询和键的每对维度按随位置增大的角度旋转。"
              "注意：它是相对的，q·k 只看到两个位置之差；转得慢的维度对在短句内几乎不转动。"},
    "encodings.what.alibi": {
        "en": "Adds nothing to the tokens: each head adds −slope × distance to its scores, so far tokens get less "
              "attention. Caveat: it is relative and runs past the trained length, but pulls every head towards "
              "nearby tokens.",
        "zh": "不给词元加任何东西：每个头在分数上加上 −斜率 × 距离，越远的词元得到的注意力越少。"
              "注意：它是相对的，能用于超出训练长度的位置，但会把每个头都拉向附近的词元。"},
    "encodings.head.label": {"en": "Head of layer 0", "zh": "第 0 层的头"},
    "encodings.head": {"en": "head {h}", "zh": "第 {h} 个头"},
    "encodings.signal.added": {"en": "Vectors added: tokens × dimensions", "zh": "加上的向量：词元 × 维度"},
    "encodings.signal.range": {
        "en": "Colours span ±{bound:.3g}, the {p}th percentile of the values' size, so that a few large ones do not "
              "leave the rest white; the largest, {peak:.3g}, takes the colour at the end. Hover a cell for its value.",
        "zh": "颜色范围为 ±{bound:.3g}，即数值绝对值的第 {p} 百分位数，以免少数很大的值让其余格子几乎全白；"
              "最大的绝对值 {peak:.3g} 显示为色标两端的颜色。鼠标悬停可查看每个格子的数值。"},
    "encodings.signal.rope": {"en": "Rotation angles (mod 2π)", "zh": "旋转角（模 2π）"},
    "encodings.signal.alibi": {"en": "Bias of head {h}: −{slope:.4g} × distance",
                               "zh": "第 {h} 个头的偏置：−{slope:.4g} × 距离"},
    "encodings.alone": {"en": "Head {h} from position alone", "zh": "第 {h} 个头：仅凭位置"},
    "encodings.real": {"en": "Head {h} on the sentence", "zh": "第 {h} 个头：在句子上"},
    "encodings.axis.query": {"en": "query", "zh": "查询"},
    "encodings.axis.key": {"en": "key", "zh": "键"},
    "encodings.alone.sinusoidal": {
        "en": "Position alone: softmax((P W_Q + b_Q)(P W_K + b_K)ᵀ/√d_k) with layer 0's own weights and biases, P "
              "being the position vectors with every token vector set to zero. This model normalizes after each "
              "sublayer (post-norm), so no norm comes before W_Q and W_K.",
        "zh": "仅凭位置：softmax((P W_Q + b_Q)(P W_K + b_K)ᵀ/√d_k)，使用第 0 层自己的权重和偏置；"
              "P 是把所有词元向量设为零后剩下的位置向量。该模型在每个子层之后才归一化（后置归一化），"
              "所以 W_Q、W_K 之前没有归一化。"},
    "encodings.alone.learned": {
        "en": "Position alone: P = LayerNorm(position row + token type 0's vector), with every token vector set to "
              "zero, through the embedding LayerNorm the model applies before layer 0; then softmax((P W_Q + b_Q)"
              "(P W_K + b_K)ᵀ/√d_k) with layer 0's own weights and biases.",
        "zh": "仅凭位置：把所有词元向量设为零，P = LayerNorm(位置行 + 类型 0 的向量)，即模型在第 0 层之前做的嵌入层归一化；"
              "然后用第 0 层自己的权重和偏置计算 softmax((P W_Q + b_Q)(P W_K + b_K)ᵀ/√d_k)。"},
    "encodings.alone.rope": {
        "en": "Position alone: one q and one k, this head's queries and keys on the sentence before rotation "
              "averaged over its tokens, are turned for every position and scored, softmax(·/√d_k) under the "
              "causal mask. Before the softmax each score depends only on the offset between the two positions.",
        "zh": "仅凭位置：取这个头在句子上旋转之前的查询和键，对各词元求平均，得到一个 q 和一个 k；"
              "再把它们按每个位置旋转后打分，在因果掩码下做 softmax(·/√d_k)。softmax 之前，每个分数只取决于两个位置之差。"},
    "encodings.alone.alibi": {
        "en": "Position alone: the softmax of the bias by itself under the causal mask, the scores q·k/√d_k left "
              "out; each row falls off with distance at this head's slope.",
        "zh": "仅凭位置：在因果掩码下只对偏置做 softmax，不含分数 q·k/√d_k；每一行按这个头的斜率随距离衰减。"},
}
