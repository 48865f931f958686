"""The decoding page's knock-out section: heads removed, the output again, which heads matter."""
STRINGS = {
    "knockout.title": {"en": "Knock out heads: does the output need them?", "zh": "移除注意力头：输出离得开它们吗？"},
    "knockout.intro": {
        "en": "Attention weights show where a head looks, not whether the model needs what it finds. Remove heads "
              "here (their outputs set to zero, so W_O reads nothing from them) and the model translates or continues "
              "again without them. The comparison is with the greedy output.",
        "zh": "注意力权重只说明一个头看向哪里，不说明模型是否需要它看到的内容。在这里移除一些头（把它们的输出置零，"
              "W_O 就读不到它们），模型会在没有它们的情况下重新翻译或续写。比较的对象是贪心解码的输出。"},
    "knockout.heads": {"en": "Heads to remove", "zh": "要移除的头"},
    "knockout.head": {"en": "{block} · layer {layer} · head {head}", "zh": "{block} · 第 {layer} 层 · 头 {head}"},
    "knockout.block.encoder.self_attn": {"en": "encoder self", "zh": "编码器自注意力"},
    "knockout.block.decoder.self_attn": {"en": "decoder self", "zh": "解码器自注意力"},
    "knockout.block.decoder.cross_attn": {"en": "cross", "zh": "交叉注意力"},
    "knockout.short.encoder.self_attn": {"en": "enc", "zh": "编"},
    "knockout.short.decoder.self_attn": {"en": "dec", "zh": "解"},
    "knockout.short.decoder.cross_attn": {"en": "cross", "zh": "交"},
    "knockout.original": {"en": "The model's output", "zh": "模型的输出"},
    "knockout.without": {"en": "Without those heads", "zh": "移除这些头之后"},
    "knockout.changed": {"en": "Tokens in red differ from the output at the same position.",
                         "zh": "红色的词元与原输出同一位置的词元不同。"},
    "knockout.same": {"en": "The output is the same without those heads.", "zh": "移除这些头之后，输出不变。"},
    "knockout.logp": {"en": "log P(the output), all heads", "zh": "log P（原输出），全部的头"},
    "knockout.logp.without": {"en": "log P(the same output), without them", "zh": "log P（同一输出），移除之后"},
    "knockout.sweep": {"en": "Which heads matter? Remove each head alone", "zh": "哪些头重要？逐个单独移除"},
    "knockout.sweep.help": {
        "en": "One pass of the model per head, the output scored again without that head; each result is kept for "
              "this sentence.",
        "zh": "每个头运行一次模型，在没有这个头的情况下重新给输出打分；每个结果都会为这个句子保留。"},
    "knockout.sweep.running": {"en": "Removing each head in turn…", "zh": "正在逐个移除注意力头……"},
    "knockout.sweep.cut": {
        "en": "{tried} of {total} heads tried within {seconds:.0f} s; the rest are blank. Switch the sweep off and on "
              "again to go on: the heads already tried are kept.",
        "zh": "{seconds:.0f} 秒内试了 {total} 个头中的 {tried} 个，其余留空。把逐个移除关掉再打开即可继续：已试过的头会保留。"},
    "knockout.sweep.title": {"en": "{block}: fall in log P(output) without each head",
                             "zh": "{block}：移除每个头后 log P（输出）的下降"},
    "knockout.sweep.caption": {
        "en": "Each cell is how much less likely the whole output becomes without that one head (in nats; below 0: "
              "more likely). Most heads matter little on their own; the model has others that do the same work.",
        "zh": "每个格子表示只移除这一个头后，整个输出的可能性降低了多少（单位为奈特；小于 0 表示更可能了）。"
              "大多数头单独移除时影响不大：模型里还有别的头做着同样的事。"},
    "knockout.strongest": {"en": "Remove the head that matters most ({head})", "zh": "移除最重要的头（{head}）"},
    "patch.show": {"en": "Copy each head of the sidebar's sentence into this one", "zh": "把侧栏句子的每个头逐个复制到这个句子里"},
    "patch.show.help": {
        "en": "Activation patching: one head's output from the sidebar's run replaces that head's output in the second "
              "sentence's run, one head at a time. The two sentences must read as many tokens each.",
        "zh": "激活修补：用侧栏句子那次运行中某个头的输出，替换第二个句子运行中同一个头的输出，每次一个头。两个句子读到的"
              "词元数必须相同。"},
    "patch.running": {"en": "Copying each head in turn…", "zh": "正在逐个复制注意力头……"},
    "patch.intro": {
        "en": "The two outputs first part at step {step}: the sidebar's sentence gives {a}, this one {b}. Each cell is "
              "how far copying that one head from the sidebar's run moves this sentence's preference between them: "
              "0 = unchanged, 1 = as the sidebar's sentence (the logit difference, normalised).",
        "zh": "两个输出在第 {step} 步第一次不同：侧栏句子给出 {a}，这个句子给出 {b}。每个格子表示：只从侧栏句子的运行复制这"
              "一个头，会让这个句子在两者之间的偏好移动多远：0 = 不变，1 = 与侧栏句子一样（归一化的 logit 差）。"},
    "patch.whole.title": {"en": "Each block's whole output copied: how far it moves the prediction",
                          "zh": "复制每个块的整个输出：它把预测移动了多远"},
    "patch.whole.ffn": {"en": "{stack} FFN", "zh": "{stack}前馈网络"},
    "patch.cut": {"en": "Not every head was tried within {seconds:.0f} s; the rest are blank.",
                  "zh": "{seconds:.0f} 秒内没有试完所有的头，其余留空。"},
    "patch.title": {"en": "{block}: how far each head moves the prediction toward the sidebar's sentence",
                    "zh": "{block}：每个头把预测朝侧栏句子移动了多远"},
    "predict.q.head_matters": {
        "en": "Which head, removed alone, makes the output least likely?",
        "zh": "单独移除哪个头，会让原输出变得最不可能？"},
}
