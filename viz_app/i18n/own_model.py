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
    "own.folder.help": {"en": "The path of a checkpoint folder on the computer that runs this app; its files are "
                              "copied and checked as a zip's would be.",
                        "zh": "运行本应用的计算机上某个检查点文件夹的路径；其中的文件会像 zip 中的文件一样被复制并检查。"},
    "own.failed": {"en": "{source} was not loaded: {reason} The model you had stays selected.",
                   "zh": "未能加载 {source}：{reason} 仍使用原先选中的模型。"},
    "own.loaded": {"en": "{source} is loaded and selected; for this session it is in the model list.",
                   "zh": "已加载并选中 {source}；本次会话中可在模型列表里找到它。"},
    "own.label": {"en": "{name} (yours)", "zh": "{name}（你的）"},
}
