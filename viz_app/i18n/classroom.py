"""The classroom: presenter mode, predict-then-reveal and the guided lesson."""

STRINGS = {
    "classroom.present": {"en": "Presenter mode", "zh": "演示模式"},
    "classroom.present.help": {
        "en": "For a projector: large text and chart labels, the explanations folded away, the first chart on "
              "the first screen. Left and right arrow keys step through stages and decoding steps. A link keeps it.",
        "zh": "适合投影：文字和图表标签放大，说明折叠起来，第一张图表出现在首屏。左右方向键逐步切换计算阶段和解码步骤。"
              "复制的链接会保留此模式。"},
    "classroom.predict": {"en": "Predict, then reveal", "zh": "先预测，再揭晓"},
    "classroom.predict.help": {
        "en": "Five pages ask a question first and hide the chart that answers it until you have guessed.",
        "zh": "有五个页面会先提一个问题，在你作答之前隐藏给出答案的图表。"},
    "classroom.more": {"en": "What this page shows, and its formula", "zh": "本页内容与公式"},
    "classroom.back": {"en": "◀ Back", "zh": "◀ 上一步"},
    "classroom.next": {"en": "Next ▶", "zh": "下一步 ▶"},
    "classroom.stage": {"en": "Stage {i} of {n}", "zh": "第 {i} 阶段，共 {n} 个"},
    "predict.q.strongest_key": {"en": "Which key will the query {token} weigh most?",
                                "zh": "查询 {token} 会给哪个键最大的权重？"},
    "predict.q.previous_head": {"en": "Which head reads the previous token most (layer·head)?",
                                "zh": "哪个注意力头最关注前一个词元（层·头）？"},
    "predict.q.next_token": {"en": "Which token comes next?", "zh": "下一个词元是哪个？"},
    "predict.q.blocked.causal.many": {
        "en": "Which keys does the causal mask block for the query {token}? Pick them all, then check.",
        "zh": "对查询 {token}，因果掩码会屏蔽哪些键？全部选出后点“核对”。"},
    "predict.q.blocked.window.many": {
        "en": "Which keys does the sliding-window mask block for the query {token}? Pick them all, then check.",
        "zh": "对查询 {token}，滑动窗口掩码会屏蔽哪些键？全部选出后点“核对”。"},
    "predict.q.blocked.padding.many": {
        "en": "Which keys does the padding mask block for the query {token}? Pick them all (or none), then check.",
        "zh": "对查询 {token}，填充掩码会屏蔽哪些键？全部选出（也可能一个都没有）后点“核对”。"},
    "predict.q.blocked.combined.many": {
        "en": "Which keys does the combined mask block for the query {token}? Pick them all, then check.",
        "zh": "对查询 {token}，组合掩码会屏蔽哪些键？全部选出后点“核对”。"},
    "predict.q.similar_position": {
        "en": "Which other position's encoding is most like that of position {position} (largest dot product)?",
        "zh": "哪个其他位置的编码与位置 {position} 的编码最相似（点积最大）？"},
    "predict.q.credited": {
        "en": "Which input token do integrated gradients credit most for predicting {token}?",
        "zh": "在预测 {token} 时，积分梯度认为哪个输入词元贡献最大？"},
    "predict.q.credited_cls": {
        "en": "Which input token do integrated gradients credit most for the final [CLS] vector?",
        "zh": "对最后的 [CLS] 向量，积分梯度认为哪个输入词元贡献最大？"},
    "predict.decoder_input": {"en": "The decoder's input so far", "zh": "到目前为止解码器的输入"},
    "predict.check": {"en": "Check", "zh": "核对"},
    "predict.hidden": {"en": "The chart that answers it appears once you have guessed.",
                       "zh": "作答之后，给出答案的图表才会出现。"},
    "predict.right": {"en": "Right: {answer} (the model's number: {value}).",
                      "zh": "答对了：{answer}（模型的数值：{value}）。"},
    "predict.wrong": {"en": "Not this time: you picked {guess}; the model's answer is {answer} ({value}).",
                      "zh": "这次没答对：你选了 {guess}，模型的答案是 {answer}（{value}）。"},
    "predict.none": {"en": "nothing", "zh": "无"},
    "predict.score": {"en": "Score this session: {right} of {asked}", "zh": "本次得分：{asked} 题答对 {right} 题"},
}
