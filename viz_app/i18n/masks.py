"""Strings of the Masks page."""

STRINGS = {
    "masks.intro": {
        "en": "Sentences in a batch rarely have the same length, so the shorter ones are filled up with a "
              "<pad> token until all rows are as long as the longest. Padding is not text: no token may take "
              "information from it. A mask says, for every query and key, whether the query may attend to that "
              "key. The padding mask blocks the <pad> keys; the causal mask stops a decoder from looking at "
              "later positions; in a decoder both apply at once. A blocked score is set to −∞ before the "
              "softmax, so its weight becomes exactly 0.",
        "zh": "同一批次中的句子长度往往不同，较短的句子会用 <pad> 词元补齐，直到每一行都和最长的句子一样长。"
              "填充不是真正的文字，任何词元都不应从中获取信息。掩码规定了每个查询能否关注每个键："
              "填充掩码屏蔽 <pad> 键；因果掩码让解码器看不到后面的位置；解码器中两者同时生效。"
              "被屏蔽的分数在 softmax 之前被设为 −∞，因此它的权重恰好为 0。"},
    "masks.formula": {"en": "With the mask M (True = may attend), the scores S = QKᵀ/√d_k become",
                      "zh": "设掩码为 M（True 表示可以关注），分数 S = QKᵀ/√d_k 变为"},
    "masks.batch.label": {"en": "Batch: 2 to 4 sentences, one per line", "zh": "批次：2 到 4 个句子，每行一个"},
    "masks.batch.help": {"en": "Sentences of different lengths show the padding best. Press Ctrl+Enter to apply.",
                         "zh": "长度不同的句子最能体现填充的作用。按 Ctrl+Enter 生效。"},
    "masks.bad.count": {"en": "Please write 2 to 4 sentences, one per line (found {n}).",
                        "zh": "请输入 2 到 4 个句子，每行一个（当前为 {n} 个）。"},
    "masks.bad.empty_line": {"en": "Line {line} is empty: write one sentence on every line, with no blank lines between them.",
                             "zh": "第 {line} 行是空的：请每行写一个句子，句子之间不要留空行。"},
    "masks.bad.sentence": {"en": "Sentence {line} has nothing the model can read once unusable characters are removed.",
                           "zh": "删除无法使用的字符后，第 {line} 个句子中没有模型能读取的内容。"},
    "masks.unmasked_padding": {
        "en": "This model masks no padding: it pads with token {pad}, which is also the token every sentence starts "
              "with (GPT-2's <|endoftext|>), so a padding mask would hide that first token too. Its batches are "
              "padded on the right, where the causal mask already keeps every real token from the padding after it; "
              "the padding mask below is all allowed, and switching it off changes nothing.",
        "zh": "这个模型不屏蔽填充：它用编号 {pad} 的词元填充，而每个句子开头的也是这个词元（GPT-2 的 <|endoftext|>），"
              "填充掩码会把这个开头的词元也一并遮住。它的批次在右侧填充，因果掩码本来就让每个真实词元看不到它后面的填充；"
              "所以下面的填充掩码处处允许，关掉它也没有任何变化。"},
    "masks.same_length": {"en": "All sentences have the same number of tokens, so there is no padding to mask. "
                                "Make one of them shorter to see the padding mask at work.",
                          "zh": "所有句子的词元数相同，因此没有需要屏蔽的填充。把其中一句改短，就能看到填充掩码的作用。"},
    "masks.table": {"en": "The padded batch", "zh": "补齐后的批次"},
    "masks.table.src": {"en": "Encoder input ids", "zh": "编码器输入 id"},
    "masks.table.tgt": {"en": "Decoder input ids (<s> + the model's own output)",
                        "zh": "解码器输入 id（<s> + 模型自己的输出）"},
    "masks.table.tgt_lm": {"en": "Decoder input ids (<s> + the prompt)", "zh": "解码器输入 id（<s> + 提示）"},
    "masks.table.caption": {"en": "Grey cells are padding: id {pad} (<pad>), added on the right up to the longest "
                                  "row. All rows go through the model in one forward pass of shape [{b}, n].",
                            "zh": "灰色单元格是填充：id {pad}（<pad>），在右侧补到最长一行的长度。"
                                  "所有行在一次形状为 [{b}, n] 的前向计算中同时通过模型。"},
    "masks.row_name": {"en": "sentence {i}", "zh": "句子 {i}"},
    "masks.controls": {"en": "What to look at", "zh": "查看内容"},
    "masks.block": {"en": "Attention block", "zh": "注意力模块"},
    "masks.block.encoder.self_attn": {"en": "encoder self-attention", "zh": "编码器自注意力"},
    "masks.block.decoder.self_attn": {"en": "decoder self-attention", "zh": "解码器自注意力"},
    "masks.block.decoder.cross_attn": {"en": "decoder cross-attention", "zh": "解码器交叉注意力"},
    "masks.row": {"en": "Sentence", "zh": "句子"},
    "masks.no_pad_mask": {"en": "Remove the padding mask", "zh": "去掉填充掩码"},
    "masks.no_pad_mask.help": {"en": "Re-runs the batch with pad_mask=False: queries may then attend to <pad>.",
                               "zh": "以 pad_mask=False 重新运行这一批次：查询此时可以关注 <pad>。"},
    "masks.layer_note": {"en": "This stack has {n} layers; showing layer {layer}.",
                         "zh": "该堆栈只有 {n} 层，这里显示第 {layer} 层。"},
    "masks.masks": {"en": "The masks of sentence {i}", "zh": "句子 {i} 的掩码"},
    "masks.masks.about": {
        "en": "The padding mask has shape [b, 1, 1, k]: one row per sentence, the same for every head and every "
              "query, so it is broadcast over the query axis; here it is drawn expanded to [q, k].",
        "zh": "填充掩码的形状是 [b, 1, 1, k]：每个句子一行，对所有头和所有查询都相同，因此沿查询轴广播；"
              "这里把它展开成 [q, k] 画出。"},
    "masks.off": {"en": "The padding mask is switched off: every key counts as allowed.",
                  "zh": "填充掩码已关闭：所有键都被视为允许关注。"},
    "masks.allowed": {"en": "may attend", "zh": "可以关注"},
    "masks.blocked": {"en": "blocked", "zh": "被屏蔽"},
    "masks.kind.padding": {"en": "Padding mask", "zh": "填充掩码"},
    "masks.kind.causal": {"en": "Causal mask", "zh": "因果掩码"},
    "masks.kind.combined": {"en": "Combined mask (padding AND causal)", "zh": "组合掩码（填充 与 因果）"},
    "masks.kind.window": {"en": "Sliding-window causal mask (window {w})", "zh": "滑动窗口因果掩码（窗口 {w}）"},
    "masks.kind.combined_window": {"en": "Combined mask (padding AND window)", "zh": "组合掩码（填充 与 窗口）"},
    "masks.window.local": {
        "en": "Layer {layer} is a local layer (sliding-window attention): each query sees only itself and the "
              "{before} tokens before it, a window of {w}; earlier keys are blocked although they come before it. "
              "This model's local layers: {layers}; its other layers see every earlier token.",
        "zh": "第 {layer} 层是局部层（滑动窗口注意力）：每个查询只能看到自己和它前面的 {before} 个词元，即窗口 {w}；"
              "更早的键虽然在它之前，也被屏蔽。这个模型的局部层：{layers}；其余各层能看到所有更早的词元。"},
    "masks.window.global": {
        "en": "Layer {layer} is a global layer: each query sees every earlier token. This model's local layers "
              "({layers}) see only a sliding window of the last {w} tokens; choose one of them as the layer to see "
              "its window mask.",
        "zh": "第 {layer} 层是全局层：每个查询都能看到所有更早的词元。这个模型的局部层（{layers}）只能看到最近 {w} "
              "个词元的滑动窗口；把层选为其中之一即可看到它的窗口掩码。"},
    "masks.encoder_only_padding": {"en": "The encoder reads the whole sentence in both directions, so only the "
                                         "padding mask applies here; the causal mask belongs to the decoder.",
                                   "zh": "编码器双向读取整个句子，所以这里只用填充掩码；因果掩码只属于解码器。"},
    "masks.cross_padding": {"en": "Cross-attention lets every decoder position look at the whole source, so only "
                                  "the source's padding mask applies.",
                            "zh": "交叉注意力让每个解码器位置都能查看整个源句，所以只用源句的填充掩码。"},
    "masks.query": {"en": "query", "zh": "查询"},
    "masks.key": {"en": "key", "zh": "键"},
    "masks.fill": {"en": "Fill value for blocked scores: −∞ (float('-inf')). softmax gives e^(−∞) = 0 exactly, "
                         "where a large negative number such as −10⁹ would leave a tiny weight; a row with every "
                         "key blocked gets zero weights instead of NaN.",
                   "zh": "被屏蔽分数的填充值：−∞（`float('-inf')`）。softmax 中 e^(−∞) 恰好为 0，而像 −10⁹ 这样的大负数"
                         "还会留下极小的权重；所有键都被屏蔽的行得到全零权重，而不是 NaN。"},
    "masks.scores": {"en": "Scores of sentence {i}, layer {layer}, head {head}",
                     "zh": "句子 {i}、第 {layer} 层、第 {head} 个头的分数"},
    "masks.scores.before": {"en": "Before masking (scaled)", "zh": "掩码之前（已缩放）"},
    "masks.scores.after": {"en": "After masking (empty = −∞)", "zh": "掩码之后（空白 = −∞）"},
    "masks.scores.pattern": {"en": "After softmax (weights)", "zh": "softmax 之后（权重）"},
    "masks.scores.about": {"en": "Both charts share one colour scale. The empty cells on the right hold −∞ (hover "
                                 "shows it); after the softmax below they are exactly 0, and every row still sums to 1.",
                           "zh": "两张图使用同一色标。右图中的空白单元格是 −∞（悬停可见）；在下面 softmax 之后它们恰好为 0，"
                                 "且每一行的和仍为 1。"},
    "masks.leak": {"en": "After softmax: the weights, and how much of them lands on <pad>",
                   "zh": "softmax 之后：权重，以及其中落在 <pad> 上的部分"},
    "masks.leak.about": {"en": "For each query row, the sum of its attention weights on <pad> keys. With the padding "
                               "mask it is 0; switch the mask off to see attention leak onto padding.",
                         "zh": "对每个查询行，求它在 <pad> 键上的注意力权重之和。有填充掩码时它为 0；"
                               "关掉掩码即可看到注意力泄漏到填充上。"},
    "masks.leak.chart": {"en": "Weight on <pad> per query (layer {layer}, head {head})",
                         "zh": "每个查询落在 <pad> 上的权重（第 {layer} 层，第 {head} 个头）"},
    "masks.leak.axis": {"en": "weight on <pad>", "zh": "<pad> 上的权重"},
    "masks.leak.max": {"en": "Largest weight on <pad> from a real token's row: {real:.4f} (this head); "
                             "{all:.4f} over every layer and head of this block.",
                       "zh": "真实词元所在行落在 <pad> 上的最大权重：{real:.4f}（本头）；"
                             "本模块所有层和所有头中的最大值：{all:.4f}。"},
    "masks.leak.no_pad": {"en": "This sentence is the longest in its side of the batch: it has no <pad> keys here.",
                          "zh": "这个句子在该侧是批次中最长的，这里没有 <pad> 键。"},
    "masks.leak.causal": {"en": "In the decoder the padding comes after every real token, so the causal mask already "
                                "hides it from real tokens; only the rows of <pad> positions themselves (which are "
                                "thrown away) change when the padding mask is removed.",
                          "zh": "在解码器中，填充位于所有真实词元之后，因此因果掩码已经把它对真实词元隐藏起来；"
                                "去掉填充掩码时，只有 <pad> 位置自己的行（最终会被丢弃）发生变化。"},
    "masks.invariance": {"en": "Padding invariance", "zh": "填充不变性"},
    "masks.invariance.about": {
        "en": "Each sentence was also run on its own, without padding. With the padding mask, its real tokens get "
              "the same output in the batch as alone (up to float rounding); without it, the padding changes them.",
        "zh": "每个句子也单独运行了一次（不加填充）。有填充掩码时，真实词元在批次中的输出与单独运行时相同"
              "（只差浮点舍入误差）；没有掩码时，填充会改变它们。"},
    "masks.invariance.sentence": {"en": "Sentence", "zh": "句子"},
    "masks.invariance.diff": {"en": "max |batched − alone|", "zh": "最大 |批次 − 单独|"},
}
