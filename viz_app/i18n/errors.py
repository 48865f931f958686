"""Errors of core_model, by their code (messages.CodedError): "error.<code>" with the error's fields.

The English UI shows the core's own sentence (it may say a little more); these English strings say the same
in short, for a reader of this table and for `text(key, "en")`. viz_app/errors.py picks and fills them.
"""

STRINGS = {
    # what is said when an error has no code here: in Chinese, with the English detail quoted
    "error.unknown": {"en": "{detail}", "zh": "出了点问题（英文原文：{detail}）。"},
    "error.more": {"en": " …and {n:,} more", "zh": " 等，另有 {n:,} 个"},
    "error.stack.encoder": {"en": "encoder", "zh": "编码器"},
    "error.stack.decoder": {"en": "decoder", "zh": "解码器"},
    # reading JSON and files
    "error.json_deep": {"en": "{file} nests more than {depth} levels deep, which no checkpoint file does.",
                        "zh": "{file} 的嵌套超过 {depth} 层，正常的检查点文件不会这样。"},
    "error.json_digits": {"en": "{file} holds a number of over 4,300 digits, which no checkpoint needs.",
                          "zh": "{file} 中有一个超过 4300 位的数字，检查点用不到这么长的数字。"},
    "error.json_invalid": {"en": "{file} is not valid JSON (line {line}, column {column}).",
                           "zh": "{file} 不是有效的 JSON（第 {line} 行第 {column} 列）。"},
    "error.json_not_utf8": {"en": "{file} is not UTF-8 text, so it is not JSON.",
                            "zh": "{file} 不是 UTF-8 文本，因此不是 JSON。"},
    "error.file_missing": {"en": "the checkpoint folder {folder} has no {file}.", "zh": "检查点文件夹 {folder} 中没有 {file}。"},
    "error.file_too_big": {"en": "{file} is {size}, over the limit of {limit}.",
                           "zh": "{file} 有 {size}，超过了 {limit} 的上限。"},
    "error.file_over_limit": {"en": "{file} is over the limit of {limit}.", "zh": "{file} 超过了 {limit} 的上限。"},
    "error.file_grew": {"en": "{file} grew past the limit while it was copied.", "zh": "{file} 在复制过程中变大，超过了上限。"},
    "error.file_unreadable": {"en": "{path} cannot be read.", "zh": "无法读取 {path}。"},
    "error.not_regular_file": {"en": "{file} is not a regular file.", "zh": "{file} 不是普通文件。"},
    "error.not_folder": {"en": "{path} is not a checkpoint folder.", "zh": "{path} 不是检查点文件夹。"},
    # the model's size
    "error.too_many_layers": {"en": "{file} asks for {n:,} {stack} layers, more than the {most} the loader builds.",
                              "zh": "{file} 要求 {n:,} 层{stack}，超过了加载器最多构建的 {most} 层。"},
    "error.too_many_positions": {"en": "{file} asks for {name} {n:,}, more than the {most:,} positions the loader "
                                       "allows.",
                                 "zh": "{file} 要求 {name} 为 {n:,}，超过了加载器允许的 {most:,} 个位置。"},
    "error.model_too_big": {"en": "{file} describes a model of over {millions:,} million weights ({size}), over the "
                                  "limit of {limit}.",
                            "zh": "{file} 描述的模型有超过 {millions:,} 百万个权重（{size}），超过了 {limit} 的上限。"},
    "error.model_far_too_big": {"en": "{file} describes a model of more than 10¹⁵ weights, over the limit of {limit}.",
                                "zh": "{file} 描述的模型有超过 10¹⁵ 个权重，超过了 {limit} 的上限。"},
    # the weights
    "error.weights_pickle": {"en": "{file} holds a pickle (what torch.save writes), not safetensors data; loading a "
                                   "pickle can run any code, so it is not read.",
                             "zh": "{file} 装的是 pickle（torch.save 写出的格式），不是 safetensors 数据；"
                                   "加载 pickle 可能执行任意代码，因此不予读取。"},
    "error.pickle_checkpoint": {"en": "{file} is a pickle-based checkpoint, which is not accepted because loading a "
                                      "pickle can run any code: only {weights} is read.",
                                "zh": "{file} 是基于 pickle 的检查点，加载 pickle 可能执行任意代码，因此不被接受："
                                      "只读取 {weights}（请用 safetensors 保存权重）。"},
    "error.weights_truncated": {"en": "{file} is truncated: it should be {want:,} bytes long, but has {got:,}.",
                                "zh": "{file} 不完整：应有 {want:,} 字节，实际只有 {got:,} 字节。"},
    "error.header_too_big": {"en": "{file} has a header of {size}, over the limit of {limit}.",
                             "zh": "{file} 的文件头有 {size}，超过了 {limit} 的上限。"},
    "error.header_deep": {"en": "{file} has a header nested more than {depth} levels deep.",
                          "zh": "{file} 的文件头嵌套超过 {depth} 层，正常的 safetensors 文件不会这样。"},
    "error.not_safetensors": {"en": "{file} is truncated or not a safetensors file.",
                              "zh": "{file} 不完整，或者不是 safetensors 文件。"},
    "error.tensors_missing": {"en": "{file} lacks tensor(s) the config needs: {names}.",
                              "zh": "{file} 缺少配置所需的张量：{names}。"},
    "error.tensors_unexpected": {"en": "{file} has tensor(s) this config has no place for: {names}.",
                                 "zh": "{file} 含有配置里没有位置的张量：{names}。"},
    "error.tensor_shape": {"en": "{file}: {tensor} has shape {got}, but the config needs {want}.",
                           "zh": "{file}：{tensor} 的形状是 {got}，但配置要求 {want}。"},
    "error.tensor_dtype": {"en": "{file}: {tensor} holds {dtype} values, not floating-point weights.",
                           "zh": "{file}：{tensor} 存的是 {dtype} 类型的值，不是浮点权重。"},
    "error.tensor_not_finite": {"en": "{file}: {tensor} holds NaN or infinite values.",
                                "zh": "{file}：{tensor} 含有 NaN 或无穷大的值。"},
    "error.outputs_not_finite": {"en": "the model's outputs on a plain sentence are not finite numbers (NaN or "
                                       "infinity): its weights are too large to compute with.",
                                 "zh": "模型对一个普通句子的输出不是有限数（NaN 或无穷大）：权重太大，无法计算。"},
    # the config
    "error.config_invalid": {"en": "{file}: {detail}", "zh": "{file} 中的设置不能构成模型（英文原文：{detail}）。"},
    "error.config_not_object": {"en": "{file} must hold a JSON object of field names and values.",
                                "zh": "{file} 必须是一个由字段名和值组成的 JSON 对象。"},
    "error.config_unknown": {"en": "{file} has unknown field(s): {names}.", "zh": "{file} 含有未知字段：{names}。"},
    "error.config_missing": {"en": "{file} is missing field(s): {names}.", "zh": "{file} 缺少字段：{names}。"},
    "error.vocab_mismatch": {"en": "{file} has {n:,} pieces, but {config} says {field} is {want:,}.",
                             "zh": "{file} 有 {n:,} 个词元，但 {config} 中的 {field} 是 {want:,}。"},
    "error.special_mismatch": {"en": "{file} has {field} {got}, but {config} says {want}.",
                               "zh": "{file} 的 {field} 是 {got}，但 {config} 中是 {want}。"},
    # a Hugging Face folder: the importers' shared refusals (core_model/checkpoints/hub.py) name the family
    "error.model_no_memory": {"en": "{file} describes a model of {millions} million weights: loading it takes about "
                                    "{need} of memory, but this machine has {free} free.",
                              "zh": "{file} 描述的模型有 {millions} 百万个权重：加载它大约需要 {need} 内存，但本机只有 {free} 可用。"},
    "error.model_not_found": {"en": "{name} is not a folder, and the Hugging Face cache at {cache} has no model of "
                                    "that name (nothing is downloaded).",
                              "zh": "{name} 不是文件夹，{cache} 处的 Hugging Face 缓存中也没有这个名字的模型（不会下载）。"},
    "error.cache_link_outside": {"en": "{file} in the cached snapshot leads outside the cache, so the snapshot is not "
                                       "read.",
                                 "zh": "缓存快照中的 {file} 指向缓存之外，因此不读取该快照。"},
    "error.unknown_model_type": {"en": "{file} has {name} {got}, which no importer reads; the model types read are: "
                                       "{known}.",
                                 "zh": "{file} 中的 {name} 是 {got}，没有哪个导入器能读取它；能读取的模型类型有：{known}。"},
    "error.import_setting": {"en": "{file} has {name} = {got}; only {want} can be imported.",
                             "zh": "{file} 中 {name} = {got}；只能导入 {want}。"},
    "error.import_lacks": {"en": "{file} lacks {name}, which a {family} config has.",
                           "zh": "{file} 缺少 {family} 配置应有的 {name}。"},
    "error.import_architecture": {"en": "{file} names the architecture {got}, whose weights the {family} importer "
                                        "does not map; it maps: {known}.",
                                  "zh": "{file} 指明的模型结构是 {got}，{family} 导入器无法映射它的权重；"
                                        "能映射的有：{known}。"},
    "error.generation_field": {"en": "{file} says {name} is not a number, which it must be.",
                               "zh": "{file} 中的 {name} 不是数字，但它必须是数字。"},
    "error.generation_range": {"en": "{file} says {name} is {value}, but it must be in {range}.",
                               "zh": "{file} 中 {name} 为 {value}，但它必须在 {range} 之内。"},
    "error.marian_positions": {"en": "{file}: {tensor} is not Marian's sinusoidal position table.",
                               "zh": "{file}：{tensor} 不是 Marian 的正弦位置编码表。"},
    "error.mbart_src_lang": {"en": "{file} puts {got} after a text, but {config} names src_lang {lang}: the "
                                   "encoder's text must end in </s> {lang}.",
                             "zh": "{file} 在文本后加的是 {got}，但 {config} 指定的 src_lang 是 {lang}：编码器读入的文本必须"
                                   "以 </s> {lang} 结尾。"},
    "error.marian_vocab_not_map": {"en": "{file} must map each piece to its token id.",
                                   "zh": "{file} 必须把每个词元对应到它的编号。"},
    "error.marian_vocab_ids": {"en": "{file} must number its pieces 0 to {most:,}, each once.",
                               "zh": "{file} 必须给词元从 0 到 {most:,} 依次编号，每个编号恰好用一次。"},
    # weights kept in shards (model.safetensors.index.json and model-0000N-of-0000M.safetensors)
    "error.index_invalid": {"en": "{file} has no weight_map from tensor names to shard files.",
                            "zh": "{file} 中没有从张量名到分片文件的 weight_map。"},
    "error.shard_name": {"en": "{file} names the shard {shard}, which is no model-0000N-of-0000M.safetensors file "
                               "beside it.",
                         "zh": "{file} 指向的分片 {shard} 不是同一文件夹中的 model-0000N-of-0000M.safetensors 文件。"},
    "error.shard_missing": {"en": "{file} names the shard {shard}, which the folder lacks.",
                            "zh": "{file} 指向的分片 {shard} 不在文件夹中。"},
    "error.shard_mismatch": {"en": "The tensor {tensor} is not where {file} places it ({shard}), or is in two shards.",
                             "zh": "张量 {tensor} 不在 {file} 所指的分片（{shard}）中，或同时出现在两个分片里。"},
    # the tokenizer
    "error.tokenizer_missing": {"en": "No tokenizer file at {path}.", "zh": "{path} 处没有分词器文件。"},
    "error.tokenizer_empty": {"en": "The tokenizer model file {file} is empty.", "zh": "分词器模型文件 {file} 是空的。"},
    "error.tokenizer_corrupt": {"en": "The tokenizer model file {file} is not a sentencepiece model: it is corrupt "
                                      "or truncated.",
                                "zh": "分词器模型文件 {file} 不是 sentencepiece 模型：文件已损坏或不完整。"},
    "error.tokenizer_unusable": {"en": "The tokenizer model file {file} does not keep the fixed special pieces, byte "
                                       "fallback and exact round trip this app needs.",
                                 "zh": "分词器模型文件 {file} 不符合本应用的要求：需要固定的特殊词元、字节回退，"
                                       "并能原样还原文本。"},
    "error.tokenizer_slow": {"en": "The model's tokenizer took over {seconds} s on this text and was stopped: its rules "
                                   "can take a time that grows very fast with what a text repeats. Try a shorter or "
                                   "less repetitive text.",
                             "zh": "该模型的分词器处理这段文本超过 {seconds} 秒，已被停止：它的规则所需的时间会随文本中的重复内容急剧增长。"
                                   "请换一段更短或重复更少的文本。"},
    "error.tokenizer_failed": {"en": "The tokenizer failed on this text.", "zh": "分词器处理这段文本时出错。"},
    "error.tokenizer_no_token": {"en": "The tokenizer has no {token} token for {role}.",
                                 "zh": "分词器中没有充当 {role} 的 {token} 词元。"},
    "error.tokenizer_not_utf8": {"en": "The tokenizer file {file} is not UTF-8 text.",
                                 "zh": "分词器文件 {file} 不是 UTF-8 文本。"},
    "error.tokenizer_not_hf": {"en": "The tokenizer file {file} is not a Hugging Face tokenizer.",
                               "zh": "分词器文件 {file} 不是 Hugging Face 分词器。"},
    "error.tokenizer_not_byte_level": {"en": "The tokenizer file {file} is not a byte-level BPE tokenizer.",
                                       "zh": "分词器文件 {file} 不是字节级 BPE 分词器。"},
    "error.tokenizer_not_sentencepiece": {"en": "The tokenizer file {file} is not a sentencepiece-style tokenizer "
                                                "(Unigram or BPE writing a space as ▁).",
                                          "zh": "分词器文件 {file} 不是 sentencepiece 风格的分词器（用 ▁ 表示空格的 "
                                                "Unigram 或 BPE）。"},
    "error.tokenizer_not_json": {"en": "The tokenizer file {file} is not a JSON object.",
                                 "zh": "分词器文件 {file} 不是 JSON 对象。"},
    "error.tokenizer_no_role": {"en": "Neither config.json nor {file} names the {role} token.",
                                "zh": "config.json 和 {file} 都没有指明 {role} 词元。"},
    "error.tokenizer_none": {"en": "The folder has no tokenizer: none of {files}.",
                             "zh": "文件夹中没有分词器：{files} 一个也没有。"},
    "error.tokenizer_model_kind": {"en": "The tokenizer file {file} has a {model} model, which is not read: only "
                                         "byte-level BPE, WordPiece and sentencepiece-style (Unigram, or BPE writing "
                                         "▁) are.",
                                   "zh": "分词器文件 {file} 使用 {model} 模型，无法读取：只支持字节级 BPE、WordPiece "
                                         "和 sentencepiece 风格（Unigram，或用 ▁ 表示空格的 BPE）。"},
    "error.tokenizer_too_big": {"en": "The tokenizer file {file} is over {most} MB.",
                                "zh": "分词器文件 {file} 超过 {most} MB。"},
    "error.tokenizer_added_gap": {"en": "The tokens tokenizer_config.json adds leave a gap after the {n} pieces of "
                                        "{file}.",
                                  "zh": "tokenizer_config.json 添加的词元没有紧接在 {file} 的 {n} 个词元之后编号。"},
    "error.tokenizer_no_special": {"en": "The tokenizer has no special token at id {id} for {role}.",
                                   "zh": "分词器中编号 {id} 处没有可充当 {role} 的特殊词元。"},
    # a zip or folder brought in
    "error.not_zip": {"en": "the file is not a zip archive (or the zip is damaged).",
                      "zh": "这个文件不是 zip 压缩包（或者压缩包已损坏）。"},
    "error.zip_too_big": {"en": "the zip is {size}, over the limit of {limit}.", "zh": "压缩包有 {size}，超过了 {limit} 的上限。"},
    "error.zip_listing": {"en": "the zip's list of entries takes {size}, far more than a checkpoint needs (at most "
                                "{limit}).",
                          "zh": "压缩包的条目清单占 {size}，远超检查点所需（最多 {limit}）。"},
    "error.zip_entries": {"en": "the zip holds {n:,} entries, more than the {most} allowed; a checkpoint folder has "
                                "at most {files} files.",
                          "zh": "压缩包有 {n:,} 个条目，超过允许的 {most} 个；检查点文件夹最多只有 {files} 个文件。"},
    "error.zip_unpacked_too_big": {"en": "the zip unpacks to {size}, over the limit of {limit}.",
                                   "zh": "压缩包解压后有 {size}，超过了 {limit} 的上限。"},
    "error.folder_too_big": {"en": "the checkpoint's files add up to {size}, over the limit of {limit}.",
                             "zh": "检查点的文件共有 {size}，超过了 {limit} 的上限。"},
    "error.zip_entry_grew": {"en": "{entry} in the zip unpacks to more than the {n:,} bytes it declares.",
                             "zh": "压缩包中的 {entry} 解压后超过了它声明的 {n:,} 字节。"},
    "error.zip_entry_broken": {"en": "{entry} in the zip cannot be unpacked.", "zh": "压缩包中的 {entry} 无法解压。"},
    "error.zip_layout": {"en": "the zip must hold the checkpoint's files at its top level or in one folder, but "
                               "{entry} is not.",
                         "zh": "检查点的文件必须放在压缩包的顶层或同一个文件夹里，{entry} 不符合。"},
    "error.zip_twice": {"en": "the zip holds {file} twice.", "zh": "压缩包里有两个 {file}。"},
    "error.zip_no_config": {"en": "the zip has no {file}, so it holds no checkpoint folder.",
                            "zh": "压缩包里没有 {file}，因此不含检查点文件夹。"},
    "error.zip_absolute": {"en": "the zip entry {entry} has an absolute path, which could write anywhere on the disk.",
                           "zh": "压缩包条目 {entry} 使用绝对路径，可能写到磁盘上的任何位置。"},
    "error.zip_climbs": {"en": "the zip entry {entry} climbs out of its folder with '..'.",
                         "zh": "压缩包条目 {entry} 用“..”跳出了所在的文件夹。"},
    "error.zip_link": {"en": "the zip entry {entry} is a symbolic link, which could point anywhere on the disk.",
                       "zh": "压缩包条目 {entry} 是符号链接，可能指向磁盘上的任何位置。"},
    "error.zip_encrypted": {"en": "the zip entry {entry} is encrypted.", "zh": "压缩包条目 {entry} 已加密。"},
    # trying the model in a child process
    "error.probe_line_full": {"en": "{n} models are being checked or waiting already; try again in a minute.",
                              "zh": "已有 {n} 个模型正在检查或排队；请过一分钟再试。"},
    "error.load_time": {"en": "loading the model took over {seconds} s, the loader's limit.",
                        "zh": "加载模型用了 {seconds} 秒以上，超过了加载器的时限。"},
    "error.load_memory": {"en": "loading the model needed more than the loader's {limit} of memory.",
                          "zh": "加载模型需要的内存超过了加载器的 {limit}。"},
    "error.load_memory_or_crash": {"en": "loading the model needed more than the loader's {limit} of memory, or "
                                         "crashed.",
                                   "zh": "加载模型需要的内存超过了加载器的 {limit}，或者加载过程崩溃了。"},
    "error.too_deep": {"en": "a file of the model nests too deeply to be read.", "zh": "模型的某个文件嵌套太深，无法读取。"},
    "error.load_crash": {"en": "the model could not be loaded ({detail}).", "zh": "无法加载模型（{detail}）。"},
    # the training log and the attention snapshots
    "error.log_rows": {"en": "{file} has more than {most:,} rows.", "zh": "{file} 超过 {most:,} 行。"},
    "error.log_not_ascii": {"en": "{file}: byte {byte:,} is not plain ASCII text.",
                            "zh": "{file}：第 {byte:,} 个字节不是 ASCII 文本。"},
    "error.log_header": {"en": "{file} line 1: the header must be exactly '{header}'.",
                         "zh": "{file} 第 1 行：表头必须正好是“{header}”。"},
    "error.log_line": {"en": "{file} line {line:,} is not a valid row.", "zh": "{file} 第 {line:,} 行的内容有误。"},
    "error.snapshots_unreadable": {"en": "{file} cannot be read.", "zh": "无法读取 {file}。"},
    "error.snapshots_bad": {"en": "{file} does not describe one set of probes at one set of steps.",
                            "zh": "{file} 的内容不一致，无法作为一组训练快照读取。"},
    # decoding
    "error.patch_lengths": {
        "en": "the two sentences must read as many tokens each to copy a head from one run into the other; they read "
              "{a} and {b}.",
        "zh": "要把一个头从一次运行复制到另一次，两个句子读到的词元数必须相同；它们分别是 {a} 和 {b} 个。"},
    "error.patch_same": {"en": "the two sentences give the same output: there is no difference to move.",
                         "zh": "两个句子的输出相同：没有可以移动的差异。"},
    "error.no_decoder": {"en": "an encoder-only model has no decoder, so it cannot generate tokens.",
                         "zh": "仅编码器模型没有解码器，无法生成词元。"},
    "error.empty_source": {"en": "the source is empty; an encoder-decoder model needs at least one source token.",
                           "zh": "源句为空；编码器-解码器模型至少需要一个源词元。"},
    "error.no_room": {"en": "the prompt of {n:,} tokens leaves no room below the model's {positions:,} positions.",
                      "zh": "提示有 {n:,} 个词元，已占满模型的 {positions:,} 个位置，没有空间再生成。"},
    "error.source_ids": {"en": "every source id must be from 0 to {most:,}.", "zh": "每个源词元编号都必须在 0 到 {most:,} 之间。"},
    "error.bad_argument": {"en": "the decoding setting {name} has a value it cannot take.",
                           "zh": "解码设置 {name} 的取值无效。"},
}
