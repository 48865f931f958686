"""Strings of the FFN, residual & normalization page."""

STRINGS = {
    "ffn_norm.intro": {
        "en": "Between the attention blocks, every token goes through the same small two-layer network (the "
              "feed-forward network, FFN) on its own. Each sublayer adds its result to what came in (the residual "
              "connection), so the vector of a token is a running sum, the residual stream. A normalization "
              "rescales each token's vector so its size stays under control from layer to layer.",
        "zh": "在注意力模块之间，每个词元各自经过同一个两层小网络（前馈网络，FFN）。每个子层都把自己的结果加到输入上"
              "（残差连接），所以词元的向量是一路累加的和，称为残差流。归一化会重新缩放每个词元的向量，"
              "使它的大小在层与层之间保持稳定。"},
    "ffn_norm.formula.ffn": {"en": "The FFN, with d_ff hidden units per token:",
                             "zh": "前馈网络（每个词元有 d_ff 个隐藏单元）："},
    "ffn_norm.formula.post": {"en": "This model is post-norm (as in the original paper): the norm comes after the sum.",
                              "zh": "本模型采用后归一化（与原论文相同）：先求和，再归一化。"},
    "ffn_norm.formula.pre": {"en": "This model is pre-norm (as in GPT-2): the sublayer reads a normalized copy, "
                                   "and the stream itself is only normalized once, at the end of the stack.",
                             "zh": "本模型采用前归一化（与 GPT-2 相同）：子层读取归一化后的副本，"
                                   "残差流本身只在整个堆栈末尾归一化一次。"},
    "ffn_norm.block.parallel": {
        "en": "This model's layers are parallel, not sequential as in the paper: self-attention and the FFN both "
              "read the layer's input, each through its own norm (norm1, norm2), and both outputs are added to it at "
              "once. resid_mid (input + attention) is a partial sum here; the FFN never reads it.",
        "zh": "本模型的层是并行的，而不是论文中的顺序结构：自注意力和前馈网络都读取本层的输入（各自经过 norm1、norm2），"
              "两者的输出一次性加到输入上。这里的 resid_mid（输入 + 注意力）只是部分和，前馈网络并不读取它。"},
    "ffn_norm.block.parallel_shared": {
        "en": "This model's layers are parallel, not sequential as in the paper: one norm (norm1) feeds both "
              "self-attention and the FFN, and both outputs are added to the layer's input at once. resid_mid "
              "(input + attention) is a partial sum here; the FFN never reads it.",
        "zh": "本模型的层是并行的，而不是论文中的顺序结构：同一个归一化（norm1）同时供给自注意力和前馈网络，"
              "两者的输出一次性加到本层的输入上。这里的 resid_mid（输入 + 注意力）只是部分和，前馈网络并不读取它。"},
    "ffn_norm.formula.layernorm": {"en": "It uses LayerNorm: each token's vector is centred and divided by its "
                                         "standard deviation, then scaled by a learned γ and shifted by β.",
                                   "zh": "它使用 LayerNorm：把每个词元的向量减去均值、除以标准差，再乘以可学习的 γ 并加上 β。"},
    "ffn_norm.formula.rmsnorm": {"en": "It uses RMSNorm: each token's vector is divided by its root mean square "
                                       "(no centring, no β), then scaled by a learned γ.",
                                 "zh": "它使用 RMSNorm：把每个词元的向量除以它的均方根（不减均值，也没有 β），再乘以可学习的 γ。"},
    "ffn_norm.stack": {"en": "Stack", "zh": "堆栈"},
    "ffn_norm.stack.encoder": {"en": "encoder", "zh": "编码器"},
    "ffn_norm.stack.decoder": {"en": "decoder", "zh": "解码器"},
    "ffn_norm.layer_note": {"en": "This stack has {n} layers; showing layer {layer}.",
                            "zh": "该堆栈只有 {n} 层，这里显示第 {layer} 层。"},
    "ffn_norm.stream": {"en": "The residual stream through the layers", "zh": "残差流在各层中的变化"},
    "ffn_norm.stream.about.post": {
        "en": "The length (L2 norm) of each token's vector after every step. The sums (resid_…) grow, and each norm "
            "brings the vector back to about the same size, so every layer starts from a similar scale.",
        "zh": "每一步之后每个词元向量的长度（L2 范数）。求和（resid_…）会让它变长，每次归一化又把它拉回到差不多的大小，"
              "因此每一层都从相近的尺度开始。"},
    "ffn_norm.stream.about.pre": {
        "en": "The length (L2 norm) of each token's vector after every step. In a pre-norm stack the sums keep "
              "growing from layer to layer; only the final norm brings them back.",
        "zh": "每一步之后每个词元向量的长度（L2 范数）。在前归一化的堆栈中，这些和逐层增长，只有最后的归一化把它们拉回来。"},
    "ffn_norm.stream.chart": {"en": "‖x‖ of each token, step by step", "zh": "每个词元的 ‖x‖，逐步变化"},
    "ffn_norm.stream.axis": {"en": "step", "zh": "步骤"},
    "ffn_norm.norm_axis": {"en": "L2 norm", "zh": "L2 范数"},
    "ffn_norm.stage.embed": {"en": "embedding", "zh": "嵌入"},
    "ffn_norm.stage.final_norm": {"en": "final norm", "zh": "最终归一化"},
    "ffn_norm.stage": {"en": "L{layer} {leaf}", "zh": "第{layer}层 {leaf}"},
    "ffn_norm.ffn": {"en": "FFN hidden units, layer {layer}", "zh": "第 {layer} 层前馈网络的隐藏单元"},
    "ffn_norm.ffn.about.relu": {
        "en": "Each row is a token, each column one of the {d_ff} hidden units after the ReLU. A ReLU sets every "
              "negative value to exactly 0, so many units are silent for a given token: the bars count them.",
        "zh": "每行是一个词元，每列是 ReLU 之后 {d_ff} 个隐藏单元中的一个。ReLU 把所有负值都变成 0，"
              "所以对某个词元来说很多单元是沉默的：右侧柱状图统计了它们的比例。"},
    "ffn_norm.ffn.about.silu": {
        "en": "Each row is a token, each column one of the {d_ff} hidden units after the SiLU, x·σ(x) (Marian's "
              "swish). Like GELU it lets small negative values through, so the bars count the units that came out "
              "negative.",
        "zh": "每行是一个词元，每列是 SiLU（x·σ(x)，即 Marian 所用的 swish）之后 {d_ff} 个隐藏单元中的一个。它和 GELU "
              "一样会让较小的负值通过，所以柱状图统计输出为负的单元所占的比例。"},
    "ffn_norm.ffn.about.gelu_tanh": {
        "en": "Each row is a token, each column one of the {d_ff} hidden units after the GELU (in its tanh "
              "approximation, as GPT-2 computes it). It lets small negative values through, so the bars count the "
              "units that came out negative.",
        "zh": "每行是一个词元，每列是 GELU（GPT-2 所用的 tanh 近似）之后 {d_ff} 个隐藏单元中的一个。它会让较小的负值"
              "通过，所以柱状图统计输出为负的单元所占的比例。"},
    "ffn_norm.ffn.about.gelu": {
        "en": "Each row is a token, each column one of the {d_ff} hidden units after the GELU. A GELU lets small "
              "negative values through, so the bars count the units that came out negative.",
        "zh": "每行是一个词元，每列是 GELU 之后 {d_ff} 个隐藏单元中的一个。GELU 会让较小的负值通过，"
              "所以右侧柱状图统计输出为负的单元所占的比例。"},
    "ffn_norm.ffn.chart": {"en": "Hidden activations (ffn.hidden)", "zh": "隐藏层激活（ffn.hidden）"},
    "ffn_norm.unit": {"en": "hidden unit", "zh": "隐藏单元"},
    "ffn_norm.token": {"en": "Token", "zh": "词元"},
    "ffn_norm.inactive.relu": {"en": "Share of units at exactly 0", "zh": "恰好为 0 的单元比例"},
    "ffn_norm.inactive.gelu": {"en": "Share of negative units", "zh": "为负的单元比例"},
    "ffn_norm.inactive.gelu_tanh": {"en": "Share of negative units", "zh": "为负的单元比例"},
    "ffn_norm.inactive.silu": {"en": "Share of negative units", "zh": "为负的单元比例"},
    "ffn_norm.share": {"en": "share", "zh": "比例"},
    "ffn_norm.hist": {"en": "Before and after normalization, layer {layer}", "zh": "第 {layer} 层归一化之前与之后"},
    "ffn_norm.hist.about.post": {
        "en": "norm1 normalizes resid_mid, the sum of the layer's input and its self-attention output. The "
              "histograms show the {d} numbers of one token's vector before and after.",
        "zh": "norm1 对 resid_mid（本层输入与自注意力输出之和）做归一化。直方图显示某个词元向量的 {d} 个数值在归一化前后的分布。"},
    "ffn_norm.hist.about.pre": {
        "en": "norm1 normalizes the layer's input before self-attention reads it. The histograms show the {d} "
              "numbers of one token's vector before and after.",
        "zh": "norm1 在自注意力读取之前对本层的输入做归一化。直方图显示某个词元向量的 {d} 个数值在归一化前后的分布。"},
    "ffn_norm.hist.chart": {"en": "Values of {token}", "zh": "{token} 的数值"},
    "ffn_norm.value": {"en": "value", "zh": "数值"},
    "ffn_norm.count": {"en": "count", "zh": "个数"},
    "ffn_norm.stats.layernorm": {
        "en": "Before ({before}): mean {b_mean:.3f}, std {b_std:.3f}. After (norm1): mean {a_mean:.3f}, std "
              "{a_std:.3f}. The standardized part (x − mean) / std, before γ and β, has mean {z_mean:.3f} and std "
              "{z_std:.3f}; the learned γ and β then move it away from 0 and 1.",
        "zh": "之前（{before}）：均值 {b_mean:.3f}，标准差 {b_std:.3f}。之后（norm1）：均值 {a_mean:.3f}，标准差 {a_std:.3f}。"
              "乘以 γ、加上 β 之前的标准化部分 (x − 均值) / 标准差 的均值为 {z_mean:.3f}，标准差为 {z_std:.3f}；"
              "可学习的 γ 和 β 随后让它偏离 0 和 1。"},
    "ffn_norm.stats.rmsnorm": {
        "en": "Before ({before}): rms {b_rms:.3f}. After (norm1): rms {a_rms:.3f}. x / rms(x), before γ, has rms "
              "{z_rms:.3f}; the learned γ then rescales each dimension.",
        "zh": "之前（{before}）：均方根 {b_rms:.3f}。之后（norm1）：均方根 {a_rms:.3f}。乘以 γ 之前的 x / rms(x) "
              "的均方根为 {z_rms:.3f}；可学习的 γ 随后逐维缩放。"},
    "ffn_norm.before": {"en": "before: {name}", "zh": "之前：{name}"},
    "ffn_norm.after": {"en": "after: norm1", "zh": "之后：norm1"},
    "ffn_norm.lens": {"en": "The prediction after each decoder layer (logit lens)", "zh": "每个解码器层之后的预测（logit 透镜）"},
    "ffn_norm.lens.about": {
        "en": "Each decoder layer's output is sent straight to the output layer{final}, as if it were the last layer. "
              "Colour: the probability each layer already gives to the token the whole model finally predicts at "
              "that position; text: that layer's own top token.",
        "zh": "把每个解码器层的输出直接送入输出层{final}，就好像它是最后一层。颜色表示每一层对整个模型在该位置"
              "最终预测的词元已经给出的概率；文字是该层自己概率最高的词元。"},
    "ffn_norm.lens.final": {"en": " (through the final norm first)", "zh": "（先经过最终归一化）"},
    "ffn_norm.lens.chart": {"en": "Probability of the final prediction, layer by layer",
                            "zh": "最终预测在各层的概率"},
    "ffn_norm.lens.layer": {"en": "after layer {layer}", "zh": "第 {layer} 层之后"},
    "ffn_norm.lens.position": {"en": "decoder input position", "zh": "解码器输入位置"},
    "ffn_norm.lens.table": {"en": "Top {k} tokens after each layer, with probabilities", "zh": "各层概率最高的 {k} 个词元及其概率"},
    "ffn_norm.lens.encoder": {"en": "The logit lens reads a prediction out of the decoder; an encoder-only model "
                                    "has no output layer, so it does not apply here.",
                              "zh": "logit 透镜从解码器中读出预测；仅编码器模型没有输出层，所以这里不适用。"},
}
