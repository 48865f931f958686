"""The attribution page."""

STRINGS = {
    "attribution.intro": {
        "en": "Which input tokens did one output depend on? Four methods answer in different ways. Attention rollout "
              "and attention flow (Abnar & Zuidema, 2020) follow the attention weights down through the layers. "
              "Gradient × input and integrated gradients (computed with Captum, PyTorch's attribution library) ask "
              "how the output's log-probability changes with each token's vector. They often disagree: that is the "
              "lesson, not a fault.",
        "zh": "某一个输出依赖哪些输入词元？四种方法给出不同的回答。注意力展开和注意力流（Abnar 与 Zuidema，2020）"
              "沿着各层的注意力权重一路往下追溯；梯度×输入和积分梯度则看输出的对数概率随每个词元向量如何变化"
              "（用 PyTorch 的归因库计算）。它们常常彼此不一致——这正是要学的一课，而不是出了错。"},
    "attribution.output": {"en": "Output to explain (position: token read → token predicted)",
                           "zh": "要解释的输出（位置：读入的词元 → 预测的词元）"},
    "attribution.cls": {"en": "This model has no decoder: what is explained is its final [CLS] vector, "
                              "measured as its length (the vector projected on its own direction).",
                        "zh": "这个模型没有解码器：这里解释的是最后一层的 [CLS] 向量，用它的长度来度量"
                              "（即向量在自身方向上的投影）。"},
    "attribution.too_long": {"en": "Attribution reads at most {max} tokens, and this text has {n}. Shorten it to "
                                   "see the attributions.",
                             "zh": "归因最多读取 {max} 个词元，而这段文本有 {n} 个。请缩短文本后再看归因。"},
    "attribution.spinner": {"en": "Computing the four attributions…", "zh": "正在计算四种归因……"},
    "attribution.chart": {"en": "What the prediction of «{token}» depends on", "zh": "预测「{token}」依赖哪些输入"},
    "attribution.chart.cls": {"en": "What the final [CLS] vector depends on", "zh": "最后的 [CLS] 向量依赖哪些输入"},
    "attribution.inputs": {"en": "input token", "zh": "输入词元"},
    "attribution.token": {"en": "token", "zh": "词元"},
    "attribution.scaled": {
        "en": "Each row is divided by its own largest absolute value, so the methods can share one colour scale "
              "(their units differ). The table below keeps the numbers as computed.",
        "zh": "每一行都除以该行自身的最大绝对值，好让四种方法共用一个色标（它们的单位不同）。下表保留计算出的原始数值。"},
    "attribution.method.rollout": {"en": "Attention rollout", "zh": "注意力展开"},
    "attribution.method.flow": {"en": "Attention flow", "zh": "注意力流"},
    "attribution.method.times_input": {"en": "Gradient × input", "zh": "梯度×输入"},
    "attribution.method.integrated": {"en": "Integrated gradients", "zh": "积分梯度"},
    "attribution.about.rollout": {
        "en": "multiplies the layers' attention weights, averaged over heads with the residual added as ½A + ½I, "
              "from the output down to the inputs. Caveat: averaging the heads and ignoring the value vectors and "
              "the feed-forward layers can make it point at tokens the output does not use.",
        "zh": "把各层的注意力权重（对各头取平均，并以 ½A + ½I 加入残差）从输出一路乘到输入。注意：对头取平均、"
              "忽略值向量和前馈层，可能让它指向输出其实并不使用的词元。"},
    "attribution.about.flow": {
        "en": "treats the same weights as pipe capacities and finds, for each input token, the largest flow it can "
              "send to the output. Caveat: flows through shared pipes overlap, so they do not add up to 1, and it "
              "is slow on long inputs.",
        "zh": "把同样的权重看作管道容量，对每个输入词元求它能送到输出的最大流量。注意：经过共用管道的流量会重叠，"
              "所以它们加起来不等于 1；输入很长时计算也很慢。"},
    "attribution.about.times_input": {
        "en": "the gradient of the output with respect to each token's vector, times that vector, summed over its "
              "dimensions: a first-order estimate of what removing the token would change. Caveat: it is local, "
              "and saturated softmaxes give small gradients to tokens that still matter.",
        "zh": "输出对每个词元向量的梯度乘以该向量，再对各维求和：对去掉这个词元会带来多少变化的一阶估计。"
              "注意：它只是局部的，softmax 饱和时，仍然重要的词元也可能只得到很小的梯度。"},
    "attribution.about.integrated": {
        "en": "averages the gradients along a straight path from a baseline (every token but the special ones "
              "replaced by padding) to the input, times the difference; the attributions add up to the output's "
              "change along that path. Caveat: the answer depends on the baseline chosen.",
        "zh": "沿着从基线（除特殊词元外都换成填充词元）到真实输入的直线路径，对梯度取平均，再乘以两者之差；"
              "各词元的归因加起来等于输出沿这条路径的变化。注意：结果取决于所选的基线。"},
    "attribution.flow_left_out": {"en": "Attention flow is computed for inputs of up to {n} tokens only: it solves one "
                                        "maximum-flow problem per token, over every layer's weights.",
                                  "zh": "注意力流只对不超过 {n} 个词元的输入计算：它要为每个词元在所有层的权重上"
                                        "求解一次最大流问题。"},
    "attribution.cross": {
        "en": "For a translator, rollout and flow start from this output position's cross-attention row (averaged "
              "over the decoder's layers and heads) and go down through the encoder; what reaches the output "
              "through earlier target tokens is left out.",
        "zh": "对翻译模型，注意力展开和注意力流从这个输出位置的交叉注意力行（对解码器各层、各头取平均）出发，"
              "再穿过编码器往下追溯；经由之前目标词元传到输出的部分没有计入。"},
    "attribution.complete": {
        "en": "Integrated gradients add up: Σ attributions = {total:.4f}, f(input) − f(baseline) = {change:.4f} "
              "(a gap of {gap:.2f} %, with {steps} points along the path).",
        "zh": "积分梯度的总和对得上：各归因之和 = {total:.4f}，f(输入) − f(基线) = {change:.4f}"
              "（相差 {gap:.2f} %，沿路径取了 {steps} 个点）。"},
    "attribution.incomplete": {
        "en": "Integrated gradients do not quite add up: Σ attributions = {total:.4f}, f(input) − f(baseline) = "
              "{change:.4f} (a gap of {gap:.2f} % after {steps} points along the path; the path is too bumpy for "
              "the time this server allows).",
        "zh": "积分梯度的总和没有完全对上：各归因之和 = {total:.4f}，f(输入) − f(基线) = {change:.4f}"
              "（沿路径取了 {steps} 个点后仍相差 {gap:.2f} %；在服务器允许的时间内，这条路径起伏太大）。"},
}
