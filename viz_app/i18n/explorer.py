"""Strings of the Attention explorer page."""

STRINGS = {
    "explorer.intro": {
        "en": "Every attention head of the model at once. Each small square is one head: row i shows how query "
              "token i spreads its attention over the key tokens, and every row adds up to 1. Heads with the same "
              "shape do the same job: a bright diagonal just below the main one is a head that reads the previous "
              "token, a bright first column is a head that parks its attention on the first token. Pick one head "
              "to see it in full, as a heatmap and as lines between the tokens.",
        "zh": "这里一次列出模型的全部注意力头。每个小方块是一个头："
              "第 i 行表示查询词元 i 把注意力如何分配给各个键词元，每一行加起来等于 1。"
              "形状相同的头做的是同一类事：紧贴主对角线下方的一条亮线，说明这个头在看前一个词元；第一列很亮，"
              "说明这个头把注意力都停放在第一个词元上。选中一个头，就能看到它完整的热力图和词元之间的连线。"},
    "explorer.kind": {"en": "Attention block", "zh": "注意力模块"},
    "explorer.kind.encoder.self_attn": {"en": "encoder self-attention", "zh": "编码器自注意力"},
    "explorer.kind.decoder.self_attn": {"en": "decoder self-attention (causal)", "zh": "解码器自注意力（因果）"},
    "explorer.kind.decoder.cross_attn": {
        "en": "cross-attention (decoder reads encoder)",
        "zh": "交叉注意力（解码器读取编码器）"},
    "explorer.layer_n": {"en": "layer {n}", "zh": "第 {n} 层"},
    "explorer.head_n": {"en": "head {n}", "zh": "头 {n}"},
    "explorer.grid": {"en": "All heads: layers × heads", "zh": "全部注意力头：层 × 头"},
    "explorer.grid.help": {
        "en": "Click a square to enlarge that head below (the red frame marks the one shown); the Layer and Head "
              "boxes in the sidebar do the same. All squares share one colour scale from 0 to 1.",
        "zh": "点击一个小方块，下方就会放大显示这个头（红框标出当前显示的头）；侧栏中的“层”和“头”选择框作用相同。"
              "所有方块共用一条从 0 到 1 的色标。"},
    "explorer.grid.pooled": {
        "en": "The sentence is long, so each cell of this overview covers {b} × {b} tokens and shows the largest "
              "weight among them. The enlarged head below shows every token.",
        "zh": "句子较长，这张总览图中每个格子覆盖 {b} × {b} 个词元，显示其中最大的权重。"
              "下方放大的头会显示每一个词元。"},
    "explorer.grid.hint": {
        "en": "layer {layer}, head {head}: click to enlarge",
        "zh": "第 {layer} 层，头 {head}：点击放大"},
    "explorer.compare": {"en": "Compare two heads", "zh": "比较两个注意力头"},
    "explorer.compare.show": {"en": "Show the comparison", "zh": "显示比较"},
    "explorer.compare.show.help": {
        "en": "Two heads side by side and their difference, cell by cell: of this sentence, of a second sentence, or "
              "of a second model. Off by default, so a new sentence redraws the page sooner; kept in the link, and "
              "a link that names a comparison opens it.",
        "zh": "把两个头并排显示，并逐格给出它们的差：可以是本句的两个头，也可以换一个句子或另一个模型。"
              "默认关闭，这样输入新句子后页面重绘更快；此设置会保存在链接中，指定了比较的链接会直接打开它。"},
    "explorer.compare.a": {"en": "First head", "zh": "第一个头"},
    "explorer.compare.b": {"en": "Second head", "zh": "第二个头"},
    "explorer.compare.head": {"en": "{block}, layer {layer}, head {head}", "zh": "{block}，第 {layer} 层，第 {head} 个头"},
    "explorer.compare.diff": {"en": "First − second (red: the first attends more)",
                              "zh": "第一个 − 第二个（红色：第一个头更关注）"},
    "explorer.compare.unlike": {
        "en": "These two heads read different queries or keys (one of them reads the output, the other the typed "
              "sentence), so they have no cell-by-cell difference: compare heads whose queries and keys read the "
              "same text.",
        "zh": "这两个头的查询或键不同（一个读的是输出，另一个读的是输入的句子），所以没有逐格的差："
              "请比较查询和键读取同一段文字的头。"},
    "explorer.compare.disjoint": {
        "en": "No token of the one matches a token of the other, so there is no cell to subtract.",
        "zh": "两边没有任何一个词元能对应上，所以没有可以相减的格子。"},
    "explorer.compare.mode": {"en": "Compare", "zh": "比较方式"},
    "explorer.compare.mode.heads": {"en": "two heads", "zh": "两个头"},
    "explorer.compare.mode.sentences": {"en": "two sentences", "zh": "两个句子"},
    "explorer.compare.mode.models": {"en": "two models", "zh": "两个模型"},
    "explorer.compare.a.both": {"en": "Head (the same on both sentences)", "zh": "注意力头（两个句子用同一个）"},
    "explorer.compare.text": {"en": "Second sentence (press Enter)", "zh": "第二个句子（按回车）"},
    "explorer.compare.text.help": {
        "en": "Change a word or two of the sidebar's sentence: the tokens the two sentences share are lined up, "
              "and the difference is taken over them.",
        "zh": "把侧栏句子里的一两个词换掉：两个句子共有的词元会一一对齐，差值只在这些词元上计算。"},
    "explorer.compare.text.empty": {
        "en": "Type a second sentence to compare with: this one is empty, or nothing readable is left once control "
              "and broken characters are removed.",
        "zh": "请输入用来比较的第二个句子：当前句子为空，或者删除控制字符和残缺字符后已没有可读的内容。"},
    "explorer.compare.model": {"en": "Second model", "zh": "第二个模型"},
    "explorer.compare.model_head": {"en": "Head of the second model", "zh": "第二个模型的注意力头"},
    "explorer.compare.model.unreadable": {
        "en": "The second model cannot read this sentence: pick another model.",
        "zh": "第二个模型读不了这个句子：请换一个模型。"},
    "explorer.compare.title.a": {"en": "First sentence: {head}", "zh": "第一个句子：{head}"},
    "explorer.compare.title.b": {"en": "Second sentence: {head}", "zh": "第二个句子：{head}"},
    "explorer.compare.title.model": {"en": "{model}: {head}", "zh": "{model}：{head}"},
    "explorer.compare.matched.all": {
        "en": "Every token has its match in the other run, so the difference covers them all.",
        "zh": "每个词元在另一边都有对应，所以差值覆盖全部词元。"},
    "explorer.compare.matched": {
        "en": "The difference covers the tokens both runs share (a token at different positions is labelled with "
              "both, first/second). Left out: {n_a} of the first ({a}) and {n_b} of the second ({b}).",
        "zh": "差值只覆盖两边共有的词元（位置不同的词元同时标出两个位置：第一个/第二个）。"
              "未对应的：第一个中 {n_a} 个（{a}），第二个中 {n_b} 个（{b}）。"},
    "explorer.compare.col.query": {"en": "query", "zh": "查询"},
    "explorer.compare.col.key": {"en": "key", "zh": "键"},
    "explorer.compare.col.a": {"en": "first", "zh": "第一个"},
    "explorer.compare.col.b": {"en": "second", "zh": "第二个"},
    "explorer.compare.col.diff": {"en": "first − second", "zh": "第一个 − 第二个"},
    "explorer.query": {"en": "query", "zh": "查询"},
    "explorer.key": {"en": "key", "zh": "键"},
    "explorer.weight": {"en": "weight", "zh": "权重"},
    "explorer.queries": {"en": "query token (reads)", "zh": "查询词元（读取方）"},
    "explorer.keys": {"en": "key token (is read)", "zh": "键词元（被读取方）"},
    "explorer.focus": {"en": "One head up close", "zh": "单个注意力头特写"},
    "explorer.average": {"en": "Mean over heads", "zh": "各头取平均"},
    "explorer.average.help": {
        "en": "Show the mean of all heads of the chosen layer instead of one head. Averaging hides what each head "
              "does on its own, so use it for an overall picture only.",
        "zh": "显示所选层全部注意力头的平均值，而不是单个头。取平均会掩盖每个头各自的作用，只适合看整体情况。"},
    "explorer.top_k": {"en": "Top-k per row (0 = all)", "zh": "每行保留前 k 个（0 = 全部）"},
    "explorer.top_k.help": {
        "en": "Keep only the k largest weights of each query row; the other cells are left empty.",
        "zh": "每个查询行只保留最大的 k 个权重，其余格子留空。"},
    "explorer.threshold": {"en": "Hide weights below", "zh": "隐藏低于此值的权重"},
    "explorer.threshold.help": {
        "en": "Cells whose weight is below this value are left empty, and no line is drawn for them.",
        "zh": "权重低于该值的格子留空，也不为它们画连线。"},
    "explorer.window": {"en": "Query rows shown", "zh": "显示的查询行"},
    "explorer.window.help": {
        "en": "A slice of the query positions, so a long input stays readable. Every key is still shown.",
        "zh": "只显示一段查询位置，长句也能看清。所有键词元仍然显示。"},
    "explorer.head_title": {"en": "Layer {layer}, head {head}", "zh": "第 {layer} 层，头 {head}"},
    "explorer.mean_title": {"en": "Layer {layer}, mean over heads", "zh": "第 {layer} 层，各头平均"},
    "explorer.lines_title": {"en": "Lines: query (left) → key (right)", "zh": "连线：查询（左）→ 键（右）"},
    "explorer.knock_out": {"en": "Remove {head} and see the output without it", "zh": "移除{head}，看看没有它的输出"},
    "explorer.knock_out.help": {
        "en": "Opens the decoding page with this head knocked out: the output decoded again without it, beside the "
              "original.",
        "zh": "打开解码页面并移除这个头：在没有它的情况下重新解码，与原输出并排比较。"},
    "explorer.heads_lines": {"en": "Every head of the layer as lines", "zh": "本层全部注意力头的连线"},
    "explorer.heads_lines.title": {"en": "Layer {layer}: each head in its colour, query (left) → key (right)",
                                   "zh": "第 {layer} 层：每个头一种颜色，查询（左）→ 键（右）"},
    "explorer.heads_lines.hint": {
        "en": "Point at a token to see only its lines; click a head's name to hide or show it. A line's strength is "
              "its weight; the rows, keys, top-k and threshold are the close-up's.",
        "zh": "把指针移到一个词元上，只看它的连线；点击头的名字可隐藏或显示该头。线条的深浅就是权重；行、键、top-k "
              "和阈值与上面的放大图相同。"},
    "explorer.heads_lines.left_out": {
        "en": "{n} more lines of at least 1% are left out to keep the view light: the {kept} strongest are drawn.",
        "zh": "为保持视图轻量，另有 {n} 条不低于 1% 的连线未画出：只画出最强的 {kept} 条。"},
    "explorer.key_window": {
        "en": "A long input: the close-up shows keys {k0}–{k1} of {n}, the ones that matter to these rows. A row puts "
              "at most {outside:.3f} of its weight on the keys not shown.",
        "zh": "输入较长：特写只显示第 {k0}–{k1} 个键（共 {n} 个），即与这些行有关的键。每一行落在未显示的键上的权重最多为 {outside:.3f}。"},
    "explorer.empty_cells": {
        "en": "Grey cells are masked: the model may not attend there. Blank cells are not zeros: top-k or the "
              "threshold filtered them out. Lines are drawn for the kept cells of at least 1%, darker and thicker "
              "for larger weights; only keys between the first and last one reached are listed.",
        "zh": "灰色格子是被掩码屏蔽的位置，模型不允许关注那里。空白格子并不表示 0，而是被前 k 个或阈值筛掉了。"
              "连线只画保留下来且不低于 1% 的权重，权重越大线越深越粗；右侧只列出从第一个到最后一个被连到的键词元。"},
    "explorer.stats": {"en": "Head statistics", "zh": "注意力头统计"},
    "explorer.stats.intro": {
        "en": "Four numbers per head, each a mean over the query rows i: the entropy H (in nats) is 0 when a row "
              "puts all its weight on one key and log n when it spreads evenly over n keys; the mean distance D is "
              "how far away, in tokens, the attended keys are; S is the weight that lands on the special tokens 𝒮; P is "
              "the weight on the token just before (i ≥ 1), which is close to 1 in a previous-token head.",
        "zh": "每个头给出四个数，都是对各查询行 i 取的平均：熵 H（单位为奈特）"
              "在一行把全部权重放在一个键上时为 0，在 n 个键上均匀分布时为 log n；"
              "平均距离 D 表示被关注的键平均离查询多远（以词元计）；S 是落在特殊词元集合 𝒮 上的权重；"
              "P 是落在紧邻前一个词元上的权重（i ≥ 1），“前一词元头”的 P 接近 1。"},
    "explorer.stat": {"en": "Statistic to map", "zh": "热力图显示的统计量"},
    "explorer.stat.entropy": {"en": "entropy (nats)", "zh": "熵（奈特）"},
    "explorer.stat.distance": {"en": "mean distance (tokens)", "zh": "平均距离（词元）"},
    "explorer.stat.distance.cross": {
        "en": "distance from the diagonal (fraction of the sentence)",
        "zh": "偏离对角线的距离（占句长的比例）"},
    "explorer.stat.special": {"en": "weight on special tokens", "zh": "特殊词元上的权重"},
    "explorer.stat.previous": {"en": "previous-token score", "zh": "前一词元得分"},
    "explorer.stat.detected_previous": {"en": "previous token, on repeated random tokens",
                                        "zh": "前一词元（重复的随机词元上）"},
    "explorer.stat.detected_duplicate": {"en": "duplicate token, on repeated random tokens",
                                         "zh": "重复词元（重复的随机词元上）"},
    "explorer.stat.detected_induction": {"en": "induction, on repeated random tokens", "zh": "归纳（重复的随机词元上）"},
    "explorer.stats.detected": {
        "en": "The last columns do not read your text: as TransformerLens's detect_head, each head reads random tokens "
              "repeated once, and its mean weight is taken on the token before (previous), the same token's earlier "
              "place (duplicate) and the token that followed it there (induction, what lets a model copy a sequence it "
              "has seen once). Near 1: the head does just that.",
        "zh": "最后几列不读你的文本：与 TransformerLens 的 detect_head 一样，每个头读一段重复一次的随机词元，取它在前一个"
              "词元（前一词元）、同一词元上次出现的位置（重复词元）以及上次出现之后的那个词元（归纳：模型借此复制见过一次"
              "的序列）上的平均权重。接近 1：这个头正是在做这件事。"},
    "explorer.stat.cls": {"en": "weight on [CLS]", "zh": "[CLS] 上的权重"},
    "explorer.stat.sep": {"en": "weight on [SEP]", "zh": "[SEP] 上的权重"},
    "explorer.top_heads": {"en": "Heads that stand out — {items}.", "zh": "突出的注意力头 — {items}。"},
    "explorer.top_head": {"en": "layer {layer} head {head} ({value:.2f})", "zh": "第 {layer} 层第 {head} 头（{value:.2f}）"},
    "explorer.grid.all": {
        "en": " At this length the page keeps only this pooled overview of every layer and computes the selected "
              "layer in full when you open it; every token is shown, [CLS] and [SEP] included.",
        "zh": " 在这个长度下，页面只保留各层的这张池化总览，选中的层在打开时才完整计算；所有词元都会显示，包括 [CLS] 和 [SEP]。"},
    "explorer.hidden": {
        "en": "[CLS] and [SEP] are hidden (sidebar): the rows show the weight left for the other tokens and no longer "
              "add up to 1. The statistics below still count every token.",
        "zh": "[CLS] 和 [SEP] 已隐藏（侧栏）：每行只显示留给其他词元的权重，和不再是 1。下方的统计仍计入全部词元。"},
    "explorer.special": {"en": "Special tokens among the keys: {tokens}.", "zh": "键词元中的特殊词元：{tokens}。"},
    "explorer.special.none": {
        "en": "This input has no special tokens (<s>, </s>, <pad>) among the keys, so their weight is 0.",
        "zh": "本输入的键词元中没有特殊词元（<s>、</s>、<pad>），所以它们的权重为 0。"},
    "explorer.stats.self": {
        "en": "Click a column header to sort: the heads with the highest previous-token score or the lowest "
              "entropy come first.",
        "zh": "点击列标题即可排序，比如把前一词元得分最高或熵最低的头排在最前面。"},
    "explorer.stats.cross": {
        "en": "In cross-attention the queries (decoder tokens) and keys (source tokens) belong to two different "
              "sentences, so a distance in tokens and a previous-token score mean nothing. The distance is "
              "measured instead between relative positions (0 = start, 1 = end of each sentence): near 0, the head "
              "follows the diagonal, reading the source in the order it writes the output.",
        "zh": "在交叉注意力中，查询（解码器词元）和键（源句词元）属于两个不同的句子，"
              "所以以词元计的距离和前一词元得分都没有意义。这里改为按相对位置（每句开头为 0，结尾为 1）计算距离："
              "接近 0 表示这个头沿对角线读源句，即按输出的顺序依次读取源句。"},
    "explorer.sentence": {"en": "Sentence", "zh": "句子"},
    "explorer.target": {"en": "Target for teacher forcing", "zh": "教师强制的目标句"},
    "explorer.html.help": {
        "en": "One .html file with this page's charts, the sentence and the settings; it opens offline in any "
              "browser.",
        "zh": "一个 .html 文件，包含本页的图表、句子和设置；无需联网，任何浏览器都能打开。"},
}
