"""Strings of the sidebar's 'Your own model' expander."""

STRINGS = {
    "own.title": {"en": "Your own model", "zh": "你自己的模型"},
    "own.upload": {"en": "A zipped checkpoint folder (.zip)", "zh": "打包成 zip 的检查点文件夹（.zip）"},
    "own.upload.help": {
        "en": "A folder with config.json, model.safetensors, the tokenizer model(s) (src.model, tgt.model) and "
              "card.md, zipped: at most {mb} MB. Pickle files (.bin, .pt, .pkl) are never read.",
        "zh": "一个含有 config.json、model.safetensors、分词器模型（src.model、tgt.model）和 card.md 的文件夹，"
              "打包成 zip：最大 {mb} MB。pickle 文件（.bin、.pt、.pkl）一律不读取。"},
    "own.folder": {"en": "…or a checkpoint folder on the server (press Enter)",
                   "zh": "……或服务器上的检查点文件夹（按回车）"},
    "own.folder.help": {"en": "The path of a checkpoint folder inside the model folder that whoever runs this app "
                              "has opened to visitors; its files are copied and checked as a zip's would be.",
                        "zh": "运行本应用的人向访客开放的模型文件夹中某个检查点文件夹的路径；其中的文件会像 zip 中的文件一样被复制并检查。"},
    "own.outside": {"en": "{source} is not a folder inside the model folder this server lets visitors read from.",
                    "zh": "{source} 不是本服务器允许访客读取的模型文件夹中的文件夹。"},
    "own.failed": {"en": "{source} was not loaded: {why} ({reason}) The model you had stays selected.",
                   "zh": "未能加载 {source}：{why}原因：{reason}原先选中的模型保持不变。"},
    "own.why.invalid": {"en": "its files do not make a checkpoint this app can read.",
                        "zh": "其中的文件不构成本应用能读取的检查点。"},
    "own.why.limit": {"en": "it is larger than this server allows.", "zh": "它超出了本服务器允许的大小。"},
    "own.why.unsafe": {"en": "it holds something that is never read, for safety.",
                       "zh": "它包含出于安全考虑一律不读取的内容。"},
    "own.why.numbers": {"en": "its numbers cannot be computed with.", "zh": "它的数值无法用于计算。"},
    "own.why.time": {"en": "loading it took longer than this server allows.", "zh": "加载它所需的时间超出了本服务器的限制。"},
    "own.why.memory": {"en": "loading it needed more memory than this server allows.",
                       "zh": "加载它所需的内存超出了本服务器的限制。"},
    "own.why.crash": {"en": "loading it failed.", "zh": "加载失败。"},
    "own.removed": {"en": "{source} is no longer on this server: it keeps the {n} models brought most recently by all "
                          "its visitors, and newer ones came. Upload it again to go on with it.",
                    "zh": "{source} 已不在这台服务器上：服务器只保留所有访客最近带来的 {n} 个模型，之后又有新的模型上传。"
                          "如需继续使用，请重新上传。"},
    "own.no_file": {"en": "The upload could not be read: the server holds no such file. Please upload the zip again.",
                    "zh": "无法读取上传的文件：服务器上没有这个文件。请重新上传该 zip。"},
    "own.replaced": {"en": "{source} left your model list and this server: it keeps the {n} models you brought most "
                           "recently, so that every visitor has room.",
                     "zh": "{source} 已从你的模型列表和这台服务器上移除：服务器只保留你最近带来的 {n} 个模型，好让每位访客都有空间。"},
    "own.waiting": {"en": "Other visitors' models are being checked first: yours is number {place} in line and will be "
                          "checked in turn. Keep this page open.",
                    "zh": "正在先检查其他访客的模型：你的模型排在第 {place} 位，会依次检查。请不要关闭本页。"},
    "own.loaded": {"en": "{source} is loaded and selected; for this session it is in the model list.",
                   "zh": "已加载并选中 {source}；本次会话中可在模型列表里找到它。"},
    "own.label": {"en": "{name} (yours)", "zh": "{name}（你的）"},
}
