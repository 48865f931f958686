"""Strings of the Decoding page."""

STRINGS = {
    "decoding.intro": {
        "en": "A decoder writes its output one token at a time. At every step it reads everything written "
              "so far (its input starts with <s>), turns the last position's vector into a score for every "
              "token of the vocabulary, and a decoding rule picks the next token, which is appended to the "
              "input for the next step. Step through the steps below: each one shows what the decoder read, "
              "which tokens it found most likely, which one was taken, and where it looked to decide.",
        "zh": "解码器每次只写出一个词元。每一步它都读入目前为止写下的全部内容（输入以 <s> 开头），"
              "把最后一个位置的向量变成词表中每个词元的分数，再由解码规则选出下一个词元，并把它接到输入末尾，"
              "进入下一步。用下面的控件逐步查看：每一步解码器读到了什么、认为哪些词元最可能、选了哪一个，"
              "以及它为做出决定看向了哪里。"},
    "decoding.formula": {
        "en": "The next-token distribution is a softmax over the vocabulary of the projected last hidden state:",
        "zh": "下一个词元的分布，是最后一个隐藏状态经线性投影后在整个词表上的 softmax："},
    "decoding.formula.greedy": {
        "en": "Greedy decoding always takes the most likely token:",
        "zh": "贪心解码每一步都取概率最大的词元："},
    "decoding.formula.beam": {
        "en": "Beam search keeps the W best partial outputs by summed log-probability; finished outputs are "
              "ranked by that sum divided by a length penalty, so longer outputs are not unfairly punished:",
        "zh": "束搜索按对数概率之和保留最好的 W 个部分输出；已结束的输出用这个和除以长度惩罚项来排序，"
              "以免较长的输出吃亏："},
    "decoding.formula.sample": {
        "en": "Sampling divides the scores by a temperature T, keeps only the k most likely tokens and then "
              "the smallest set whose probability reaches p, renormalizes, and draws from what is left:",
        "zh": "采样先把分数除以温度 T，只保留概率最高的 k 个词元，再保留累计概率达到 p 的最小集合，"
              "重新归一化后从剩下的词元中随机抽取："},
    "decoding.formula.cross": {
        "en": "Cross-attention is where the decoder reads the source: the query of the current position "
              "against the keys of every encoder output. Its row at each step shows which source tokens "
              "the decoder weighed while choosing the next token:",
        "zh": "交叉注意力是解码器读取源句的地方：当前位置的查询向量与每个编码器输出的键向量比较。"
              "每一步的这一行显示解码器在选择下一个词元时更看重哪些源词元："},
    "decoding.no_decoder": {
        "en": "This model is encoder-only: it turns every input token into a vector but has no decoder, so "
              "it never generates tokens and there is no decoding to step through. Pick a model with a "
              "decoder (encoder-decoder or decoder-only) in the sidebar.",
        "zh": "这是一个仅编码器模型：它把每个输入词元变成一个向量，但没有解码器，因此不会生成词元，"
              "也就没有可以逐步查看的解码过程。请在侧栏选择带解码器的模型（编码器-解码器或仅解码器）。"},
    "decoding.failed": {"en": "This text cannot be decoded: {reason}", "zh": "无法对这段文本解码：{reason}"},
    "decoding.ignores_tgt": {"en": "Decoding writes its own output, so the sidebar's teacher-forcing target is not used here.",
                             "zh": "解码时模型自己写出输出，因此这里不使用侧栏中的教师强制目标句。"},
    "decoding.method": {"en": "Decoding rule", "zh": "解码规则"},
    "decoding.own": {"en": "The defaults are the model's own, from its generation_config.json: {asked}.",
                     "zh": "默认设置来自模型自带的 generation_config.json：{asked}。"},
    "decoding.own.refused": {"en": "The model's generation_config.json is not used, and the page starts from its own "
                                   "defaults: {why}",
                             "zh": "未采用模型自带的 generation_config.json，本页使用自己的默认设置：{why}"},
    "decoding.own.not_applied": {"en": "This page does not follow its {names}.",
                                 "zh": "本页不采用其中的 {names}。"},
    "decoding.method.greedy": {"en": "greedy", "zh": "贪心"},
    "decoding.method.beam": {"en": "beam search", "zh": "束搜索"},
    "decoding.method.sample": {"en": "sampling", "zh": "采样"},
    "decoding.width": {"en": "Beam width W", "zh": "束宽 W"},
    "decoding.width.help": {"en": "How many partial outputs are kept after every step. Width 1 is greedy decoding.",
                            "zh": "每一步之后保留多少个部分输出。束宽为 1 时就是贪心解码。"},
    "decoding.alpha": {"en": "Length penalty α", "zh": "长度惩罚 α"},
    "decoding.alpha.help": {"en": "0 ranks finished outputs by their summed log-probability; larger values favour longer outputs.",
                            "zh": "为 0 时按对数概率之和给已结束的输出排序；数值越大越偏向较长的输出。"},
    "decoding.temperature": {"en": "Temperature T", "zh": "温度 T"},
    "decoding.temperature.help": {"en": "Below 1 sharpens the distribution, above 1 flattens it.",
                                  "zh": "小于 1 使分布更尖锐，大于 1 使分布更平坦。"},
    "decoding.top_k": {"en": "Top-k (0 = all)", "zh": "Top-k（0 表示不限）"},
    "decoding.top_k.help": {"en": "Draw only from the k most likely tokens.", "zh": "只从概率最高的 k 个词元中抽取。"},
    "decoding.top_p": {"en": "Top-p (nucleus, 1 = all)", "zh": "Top-p（核采样，1 表示不限）"},
    "decoding.top_p.help": {"en": "Draw only from the smallest set of most likely tokens whose probability adds up to p.",
                            "zh": "只从累计概率达到 p 的最小高概率词元集合中抽取。"},
    "decoding.sample.why": {
        "en": "The models were trained with label smoothing (ε = 0.1), which leaves about 10% of the probability spread "
              "over the whole vocabulary, so plain sampling at T = 1 often picks a rare token. That is why top-k and "
              "top-p are on: they keep only the most likely tokens, whose mass reaches p.",
        "zh": "模型训练时用了标签平滑（ε = 0.1），约 10% 的概率被摊到整个词表上，所以在 T = 1 下直接采样常会抽到罕见词元。"
              "因此默认开启 top-k 和 top-p：只保留最可能、累计概率达到 p 的那些词元。"},
    "decoding.sample.one_choice": {
        "en": "With these settings, every step of this output leaves a single token to draw (the model is sure of "
              "each): every seed gives this same output. Sampling differs where the model hesitates.",
        "zh": "在当前设置下，这个输出的每一步都只剩一个词元可抽（模型对每个词元都很确定），所以任何随机种子都得到同样的输出。"
              "模型犹豫时，采样才会不同。"},
    "decoding.sample.hesitant": {"en": "Try a sentence where it hesitates: “{text}”", "zh": "试一个它会犹豫的句子：“{text}”"},
    "decoding.sample.rare": {"en": "At step {k}, the {n} tokens with p < 0.001 together hold {mass:.1%} of the model's probability.",
                             "zh": "第 {k} 步：概率低于 0.001 的 {n} 个词元合计占模型概率的 {mass:.1%}。"},
    "decoding.seed": {"en": "Seed", "zh": "随机种子"},
    "decoding.seed.help": {"en": "The same seed always draws the same output.", "zh": "相同的种子总是抽出相同的输出。"},
    "decoding.step": {"en": "Step", "zh": "步骤"},
    "decoding.prev": {"en": "◀ previous", "zh": "◀ 上一步"},
    "decoding.next": {"en": "next ▶", "zh": "下一步 ▶"},
    "decoding.one_step": {"en": "The output has a single step.", "zh": "输出只有一步。"},
    "decoding.of": {"en": "Step {k} of {n} (0 is the first)", "zh": "第 {k} 步，共 {n} 步（从 0 开始）"},
    "decoding.prefix": {"en": "Decoder input at this step, and the token it chose (highlighted)",
                        "zh": "这一步的解码器输入，以及它选出的词元（高亮）"},
    "decoding.chosen": {"en": "Chosen at step {k}", "zh": "第 {k} 步选出的词元"},
    "decoding.chosen.p": {"en": "p = {p:.4f} under the model", "zh": "模型给出的概率 p = {p:.4f}"},
    "decoding.so_far": {"en": "Output so far", "zh": "目前的输出"},
    "decoding.full": {"en": "Whole output ({why})", "zh": "完整输出（{why}）"},
    "decoding.why.eos": {"en": "ended with </s>", "zh": "以 </s> 结束"},
    "decoding.why.max_len": {"en": "stopped at the length limit", "zh": "达到长度上限而停止"},
    "decoding.why.time": {"en": "stopped at the time limit", "zh": "达到时间上限而停止"},
    "decoding.top.title": {"en": "The {n} most likely next tokens", "zh": "最可能的 {n} 个下一个词元"},
    "decoding.top.sample": {"en": "Distribution after T, top-k, top-p: the {n} most likely",
                            "zh": "经过 T、top-k、top-p 处理后的分布：概率最高的 {n} 个"},
    "decoding.top.x": {"en": "probability", "zh": "概率"},
    "decoding.top.sampled": {"en": "sampled from", "zh": "采样所用分布"},
    "decoding.top.model": {"en": "model softmax (T = 1)", "zh": "模型原始 softmax（T = 1）"},
    "decoding.top.outside": {"en": "The sampled token is not among the {n} most likely shown here.",
                             "zh": "抽中的词元不在这里列出的前 {n} 个之中。"},
    "decoding.cross": {"en": "Cross-attention at this step", "zh": "这一步的交叉注意力"},
    "decoding.cross.title": {"en": "Decoder layer {layer}: every head's row over the source",
                             "zh": "解码器第 {layer} 层：每个头在源句上的注意力行"},
    "decoding.cross.mean": {"en": "Average of the heads", "zh": "各头的平均"},
    "decoding.no_cross": {"en": "This model is decoder-only: it has no encoder and no cross-attention. "
                                "It reads the prompt through its own self-attention, shown below.",
                          "zh": "这是一个仅解码器模型：没有编码器，也没有交叉注意力。"
                                "它通过自身的自注意力读取提示，见下图。"},
    "decoding.self": {"en": "Decoder self-attention at this step", "zh": "这一步的解码器自注意力"},
    "decoding.self.title": {"en": "Decoder layer {layer}: every head's row over the decoder input",
                            "zh": "解码器第 {layer} 层：每个头在解码器输入上的注意力行"},
    "decoding.layer_note": {"en": "The decoder has {n} layers; showing its last layer, {layer}.",
                            "zh": "解码器只有 {n} 层，这里显示最后一层（第 {layer} 层）。"},
    "decoding.head": {"en": "head {h}", "zh": "头 {h}"},
    "decoding.heads": {"en": "head", "zh": "注意力头"},
    "decoding.source": {"en": "source token", "zh": "源词元"},
    "decoding.input": {"en": "decoder input token", "zh": "解码器输入词元"},
    "decoding.weight": {"en": "attention weight", "zh": "注意力权重"},
    "decoding.all": {"en": "All steps", "zh": "所有步骤"},
    "decoding.all.cross": {"en": "Cross-attention of every step (layer {layer}, heads averaged): for a translation, "
                                 "the alignment between output and source words. The current step is outlined.",
                           "zh": "每一步的交叉注意力（第 {layer} 层，各头平均）：对翻译来说，"
                                 "这就是输出词与源词之间的对齐矩阵。当前步骤用方框标出。"},
    "decoding.all.self": {"en": "Self-attention of every step (layer {layer}, heads averaged); positions not yet "
                                "written are empty. The current step is outlined.",
                          "zh": "每一步的自注意力（第 {layer} 层，各头平均）；尚未写出的位置留空。当前步骤用方框标出。"},
    "decoding.all.y": {"en": "generated token", "zh": "生成的词元"},
    "decoding.table.step": {"en": "step", "zh": "步骤"},
    "decoding.table.token": {"en": "chosen token", "zh": "选出的词元"},
    "decoding.table.p": {"en": "probability (model)", "zh": "概率（模型）"},
    "decoding.beam": {"en": "The beam tree", "zh": "束搜索树"},
    "decoding.beam.about": {
        "en": "Each column is a step, each dot a hypothesis kept after it, ranked from the top; lines lead "
              "back to the hypothesis it extended. Diamonds ended with </s>. The orange path is the best "
              "output, whose steps the step control walks through. Hover a dot for its scores.",
        "zh": "每一列是一个步骤，每个点是该步之后保留的一个假设，自上而下按排名排列；连线指向它所扩展的假设。"
              "菱形表示以 </s> 结束的假设。橙色路径是最佳输出，步骤控件逐步走过的就是它的各个步骤。"
              "将鼠标悬停在点上可查看分数。"},
    "decoding.beam.title": {"en": "Beam search, width {w}", "zh": "束搜索，束宽 {w}"},
    "decoding.beam.x": {"en": "step", "zh": "步骤"},
    "decoding.beam.y": {"en": "rank in the beam", "zh": "束内排名"},
    "decoding.beam.score": {"en": "log-prob sum", "zh": "对数概率之和"},
    "decoding.beam.normalized": {"en": "normalized", "zh": "归一化分数"},
    "decoding.beam.finished": {"en": "ended with </s>", "zh": "以 </s> 结束"},
    "decoding.hyps": {"en": "Final hypotheses, best first", "zh": "最终假设（最佳在前）"},
    "decoding.hyps.text": {"en": "output", "zh": "输出"},
    "decoding.hyps.tokens": {"en": "tokens", "zh": "词元数"},
    "decoding.hyps.finished": {"en": "ended with </s>", "zh": "以 </s> 结束"},
}
