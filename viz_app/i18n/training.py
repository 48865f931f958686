"""Strings of the Training page. Chart titles are plain text: figures.base.figure escapes them for plotly."""

STRINGS = {
    "training.intro": {
        "en": "How the shipped models learned: the learning-rate schedule, label smoothing and teacher forcing, each "
              "with the real numbers of the model chosen in the sidebar. Training itself is "
              "`python -m core_model.training.train`: Adam with β₁ = 0.9, β₂ = 0.98, ε = 10⁻⁹, the schedule below, and a "
              "cross-entropy loss with label smoothing ε = 0.1.",
        "zh": "这里展示随附模型是怎样训练出来的：学习率调度、标签平滑和教师强制，每一部分都使用侧边栏所选模型的真实数值。"
              "训练命令是 `python -m core_model.training.train`：Adam 优化器（β₁ = 0.9，β₂ = 0.98，ε = 10⁻⁹），"
              "使用下面的学习率调度，损失为带标签平滑（ε = 0.1）的交叉熵。"},
    "training.card": {"en": "Model card of {model}: data, training command, metrics",
                      "zh": "{model} 的模型卡：数据、训练命令与指标"},
    "training.card.english": {"en": "The model card, as written (in English).", "zh": "以下是模型卡原文（英文）。"},
    "training.card.none": {
        "en": "{model} is not one of the models shipped with this app, so there is no model card or training "
              "task to show; the schedule below applies to any Transformer.",
        "zh": "{model} 不是本应用随附的模型，因此没有模型卡或训练任务可以展示；下面的学习率调度适用于任何 Transformer。"},
    "training.card.none.pretrained": {
        "en": "{model} ships with this app as a pretrained model, imported from its Hugging Face folder: it was not "
              "trained here, so there is no training task or log to show; the schedule below applies to any "
              "Transformer.",
        "zh": "{model} 是随本应用提供的预训练模型，从它的 Hugging Face 文件夹导入，并不是在这里训练的，因此没有训练任务或"
              "训练日志可以展示；下面的学习率调度适用于任何 Transformer。"},
    "training.log.header": {"en": "This model's training run", "zh": "这个模型的训练过程"},
    "training.log.none": {
        "en": "{model} was shipped without a training log. Training writes one into every checkpoint "
              "(train_log.csv); `python -m core_model.training.train --task {model} --out runs/{model} --ship "
              "assets/models/{model}` ships it beside the model.",
        "zh": "{model} 随附时没有训练日志。训练会在每个检查点中写入日志（train_log.csv）；"
              "`python -m core_model.training.train --task {model} --out runs/{model} --ship assets/models/{model}` 会把它和模型放在一起。"},
    "training.log.bad": {"en": "The training log of {model} is damaged, so it is not drawn; the model itself is fine.",
                         "zh": "{model} 的训练日志已损坏，因此不绘制；模型本身没有问题。"},
    "training.log.loss": {"en": "Loss during training", "zh": "训练中的损失"},
    "training.log.train": {"en": "training loss (label-smoothed, mean since the previous row)",
                           "zh": "训练损失（标签平滑，自上一行以来的平均值）"},
    "training.log.valid": {"en": "validation loss (plain cross-entropy)", "zh": "验证损失（普通交叉熵）"},
    "training.log.lr": {"en": "Learning rate", "zh": "学习率"},
    "training.log.grad_norm": {"en": "Gradient norm before each update", "zh": "每次更新前的梯度范数"},
    "training.log.caption": {
        "en": "{rows} rows of the model's own train_log.csv, up to step {last} and {tokens:,} target tokens. The "
              "training loss is smoothed with ε = 0.1, so it stays above the validation loss, which is not.",
        "zh": "模型自己的 train_log.csv 共 {rows} 行，到第 {last} 步、{tokens:,} 个目标词元为止。"
              "训练损失带 ε = 0.1 的标签平滑，所以一直高于不带平滑的验证损失。"},
    "training.axis.loss": {"en": "loss", "zh": "损失"},
    "training.schedule.header": {"en": "The learning-rate schedule", "zh": "学习率调度"},
    "training.schedule.about": {
        "en": "The learning rate grows linearly for the first warm-up steps, then falls with the inverse square "
              "root of the step. Its peak, at the end of the warm-up, is smaller for a wider model.",
        "zh": "学习率在前若干个预热步中线性增长，之后按步数平方根的倒数下降。峰值出现在预热结束时，模型越宽，峰值越小。"},
    "training.d_model": {"en": "d_model", "zh": "d_model"},
    "training.warmup": {"en": "Warm-up steps", "zh": "预热步数"},
    "training.schedule.title": {"en": "Learning rate at each optimizer step", "zh": "每个优化步的学习率"},
    "training.schedule.yours": {"en": "sliders: d_model {d}, warm-up {w}", "zh": "滑块：d_model {d}，预热 {w}"},
    "training.schedule.model": {"en": "{model} as trained: d_model {d}, warm-up {w}, {steps} steps",
                                "zh": "{model} 实际训练：d_model {d}，预热 {w}，共 {steps} 步"},
    "training.schedule.peak": {
        "en": "With the sliders' values the rate climbs for {w} steps to its peak {peak:.2e}, then falls as "
              "1/√step; step 1 takes {first:.2e}.",
        "zh": "按滑块的取值，学习率在 {w} 步内升到峰值 {peak:.2e}，之后按 1/√步数 下降；第 1 步为 {first:.2e}。"},
    "training.schedule.no_warmup": {
        "en": "Without warm-up (warm-up = 1) the very first update would take the peak rate, {lr:.3f} for d_model "
              "{d}, while Adam's estimate of each gradient's size rests on one or two batches: the first updates "
              "are large and erratic, and a post-norm Transformer often diverges.",
        "zh": "如果不预热（预热 = 1），第一次更新就会使用峰值学习率（d_model 为 {d} 时是 {lr:.3f}），"
              "而此时 Adam 对每个梯度大小的估计只基于一两个批次：最初的更新又大又不稳定，后归一化的 Transformer 常常因此发散。"},
    "training.schedule.cooldown": {
        "en": "{model} adds one thing to the paper's schedule: over its last {n} steps the rate falls linearly "
              "towards 0 (a cool-down). The small last updates let the weights settle instead of jittering at a "
              "high rate, which made fewer test sentences come out wrong.",
        "zh": "{model} 在论文的调度之外多做了一件事：最后 {n} 步里学习率线性降向 0（冷却）。"
              "最后几次更新很小，权重得以稳定下来，而不是在较高的学习率下来回抖动，测试句子译错的更少。"},
    "training.smoothing.header": {"en": "Label smoothing", "zh": "标签平滑"},
    "training.smoothing.about": {
        "en": "Training does not ask for all probability on the right token. With label smoothing ε the target is "
              "q = (1 − ε)·one-hot + ε / V: the right token gets 1 − ε + ε / V and each of the V vocabulary tokens "
              "ε / V. Below, one token of the sidebar's sentence as the model predicts it (the model's own output "
              "is its target here).",
        "zh": "训练并不要求把全部概率都放在正确词元上。使用标签平滑 ε 时，目标分布是 q = (1 − ε)·独热 + ε / V："
              "正确词元得到 1 − ε + ε / V，词表中每个词元各得 ε / V。下面是侧边栏句子中的一个词元及模型对它的预测"
              "（这里以模型自己的输出作为目标）。"},
    "training.position": {"en": "Target token", "zh": "目标词元"},
    "training.eps": {"en": "ε (label smoothing)", "zh": "ε（标签平滑）"},
    "training.smoothing.title": {"en": "Target {token}: the model's probabilities and the smoothed target (ε = {eps:g})",
                                 "zh": "目标 {token}：模型的概率与平滑后的目标（ε = {eps:g}）"},
    "training.smoothing.p": {"en": "model p", "zh": "模型 p"},
    "training.smoothing.q": {"en": "smoothed target q (ε = {eps:g})", "zh": "平滑目标 q（ε = {eps:g}）"},
    "training.smoothing.losses": {
        "en": "Loss of this token, H(q, p): **{loss:.3f}**. The least any prediction can cost is H(q), reached at "
              "p = q: **{floor:.3f}**. A confident prediction (0.999 on the target, the rest spread evenly) costs "
              "**{confident:.3f}**, and a one-hot prediction costs infinitely much when ε > 0 (log 0 on every other "
              "token): smoothing rewards a model that keeps some doubt.",
        "zh": "这个词元的损失 H(q, p)：**{loss:.3f}**。任何预测的最小损失是 H(q)，在 p = q 时取得：**{floor:.3f}**。"
              "一个很自信的预测（目标 0.999，其余平均分配）的损失是 **{confident:.3f}**；当 ε > 0 时，独热预测的损失为无穷大"
              "（其他每个词元都是 log 0）：平滑奖励的是保留一些不确定性的模型。"},
    "training.smoothing.sampling": {
        "en": "What a user meets on the Decoding page: here the model puts **{mass:.1%}** of its probability on "
              "{count} of its {vocab} tokens, each below 0.001. Plain sampling at T = 1 picks one of those rare "
              "tokens with that chance at this step alone, and a sentence has many steps: that is why the "
              "Decoding page samples with top-p on.",
        "zh": "这会在解码页上表现出来：在这个位置，模型把 **{mass:.1%}** 的概率分给了 {vocab} 个词元中的 {count} 个，"
              "每个都低于 0.001。温度 T = 1 的普通采样仅在这一步就有这么大的机会选中这样的罕见词元，而一句话有很多步："
              "这就是解码页默认开启 top-p 的原因。"},
    "training.smoothing.empty": {
        "en": "The model's output for this sentence is empty, so there is no target token to look at: try another "
              "sentence.",
        "zh": "模型对这个句子的输出是空的，因此没有可以查看的目标词元：请换一个句子试试。"},
    "training.smoothing.none": {
        "en": "{model} predicts no tokens: label smoothing and teacher forcing belong to a model with a decoder.",
        "zh": "{model} 不预测词元：标签平滑和教师强制只适用于带解码器的模型。"},
    "training.teacher.header": {"en": "Teacher forcing: one training batch", "zh": "教师强制：一个训练批次"},
    "training.teacher.about": {
        "en": "In training the decoder never reads its own guesses. It reads the true target shifted right by one, "
              "with `<s>` in front, and must predict at each position the next true token, ending with `</s>`; "
              "the causal mask keeps each position from reading later ones, so every position of every sentence "
              "is trained in one forward pass. Shorter pairs are padded, and the padding counts for nothing.",
        "zh": "训练时解码器从不读取自己的猜测。它读取右移一位、前面加上 `<s>` 的真实目标，并在每个位置预测下一个真实词元，"
              "最后是 `</s>`；因果掩码让每个位置看不到后面的位置，所以每个句子的每个位置都在一次前向计算中得到训练。"
              "较短的句对会被填充，填充部分不计入损失。"},
    "training.teacher.src": {"en": "Encoder input (the source), padding grey", "zh": "编码器输入（源句），灰色为填充"},
    "training.teacher.tgt_in": {"en": "Decoder input: <s> + target (shifted right)",
                                "zh": "解码器输入：<s> + 目标（右移一位）"},
    "training.teacher.tgt_out": {"en": "What each position must predict: target + </s>",
                                 "zh": "每个位置要预测的内容：目标 + </s>"},
    "training.teacher.causal": {"en": "Causal mask of the decoder, pair 0",
                                "zh": "解码器的因果掩码，句对 0"},
    "training.teacher.loss": {"en": "Loss of each target token", "zh": "每个目标词元的损失"},
    "training.teacher.mean": {
        "en": "The batch's loss is the mean over its {n} real targets: {loss:.4f} (cross-entropy with label "
              "smoothing ε = {eps:g}, the shipped weights, no dropout); padding is left out.",
        "zh": "这个批次的损失是 {n} 个真实目标的平均值：{loss:.4f}（带标签平滑 ε = {eps:g} 的交叉熵，随附权重，不使用随机失活）；"
              "填充不计入。"},
    "training.teacher.none": {
        "en": "{model} is not one of the shipped models: the batch comes from a shipped model's own training data.",
        "zh": "{model} 不是随附的模型：这个批次来自随附模型自己的训练数据。"},
    "training.teacher.none.pretrained": {
        "en": "{model} was pretrained elsewhere: the batch comes from a model trained here, with its own training data.",
        "zh": "{model} 是在别处预训练的：这个批次来自在这里训练的模型及其训练数据。"},
    "training.forming.header": {"en": "Heads forming", "zh": "注意力头的形成"},
    "training.forming.about": {
        "en": "While the model trained, every head's attention on a few probe sentences was saved at about 20 steps, "
              "from the untrained model (step 0) to the last, together with how far each layer's cross-attention "
              "is from the true word alignment (alignment error rate, AER: 0 is perfect). Move the step or press "
              "play to watch the alignment appear.",
        "zh": "模型训练时，在大约 20 个步骤（从未训练的第 0 步到最后一步）保存了每个注意力头在几个探针句子上的注意力，"
              "同时记录了每一层交叉注意力与真实词对齐的差距（对齐错误率 AER，0 表示完全正确）。拖动步数或按下播放，"
              "就能看到对齐逐渐出现。"},
    "training.forming.none": {
        "en": "{model} was shipped without attention snapshots. Training saves them in every checkpoint "
              "(attention_steps.safetensors); retraining with `python -m core_model.training.train --task {model} --ship …` "
              "ships them beside the model.",
        "zh": "{model} 随附时没有注意力快照。训练会把它们保存在每个检查点中（attention_steps.safetensors）；"
              "用 `python -m core_model.training.train --task {model} --ship …` 重新训练即可把它们和模型放在一起。"},
    "training.forming.bad": {"en": "The attention snapshots of {model} are damaged, so they are not drawn.",
                             "zh": "{model} 的注意力快照已损坏，因此不绘制。"},
    "training.forming.play": {"en": "Play", "zh": "播放"},
    "training.forming.probe": {"en": "Probe sentence", "zh": "探针句子"},
    "training.forming.step": {"en": "Training step", "zh": "训练步"},
    "training.forming.hint": {"en": "layer {layer}, head {head}", "zh": "第 {layer} 层，头 {head}"},
    "training.forming.title": {"en": "Every head at step {step}: {block}", "zh": "第 {step} 步的所有头：{block}"},
    "training.forming.aer": {"en": "Alignment error rate of the cross-attention", "zh": "交叉注意力的对齐错误率"},
    "training.forming.aer_layer": {"en": "layer {n}", "zh": "第 {n} 层"},
    "training.forming.loss": {"en": "Training loss so far", "zh": "到此为止的训练损失"},
    "training.axis.step": {"en": "step", "zh": "步"},
    "training.axis.lr": {"en": "learning rate", "zh": "学习率"},
    "training.axis.token": {"en": "token", "zh": "词元"},
    "training.axis.position": {"en": "position", "zh": "位置"},
    "training.axis.pair": {"en": "pair", "zh": "句对"},
    "training.axis.key": {"en": "key position", "zh": "键位置"},
    "training.axis.query": {"en": "query position", "zh": "查询位置"},
}
