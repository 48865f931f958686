"""Strings of the shared sidebar, the navigation and the input messages."""

STRINGS = {
    "app.title": {"en": "Attention visualizer", "zh": "注意力可视化"},
    "app.warming": {
        "en": "Preparing the first page: loading the model and tracing the sentence (a fresh server takes a few "
              "seconds, once).",
        "zh": "正在准备第一个页面：加载模型并追踪这个句子（刚启动的服务器需要几秒钟，只此一次）。"},
    "sidebar.model": {"en": "Model", "zh": "模型"},
    "sidebar.cache": {"en": "Models in this computer's Hugging Face cache ({n})",
                      "zh": "本机 Hugging Face 缓存中的模型（{n} 个）"},
    "sidebar.cache.row": {"en": "**{name}** · {family} · {size}", "zh": "**{name}** · {family} · {size}"},
    "sidebar.cache.open": {"en": "Open", "zh": "打开"},
    "sidebar.cache.help": {"en": "Read from this computer's disk, never downloaded. A server for others lists none.",
                           "zh": "从本机磁盘读取，不会下载。为他人提供服务的服务器不列出这些模型。"},
    "sidebar.src": {"en": "Sentence (press Enter)", "zh": "输入句子（按回车）"},
    "sidebar.src.help": {"en": "The text the model reads: the source of a translation, the prompt of a language model.",
                         "zh": "模型读入的文本：翻译模型的源句，语言模型的提示。"},
    "sidebar.tgt": {"en": "Target for teacher forcing (optional)", "zh": "教师强制的目标句（可选）"},
    "sidebar.tgt.help": {"en": "Leave empty to use the model's own translation as the decoder input.",
                         "zh": "留空则用模型自己的译文作为解码器输入。"},
    "sidebar.layer": {"en": "Layer", "zh": "层"},
    "sidebar.head": {"en": "Head", "zh": "头"},
    "sidebar.lang": {"en": "Language", "zh": "界面语言"},
    "sidebar.hide_special": {"en": "Hide [CLS] and [SEP]", "zh": "隐藏 [CLS] 和 [SEP]"},
    "sidebar.half": {"en": "Attention weights in float16", "zh": "注意力权重用半精度保存"},
    "sidebar.half.help": {
        "en": "Keep every head's attention weights in half precision: half the memory for long texts and large "
              "models, about three significant digits. Every other value stays float32.",
        "zh": "以半精度（16 位浮点数）保存每个头的注意力权重：长文本和大模型的内存减半，约保留三位有效数字。其他数值仍为单精度。"},
    "run.half": {"en": "Attention weights are kept in float16 (sidebar): about three significant digits.",
                 "zh": "注意力权重以半精度（16 位浮点数）保存（侧栏）：约三位有效数字。"},
    "sidebar.hide_special.help": {
        "en": "Leave the two frame tokens out of the attention views. Many BERT heads put most of their weight "
              "on them, which washes out everything else; hidden, the rest shows. The weights are the model's own, "
              "not rescaled, so a row no longer adds up to 1.",
        "zh": "在注意力视图中去掉这两个边界词元。BERT 的许多头把大部分权重放在它们上面，其余部分因此难以看清；"
              "隐藏后其余部分便显现出来。权重仍是模型的原值，未重新归一化，因此每行之和不再是 1。"},
    "sidebar.arch": {"en": "{arch}: {d_model}-wide, {heads} heads, {enc} encoder / {dec} decoder layers",
                     "zh": "{arch}：宽度 {d_model}，{heads} 个头，编码器 {enc} 层 / 解码器 {dec} 层"},
    "arch.encoder-decoder": {"en": "encoder-decoder", "zh": "编码器-解码器"},
    "arch.encoder": {"en": "encoder only", "zh": "仅编码器"},
    "arch.decoder": {"en": "decoder only", "zh": "仅解码器"},
    "input.empty": {"en": "Type a sentence in the sidebar to start.", "zh": "请在侧栏输入一个句子。"},
    "input.unreadable": {"en": "Nothing the model can read is left once control and broken characters are removed: "
                               "type a sentence in the sidebar.",
                         "zh": "删除控制字符和残缺字符后，没有剩下模型能读取的内容：请在侧栏输入一个句子。"},
    "input.surrogate": {"en": "The text holds a broken character (a lone surrogate) that cannot be encoded; it was removed.",
                        "zh": "文本中含有无法编码的残缺字符（孤立代理项），已将其删除。"},
    "input.control": {"en": "Control characters were removed from the text.", "zh": "已删除文本中的控制字符。"},
    "input.batch_cut": {"en": "The text has {n} tokens; the batch on this page takes the first {keep} of each line, so "
                              "that its masks can be read.",
                        "zh": "文本有 {n} 个词元；为便于查看掩码，本页的批次只取每行的前 {keep} 个。"},
    "input.cost_cut": {"en": "The text has {n} tokens; a model you brought reads at most {keep} of them on this shared "
                             "server. At {n} tokens its run would hold about {need} MB ({layers} layers × {heads} heads "
                             "× tokens² attention weights, and its logits over the vocabulary); one visitor's run may "
                             "hold {bound} MB.",
                       "zh": "文本有 {n} 个词元；在这台共享服务器上，你带来的模型最多读取其中 {keep} 个。按 {n} 个词元运行约需 "
                             "{need} MB（{layers} 层 × {heads} 个头 × 词元数² 个注意力权重，以及词表上的 logits）；"
                             "每位访客的一次运行最多可用 {bound} MB。"},
    "input.truncated": {"en": "The text has {n} tokens; only the first {keep} fit the model and are shown.",
                        "zh": "文本共 {n} 个词元，模型只能容纳前 {keep} 个，下面只显示这些。"},
    "input.lowered": {"en": "Written in lower case, as this model's training text is.",
                      "zh": "已改为小写：这个模型的训练文本都是小写。"},
    "input.contraction": {"en": "“n't” written as “ not”, as this model's training text has it.",
                          "zh": "“n't” 已写成 “ not”，与这个模型的训练文本一致。"},
    "input.punctuation": {"en": "Punctuation taken out ({marks}): this model's training text has none.",
                          "zh": "已去掉标点（{marks}）：这个模型的训练文本里没有标点。"},
    "input.unseen": {"en": "This model never read these words in training, so it can only guess at them: {words}. "
                           "Replace them with words it knows (below the sentence in the sidebar).",
                     "zh": "这个模型在训练中从没读到过这些词，只能猜测它们的意思：{words}。可以在侧边栏句子下方把它们换成它认识的词。"},
    "input.unknown": {"en": "The model has no token for these words, so they were split into single letters or "
                            "bytes it has hardly seen; expect odd results: {words}",
                      "zh": "模型的词表里没有这些词，它们被拆成了模型几乎没见过的单个字母或字节，结果可能很奇怪：{words}"},
    "input.no_room": {"en": "With <s> in front, the text fills the model's {max_len} positions: there is no room to "
                            "continue it, so no output is shown.",
                      "zh": "加上开头的 <s> 后，文本已占满模型的 {max_len} 个位置，没有空间续写，因此不显示输出。"},
    "input.unlinked": {"en": "Over {n} characters: this text is left out of the page's link, so a copied link "
                             "opens without it.",
                       "zh": "超过 {n} 个字符：此文本不会写入页面链接，复制的链接打开时不含它。"},
    "input.fingerprint": {"en": "Over {n} characters: the page's link holds this text's fingerprint, not the text. "
                                "It opens the text on this server only, while the server keeps it (not after a "
                                "restart, nor once many newer long texts have pushed it out).",
                          "zh": "超过 {n} 个字符：页面链接里存的是此文本的指纹，而不是文本本身。它只能在这台服务器上打开此文本，"
                                "且服务器仍保存着它时才行（服务器重启后，或被许多更新的长文本挤出后就不行了）。"},
    "input.chars_cut": {"en": "The text has {n:,} characters; a text box takes at most {keep:,}, so the rest was left "
                              "out.",
                        "zh": "文本有 {n:,} 个字符；文本框最多接受 {keep:,} 个，其余部分已略去。"},
    "link.text_gone": {"en": "The link holds the fingerprint of a long text that this server no longer keeps (it "
                             "restarted, or newer long texts pushed it out), so the usual sentence is shown. Ask for "
                             "the text itself, or a new link.",
                       "zh": "链接里存的是一段长文本的指纹，而这台服务器已不再保存该文本（服务器重启过，或被更新的长文本挤出），"
                             "因此显示默认句子。请向对方索要文本本身或一个新链接。"},
    "load.failed": {"en": "The model {name} could not be loaded: {reason}", "zh": "无法加载模型 {name}：{reason}"},
    "load.none": {"en": "No models were found in assets/models/.", "zh": "assets/models/ 中没有找到模型。"},
    "load.progress": {"en": "{file} — {done} / {total} MB read", "zh": "{file} — 已读取 {done} / {total} MB"},
    "query.dropped": {"en": "The link was not read: it is {n:,} characters long, over the 524,288 characters or 1,000 "
                            "settings this server reads from a link. The page opened with its usual settings.",
                      "zh": "链接未被读取：它长 {n:,} 个字符，超过了本服务器从链接读取的 524,288 个字符或 1,000 项设置。"
                            "页面以默认设置打开。"},
    "query.bad": {"en": "The link asked for {setting}, which cannot be shown here; showing {used} instead.",
                  "zh": "链接要求 {setting}，这里无法显示，改为显示 {used}。"},
    "query.stale": {"en": "There is no {setting} here; showing {used} instead.",
                    "zh": "这里没有 {setting}，改为显示 {used}。"},
    "export.csv": {"en": "Numbers as CSV", "zh": "下载数值（CSV）"},
    "export.html": {"en": "This page as HTML", "zh": "下载本页（HTML）"},
    "spinner.model": {"en": "Loading the model…", "zh": "正在加载模型…"},
    "spinner.run": {"en": "Running the model…", "zh": "正在运行模型…"},
}
