"""Strings of the Self-attention step by step page."""

STRINGS = {
    "self_attention.intro": {
        "en": "Follow one attention head through its whole computation. Each token's vector is multiplied by "
              "three weight matrices to give a query, a key and a value. Every query is compared with every "
              "key (a dot product), the scores are divided by √d_k, blocked positions are set to −∞, and a "
              "softmax turns each row into weights that add up to 1. The head's output is the weighted sum of "
              "the values; the outputs of all heads are placed side by side and mixed by W_O. The outlined "
              "row is the query token you pick; hover over any cell for its exact value.",
        "zh": "跟随一个注意力头走完它的全部计算。每个词元的向量分别乘以三个权重矩阵，得到查询（Q）、键（K）和值（V）。"
              "每个查询与每个键做点积，得分除以 √d_k，被屏蔽的位置设为 −∞，再用 softmax 把每一行变成和为 1 的权重。"
              "这个头的输出是各个值按权重的加权和；所有头的输出并排拼接后，再由 W_O 混合。"
              "带框的行是你选中的查询词元；把鼠标停在任一格上即可看到精确数值。"},
    "self_attention.kind": {"en": "Attention block", "zh": "注意力模块"},
    "self_attention.kind.encoder.self_attn": {"en": "Encoder self-attention", "zh": "编码器自注意力"},
    "self_attention.kind.decoder.self_attn": {"en": "Decoder self-attention (masked)", "zh": "解码器自注意力（带掩码）"},
    "self_attention.kind.decoder.cross_attn": {"en": "Cross-attention (decoder reads encoder)",
                                               "zh": "交叉注意力（解码器读取编码器）"},
    "self_attention.kind_missing": {"en": "This model has no {block}; showing {shown}.",
                                    "zh": "该模型没有{block}，改为显示{shown}。"},
    "self_attention.query": {"en": "Query token", "zh": "查询词元"},
    "self_attention.unscaled": {"en": "Drop the ÷√d_k scaling", "zh": "去掉 ÷√d_k 缩放"},
    "self_attention.unscaled.help": {
        "en": "Runs the model again without dividing the scores by √d_k, in every layer. Larger scores make "
              "the softmax put almost all weight on one key.",
        "zh": "在所有层中不再把得分除以 √d_k，重新运行模型。得分变大后，softmax 几乎会把全部权重压到一个键上。"},
    "self_attention.layer_clipped": {
        "en": "This block has only {n} layers; showing its last layer, {layer}.",
        "zh": "该模块只有 {n} 层，这里显示它的最后一层（第 {layer} 层）。"},
    "self_attention.window": {
        "en": "A long text: the stages show queries {q0}–{q1} of {n_q} (around the chosen one) and keys {k0}–{k1} of "
              "{n_k}. The chosen query puts {outside:.3f} of its weight on keys not shown; pick another query to move "
              "the window.",
        "zh": "文本较长：各步骤只显示第 {q0}–{q1} 个查询（共 {n_q} 个，围绕所选查询）和第 {k0}–{k1} 个键（共 {n_k} 个）。"
              "所选查询有 {outside:.3f} 的权重落在未显示的键上；选择其他查询即可移动窗口。"},
    "self_attention.where": {"en": "Layer {layer}, head {head}, {block}.", "zh": "第 {layer} 层，第 {head} 个头，{block}。"},
    "self_attention.x_note.post": {
        "en": "X is what enters the block: the embeddings in layer 0, otherwise the previous layer's output.",
        "zh": "X 是进入该模块的输入：第 0 层是嵌入向量，其他层是上一层的输出。"},
    "self_attention.x_note.pre": {
        "en": "This model normalizes before each block (pre-norm), so X is the layer's normalized input.",
        "zh": "该模型在每个模块之前做归一化（前置归一化），所以 X 是本层输入归一化之后的结果。"},
    "self_attention.x_note.cross": {
        "en": "Queries come from the decoder (X); keys and values come from the encoder's output (M).",
        "zh": "查询来自解码器（X），键和值来自编码器的输出（M）。"},
    "self_attention.rope_note": {
        "en": "This model uses RoPE: Q and K are rotated by their position after the projection.",
        "zh": "该模型使用 RoPE：Q 和 K 在投影之后还要按位置旋转。"},
    "self_attention.rope_partial_note": {
        "en": "Only the first dimensions of each head are rotated (partial rotary); the rest of Q and K carry no "
              "position.",
        "zh": "每个头只有前面的若干维度被旋转（部分旋转）；Q 和 K 的其余维度不带位置信息。"},
    "self_attention.alibi_note": {
        "en": "This model uses ALiBi: a distance penalty B is added to the scaled scores.",
        "zh": "该模型使用 ALiBi：缩放后的得分还要加上一个随距离增大的惩罚项 B。"},
    "self_attention.relative_note": {
        "en": "This model (T5) uses a relative position bias: a learned number B per head, chosen by the key's "
              "offset from the query, is added to the scores, which are not divided by √d_k.",
        "zh": "该模型（T5）使用相对位置偏置：得分上要加一个每个头学到的数 B，它由键相对查询的偏移决定；"
              "得分也不除以 √d_k。"},
    "self_attention.section.input": {"en": "1. The input", "zh": "1. 输入"},
    "self_attention.section.weights": {"en": "2. This head's weights", "zh": "2. 这个头的权重"},
    "self_attention.section.qkv": {"en": "3. Queries, keys, values", "zh": "3. 查询、键、值"},
    "self_attention.neuron": {"en": "Inside q·k: the query's vector against each key's",
                              "zh": "q·k 的内部：查询向量与每个键向量逐维相乘"},
    "self_attention.neuron.caption": {
        "en": "Each row multiplies {token}'s q by one key's k, dimension by dimension (q ⊙ k); the row's sum is that "
              "key's raw score in QKᵀ above. A few large products of one sign decide a score: here {top} gets the "
              "highest.",
        "zh": "每一行把 {token} 的 q 与一个键的 k 逐维相乘（q ⊙ k），这一行的和就是上面 QKᵀ 中该键的原始得分。"
              "少数几个同号的大乘积决定了得分：这里 {top} 的得分最高。"},
    "self_attention.neuron.title": {"en": "q ⊙ k for the query {token}", "zh": "查询 {token} 的 q ⊙ k"},
    "self_attention.section.scores": {"en": "4. Scores and scaling", "zh": "4. 得分与缩放"},
    "self_attention.section.mask": {"en": "5. The mask", "zh": "5. 掩码"},
    "self_attention.section.softmax": {"en": "6. Softmax", "zh": "6. Softmax"},
    "self_attention.section.heads": {"en": "7. Weighted sum, then all heads side by side",
                                     "zh": "7. 加权求和，再把所有头并排拼接"},
    "self_attention.section.output": {"en": "8. Output projection", "zh": "8. 输出投影"},
    "self_attention.step.x": {"en": "X: the block's input", "zh": "X：模块的输入"},
    "self_attention.step.memory": {"en": "M: the encoder's output", "zh": "M：编码器的输出"},
    "self_attention.step.w_q": {"en": "W_Q of this head", "zh": "本头的 W_Q"},
    "self_attention.step.w_k": {"en": "W_K of this head", "zh": "本头的 W_K"},
    "self_attention.step.w_v": {"en": "W_V of this head", "zh": "本头的 W_V"},
    "self_attention.step.q": {"en": "Q: queries", "zh": "Q：查询"},
    "self_attention.step.k": {"en": "K: keys", "zh": "K：键"},
    "self_attention.step.v": {"en": "V: values", "zh": "V：值"},
    "self_attention.shared": {"en": "K/V head {kv}, shared by heads {first}–{last}",
                              "zh": "K/V 头 {kv}，由头 {first}–{last} 共享"},
    "self_attention.step.scores": {"en": "QKᵀ: raw scores", "zh": "QKᵀ：原始得分"},
    "self_attention.step.scaled": {"en": "Scores ÷ √d_k", "zh": "得分 ÷ √d_k"},
    "self_attention.step.mask": {"en": "Mask (1 = may attend)", "zh": "掩码（1 = 可以关注）"},
    "self_attention.step.masked": {"en": "Masked scores (blocked cells empty)", "zh": "掩码后的得分（被屏蔽的格为空）"},
    "self_attention.step.pattern": {"en": "Softmax: attention weights", "zh": "Softmax：注意力权重"},
    "self_attention.step.z": {"en": "×V: this head's output", "zh": "×V：本头的输出"},
    "self_attention.step.concat": {"en": "All heads concatenated (this head dotted)", "zh": "所有头拼接（虚线框为本头）"},
    "self_attention.step.w_o": {"en": "W_O", "zh": "W_O"},
    "self_attention.step.out": {"en": "Output of the block", "zh": "模块的输出"},
    "self_attention.axis.query": {"en": "query token", "zh": "查询词元"},
    "self_attention.axis.key": {"en": "key token", "zh": "键词元"},
    "self_attention.axis.dim": {"en": "head dimension", "zh": "头内维度"},
    "self_attention.axis.feature": {"en": "model dimension", "zh": "模型维度"},
    "self_attention.row.title": {"en": "The row of {token}, stage by stage", "zh": "{token} 这一行的逐步变化"},
    "self_attention.row.scores": {"en": "QKᵀ", "zh": "QKᵀ"},
    "self_attention.row.scaled": {"en": "÷ √d_k, then the mask", "zh": "÷ √d_k，再加掩码"},
    "self_attention.row.scaled_off": {"en": "not divided, then the mask", "zh": "不除以 √d_k，再加掩码"},
    "self_attention.row.weights": {"en": "softmax", "zh": "softmax"},
    "self_attention.saturation": {"en": "Does the softmax saturate?", "zh": "softmax 是否饱和？"},
    "self_attention.saturation.explain": {
        "en": "Q·K adds up d_k products, so its spread grows with √d_k. Without the division the scores are "
              "√{d} ≈ {root:.1f} times larger, and the softmax of large numbers puts nearly all weight on the "
              "largest one: the entropy drops and the largest weight approaches 1. Layers after the first "
              "also read different inputs here, because every layer ran without the scaling.",
        "zh": "Q·K 是 d_k 个乘积之和，它的幅度随 √d_k 增长。不做除法时，得分大约放大 √{d} ≈ {root:.1f} 倍，"
              "而对很大的数做 softmax 会把几乎全部权重给最大的那个：熵下降，最大权重接近 1。"
              "第一层之后的各层在这里读到的输入也不同，因为每一层都没有做缩放。"},
    "self_attention.saturation.title": {"en": "Weights of {token}: with and without ÷√d_k",
                                        "zh": "{token} 的权重：有无 ÷√d_k 对比"},
    "self_attention.with": {"en": "with ÷√d_k", "zh": "除以 √d_k"},
    "self_attention.without": {"en": "without ÷√d_k", "zh": "不除以 √d_k"},
    "self_attention.entropy": {"en": "Entropy in bits, {which}", "zh": "熵（比特），{which}"},
    "self_attention.max_weight": {"en": "Largest weight, {which}", "zh": "最大权重，{which}"},
    "self_attention.weight": {"en": "weight", "zh": "权重"},
}
