"""Strings of the Training page's live run ("Train one live"). Chart titles are plotly markup."""

STRINGS = {
    "live.header": {"en": "Train one live", "zh": "现场训练一个模型"},
    "live.about": {
        "en": "A tiny Transformer (d_model 32, 2 heads, one encoder and one decoder layer) learns to reverse a "
              "sequence of words, here and now, in under a minute. Watch the loss fall and the cross-attention "
              "of the probe pair turn into the anti-diagonal: each output word looks at its mirror in the source. "
              "One run at a time on this server; others wait in line.",
        "zh": "一个很小的 Transformer（d_model 32，2 个头，编码器和解码器各一层）现场学习把一串词倒过来，"
              "不到一分钟就能学会。看损失如何下降，探针句对的交叉注意力如何变成反对角线："
              "每个输出词都看向源句中与它对称的那个词。本服务器同一时间只训练一个，其他人排队等候。"},
    "live.start": {"en": "Start training", "zh": "开始训练"},
    "live.stop": {"en": "Stop", "zh": "停止"},
    "live.queued": {"en": "Queued: another visitor's model is training. You are number {place} in line.",
                    "zh": "排队中：正在训练别人的模型。你排在第 {place} 位。"},
    "live.preparing": {"en": "Preparing the data and tokenizers…", "zh": "正在准备数据和分词器…"},
    "live.progress": {"en": "Step {step} of {steps} · {seconds:.1f} s", "zh": "第 {step} / {steps} 步 · {seconds:.1f} 秒"},
    "live.probe": {"en": "Probe pair: {src} → {target}. The model's answer now: {output}",
                   "zh": "探针句对：{src} → {target}。模型现在的回答：{output}"},
    "live.ended.steps": {
        "en": "Done: all {steps} steps in {seconds:.1f} s, final loss {loss:.3f}. The probe's output: {output}",
        "zh": "完成：{seconds:.1f} 秒内跑完全部 {steps} 步，最终损失 {loss:.3f}。探针的输出：{output}"},
    "live.ended.time": {
        "en": "Stopped at the time limit after {steps} steps ({seconds:.1f} s), final loss {loss:.3f}. "
              "The probe's output: {output}",
        "zh": "到达时间上限，训练了 {steps} 步（{seconds:.1f} 秒），最终损失 {loss:.3f}。探针的输出：{output}"},
    "live.ended.stopped": {
        "en": "Stopped after {steps} steps ({seconds:.1f} s), final loss {loss:.3f}. The probe's output: {output}",
        "zh": "已停止：训练了 {steps} 步（{seconds:.1f} 秒），最终损失 {loss:.3f}。探针的输出：{output}"},
    "live.full": {"en": "{n} visitors are already waiting for a live run: please try again in a few minutes.",
                  "zh": "已有 {n} 位访客在等待现场训练，请过几分钟再试。"},
    "live.address": {"en": "Another tab or device at your address already has a place in the line for a live run: one "
                             "place per address, so that everyone gets a turn. Stop that one first, or wait for it.",
                     "zh": "你所在地址的另一个标签页或设备已在现场训练的队列中：每个地址只占一个位置，好让每个人都能轮到。"
                           "请先停止那一个，或等它结束。"},
    "live.left_line": {"en": "You left the line; nothing was trained.", "zh": "你已离开队列，没有进行训练。"},
    "live.failed": {"en": "The live run failed: {error}", "zh": "现场训练出错：{error}"},
    "live.loss": {"en": "training loss (label-smoothed, mean since the previous point)",
                  "zh": "训练损失（标签平滑，自上一个点以来的平均值）"},
    "live.loss.title": {"en": "Loss so far", "zh": "目前的损失"},
    "live.cross.title": {"en": "Cross-attention of the probe pair at step {step} ({head})",
                         "zh": "第 {step} 步时探针句对的交叉注意力（{head}）"},
    "live.head": {"en": "Head", "zh": "注意力头"},
    "live.head.mean": {"en": "mean of the heads", "zh": "各头平均"},
    "live.head.n": {"en": "head {n}", "zh": "头 {n}"},
    "live.axis.step": {"en": "step", "zh": "步"},
    "live.axis.loss": {"en": "loss", "zh": "损失"},
    "live.axis.src": {"en": "source token", "zh": "源词元"},
    "live.axis.tgt": {"en": "decoder input", "zh": "解码器输入"},
}
