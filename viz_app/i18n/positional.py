"""Strings of the Positional encoding lab."""

STRINGS = {
    "positional.intro": {
        "en": "Attention by itself is blind to order: shuffle the tokens and every token receives the same mix. "
              "The original Transformer therefore adds to each token a vector that depends only on its position: "
              "pairs of dimensions hold a sine and a cosine whose wavelength grows from 2π up to 2π·base across "
              "the dimensions, like the hands of a clock that turn at different speeds. Move the sliders to see "
              "the pattern change; the model's own choice and your sentence follow below.",
        "zh": "注意力本身看不出顺序：把词元打乱，每个词元得到的加权组合完全不变。"
              "因此原始 Transformer 给每个词元加上一个只取决于其位置的向量：每两个维度组成一对，分别是正弦和余弦，"
              "各对的波长从 2π 逐渐增大到 2π·base，就像转速各不相同的一组钟表指针。拖动滑块观察图案的变化；"
              "下方还有当前模型自己的位置编码，以及你输入的句子。"},
    "positional.formula": {"en": "For position pos and pair i (dimensions 2i and 2i+1):",
                           "zh": "对位置 pos 和第 i 对维度（第 2i 和 2i+1 维）："},
    "positional.lab": {"en": "The sinusoidal encoding, with your settings", "zh": "正弦位置编码（按你的设置）"},
    "positional.d_model": {"en": "d_model (width)", "zh": "d_model（向量宽度）"},
    "positional.length": {"en": "Length (positions)", "zh": "长度（位置个数）"},
    "positional.base": {"en": "Base", "zh": "底数 base"},
    "positional.base.help": {"en": "The 10000 of the paper: a larger base stretches the slowest wavelengths.",
                             "zh": "论文中的 10000：底数越大，最慢的那些波长被拉得越长。"},
    "positional.dims": {"en": "Dimensions to plot", "zh": "要绘制的维度"},
    "positional.dim_name": {"en": "dim {d} ({kind})", "zh": "第 {d} 维（{kind}）"},
    "positional.sin": {"en": "sin", "zh": "正弦"},
    "positional.cos": {"en": "cos", "zh": "余弦"},
    "positional.curves": {"en": "Chosen dimensions over the positions", "zh": "所选维度随位置的变化"},
    "positional.curves.none": {"en": "Choose at least one dimension to draw its curve.", "zh": "请至少选择一个维度来绘制曲线。"},
    "positional.axis.pos": {"en": "position", "zh": "位置"},
    "positional.axis.dim": {"en": "dimension", "zh": "维度"},
    "positional.axis.value": {"en": "value", "zh": "数值"},
    "positional.axis.key_pos": {"en": "key position", "zh": "键的位置"},
    "positional.axis.query_pos": {"en": "query position", "zh": "查询的位置"},
    "positional.axis.pair": {"en": "dimension pair i", "zh": "维度对 i"},
    "positional.heatmap": {"en": "PE: positions × dimensions", "zh": "PE：位置 × 维度"},
    "positional.heatmap.caption": {
        "en": "Left columns change fast, right columns slowly: each position gets a distinct pattern, and nearby "
              "positions get similar ones.",
        "zh": "左侧的列变化快，右侧的列变化慢：每个位置都有独特的图案，相邻位置的图案彼此相似。"},
    "positional.similarity": {"en": "Position-to-position similarity: dot product PE·PEᵀ",
                              "zh": "位置之间的相似度：点积 PE·PEᵀ"},
    "positional.similarity.caption": {
        "en": "Each cell is the dot product of two position vectors. Every row has the same length √(d_model/2) = "
              "{norm:.2f}, so this is the cosine similarity times {scale}. The value depends only on the distance "
              "between the two positions (constant along each diagonal) and is largest on the diagonal.",
        "zh": "每个格子是两个位置向量的点积。每一行的长度都是 √(d_model/2) = {norm:.2f}，"
              "所以它等于余弦相似度乘以 {scale}。数值只取决于两个位置之间的距离（沿每条对角线不变），并在主对角线上最大。"},
    "positional.model": {"en": "This model's own position information", "zh": "当前模型自己的位置信息"},
    "positional.model.sinusoidal": {
        "en": "This model adds the fixed sinusoidal table above, at its own width d_model = {d} and base {base:g}; "
              "its first {n} positions are shown (it accepts at most {max_len}).",
        "zh": "该模型加上的是上面那种固定的正弦编码，宽度 d_model = {d}，底数 {base:g}；"
              "这里显示前 {n} 个位置（模型最多接受 {max_len} 个）。"},
    "positional.model.learned": {
        "en": "This model learned one vector per position during training (as BERT and GPT-2 do); here are its "
              "first {n} rows (it has {max_len}). Similarity is cosine here, since learned rows differ in length.",
        "zh": "该模型在训练中为每个位置学到一个向量（与 BERT、GPT-2 相同）；这里显示前 {n} 行（共 {max_len} 行）。"
              "学到的各行长度不一，因此这里的相似度用余弦相似度。"},
    "positional.model.rope": {
        "en": "This model uses rotary position embedding (RoPE): nothing is added to the tokens. Inside each "
              "attention head, the query and key are split into pairs of dimensions and pair i is rotated by the "
              "angle pos·θᵢ with θᵢ = base^(−2i/d_head) (d_head = {d_head}, base {base:g}).",
        "zh": "该模型使用旋转位置编码（RoPE）：词元向量上不加任何东西。在每个注意力头内部，查询和键被分成若干维度对，"
              "第 i 对旋转 pos·θᵢ 角，θᵢ = base^(−2i/d_head)（d_head = {d_head}，底数 {base:g}）。"},
    "positional.rope.partial": {
        "en": "RoPE turns only the first {dims} of each head's {d_head} dimensions (partial rotary), with θᵢ = "
              "base^(−2i/{dims}); the other dimensions carry no position. The angles below are those of its pairs.",
        "zh": "RoPE 只旋转每个头 {d_head} 个维度中的前 {dims} 个（部分旋转），θᵢ = base^(−2i/{dims})；"
              "其余维度不带位置信息。下图只画出这些维度对的角度。"},
    "positional.model.rope.linear": {
        "en": "Its RoPE is scaled linearly: every θᵢ is divided by {factor:g}, so positions turn as if they were "
              "{factor:g} times closer together (a context {factor:g} times longer than the one it was first "
              "trained on).",
        "zh": "它的 RoPE 经过线性缩放：每个 θᵢ 都除以 {factor:g}，位置转动起来就像彼此靠近了 {factor:g} 倍"
              "（上下文比最初训练时长 {factor:g} 倍）。"},
    "positional.model.rope.llama3": {
        "en": "Its RoPE is scaled as Llama 3.1's: pairs whose wavelength 2π/θᵢ is longer than {slow:g} tokens "
              "turn {factor:g} times slower, pairs shorter than {fast:g} tokens are kept, and those in between blend "
              "the two (first trained on {original} tokens).",
        "zh": "它的 RoPE 按 Llama 3.1 的方式缩放：波长 2π/θᵢ 长于 {slow:g} 个词元的维度对转速减慢 {factor:g} 倍，"
              "短于 {fast:g} 个词元的保持不变，介于两者之间的在两者之间平滑过渡（最初训练的上下文为 {original} 个词元）。"},
    "positional.model.alibi": {
        "en": "This model uses ALiBi: nothing is added to the tokens. Each head adds −slope·|query position − key "
              "position| to its scaled scores, so distant tokens get less attention; each head has its own slope. "
              "A decoder's causal mask then hides the upper triangle.",
        "zh": "该模型使用 ALiBi：词元向量上不加任何东西。每个头在缩放后的分数上加上 −斜率·|查询位置 − 键位置|，"
              "距离越远，得到的注意力越少；每个头有自己的斜率。解码器的因果掩码还会遮住右上三角。"},
    "positional.model.relative": {
        "en": "This model (T5) uses a relative position bias: nothing is added to the tokens. Each head adds a "
              "learned number to its scores, chosen by the bucket of the key's offset from the query ({buckets} "
              "buckets): short offsets have a bucket each, longer ones share buckets that widen logarithmically, and "
              "every offset of {distance} or more shares the last one. Each stack learns one table, which all its "
              "layers' self-attention adds; cross-attention adds none. Its scores are not divided by √d_head.",
        "zh": "该模型（T5）使用相对位置偏置：词元向量上不加任何东西。每个头在分数上加一个学到的数，"
              "这个数由键相对查询的偏移所在的桶决定（共 {buckets} 个桶）：较短的偏移各占一个桶，较长的偏移按对数"
              "逐渐变宽地共用桶，偏移达到 {distance} 及以上的都落入最后一个桶。每个栈学一张表，栈内每一层的"
              "自注意力都加上它；交叉注意力不加。它的分数也不除以 √d_head。"},
    "positional.relative.buckets": {"en": "Learned bias per bucket ({side}): heads × buckets",
                                    "zh": "每个桶学到的偏置（{side}）：头 × 桶"},
    "positional.relative.bias": {"en": "Bias added to each head's scores ({side})", "zh": "加到各个头分数上的偏置（{side}）"},
    "positional.relative.head": {"en": "head {h}", "zh": "头 {h}"},
    "positional.relative.caption.src": {
        "en": "The encoder's buckets tell keys before the query from keys after it, so each head can prefer either "
              "side. The bias depends only on the offset: it is constant along every diagonal. Each head has its own "
              "colour range (its colour bar beside it).",
        "zh": "编码器的桶区分查询之前和之后的键，所以每个头可以偏向任一侧。偏置只取决于偏移：沿每条对角线不变。"
              "每个头使用自己的色标范围（色条在其右侧）。"},
    "positional.relative.caption.tgt": {
        "en": "The decoder's buckets are all for keys before the query: a key after it takes the bucket of offset 0, "
              "and the causal mask hides it anyway (the upper triangle). The bias is constant along every diagonal; "
              "each head has its own colour range.",
        "zh": "解码器的桶都用于查询之前的键：之后的键落入偏移为 0 的桶，而且反正会被因果掩码遮住（右上三角）。"
              "偏置沿每条对角线不变；每个头使用自己的色标范围。"},
    "positional.axis.bucket": {"en": "bucket", "zh": "桶"},
    "positional.axis.head": {"en": "head", "zh": "头"},
    "positional.model.none": {
        "en": "This model uses no positional encoding at all: apart from a causal mask, it cannot tell the order of its tokens.",
        "zh": "该模型完全不使用位置编码：除了因果掩码之外，它无法分辨词元的先后顺序。"},
    "positional.model.table": {"en": "The model's table ({side}): positions × dimensions",
                               "zh": "模型的位置表（{side}）：位置 × 维度"},
    "positional.model.similarity": {"en": "Similarity of its rows ({side}): {kind}", "zh": "各行之间的相似度（{side}）：{kind}"},
    "positional.kind.dot": {"en": "dot product", "zh": "点积"},
    "positional.kind.cosine": {"en": "cosine", "zh": "余弦相似度"},
    "positional.side.src": {"en": "encoder", "zh": "编码器"},
    "positional.side.tgt": {"en": "decoder", "zh": "解码器"},
    "positional.rope.angles": {"en": "Rotation angle pos·θᵢ of each pair (mod 2π)", "zh": "各维度对的旋转角 pos·θᵢ（模 2π）"},
    "positional.rope.offset": {"en": "q·k for one fixed q and k placed at every pair of positions",
                               "zh": "同一对 q、k 放在任意两个位置上时的 q·k"},
    "positional.rope.offset.caption": {
        "en": "The same query and key vectors, rotated for their positions: the score is constant along every "
              "diagonal, so it depends only on the offset between the positions, not on where they are.",
        "zh": "同样的查询向量和键向量按各自的位置旋转后：分数沿每条对角线都不变，"
              "也就是只取决于两个位置之间的差，而与它们的绝对位置无关。"},
    "positional.alibi.bias": {"en": "Bias added to each head's scores", "zh": "加到各个头分数上的偏置"},
    "positional.alibi.caption": {
        "en": "Each head has its own colour range (its colour bar beside it): the slopes run from {high:.4g} to "
              "{low:.4g}, so on one shared range the gentlest heads would look blank.",
        "zh": "每个头使用自己的色标范围（色条在其右侧）：斜率从 {high:.4g} 到 {low:.4g}，"
              "若共用一个范围，斜率最小的头几乎看不出颜色。"},
    "positional.alibi.head": {"en": "head {h}: slope {slope:.4g}", "zh": "头 {h}：斜率 {slope:.4g}"},
    "positional.sentence": {"en": "Your sentence: token embedding + position = input", "zh": "你的句子：词元嵌入 + 位置 = 输入"},
    "positional.sentence.intro": {
        "en": "The matrices the {side} actually adds, for the current sentence.",
        "zh": "当前句子在{side}中实际相加的矩阵。"},
    "positional.sentence.ranges": {
        "en": "Each matrix has its own colour range, so a small one is not left blank: {ranges}. Hover a cell for its "
              "value.",
        "zh": "每个矩阵使用自己的色标范围，以免较小的那个几乎看不出颜色：{ranges}。鼠标悬停可查看每个格子的数值。"},
    "positional.sentence.range": {"en": "{name} ±{bound:.3g}", "zh": "{name} ±{bound:.3g}"},
    "positional.sentence.tok": {"en": "token embedding (not scaled)", "zh": "词元嵌入（未缩放）"},
    "positional.sentence.scaled": {"en": "token embedding × √d_model", "zh": "词元嵌入 × √d_model"},
    "positional.sentence.pos": {"en": "+ position", "zh": "+ 位置"},
    "positional.sentence.out": {"en": "= input to layer 0", "zh": "= 第 0 层的输入"},
    "positional.sentence.nopos": {
        "en": "This model adds no position vector to its tokens, so the input is the token embedding itself.",
        "zh": "该模型不向词元加位置向量，所以输入就是词元嵌入本身。"},
    "positional.sentence.extra": {
        "en": "This model also adds token-type vectors or normalizes the sum, so the input is not exactly the sum of the first two.",
        "zh": "该模型还会加上词元类型向量或对和进行归一化，因此输入并不恰好等于前两者之和。"},
    "positional.axis.token": {"en": "token", "zh": "词元"},
}
