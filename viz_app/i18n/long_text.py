"""The sidebar's longer text: a text area and a .txt file (viz_app/long_text.py)."""
STRINGS = {
    "long.title": {"en": "Longer text or a .txt file", "zh": "更长的文本或 .txt 文件"},
    "long.area": {"en": "Text (Ctrl+Enter or click outside to use it)", "zh": "文本（按 Ctrl+Enter 或点击框外即可使用）"},
    "long.area.help": {
        "en": "The same text as the sentence box, with room for lines and paste. {model} reads {tokens:,} tokens, "
              "about {chars:,} characters of English at most; the box takes {most:,} and the model reads the start. "
              "Lines are joined by spaces.",
        "zh": "与句子框相同的文本，但可以分行、粘贴长文。{model} 最多读取 {tokens:,} 个词元，约合不超过 {chars:,} 个"
              "英文字符；此框最多接受 {most:,} 个字符，模型读取开头部分。各行以空格连接。"},
    "long.file": {"en": "A text file (.txt, UTF-8)", "zh": "文本文件（.txt，UTF-8 编码）"},
    "long.file.help": {"en": "Its text replaces the sentence: at most {kb:,} KB, read as UTF-8, lines joined by spaces.",
                       "zh": "文件中的文本会替换当前句子：最大 {kb:,} KB，按 UTF-8 读取，各行以空格连接。"},
    "txt.read": {"en": "Read {name}: {n:,} characters.", "zh": "已读取 {name}：{n:,} 个字符。"},
    "txt.cut": {"en": "Read {name}: {n:,} characters, of which the first {keep:,} are kept (what a text box takes).",
                "zh": "已读取 {name}：共 {n:,} 个字符，保留前 {keep:,} 个（文本框能接受的上限）。"},
    "txt.too_big": {"en": "{name} was not read: it is {n:,} bytes, over the {most:,} bytes a text file may have here. "
                          "The sentence is unchanged.",
                    "zh": "未读取 {name}：它有 {n:,} 字节，超过了此处文本文件的上限 {most:,} 字节。句子未改变。"},
    "txt.not_utf8": {"en": "{name} was not read: it is not UTF-8 text (byte {at:,} is not). Save it as UTF-8 and try "
                           "again. The sentence is unchanged.",
                     "zh": "未读取 {name}：它不是 UTF-8 文本（第 {at:,} 字节不符合）。请另存为 UTF-8 后重试。句子未改变。"},
    "txt.binary": {"en": "{name} was not read: it holds binary data, not text. The sentence is unchanged.",
                   "zh": "未读取 {name}：它含有二进制数据，而不是文本。句子未改变。"},
    "txt.empty": {"en": "{name} was not read: it holds no text. The sentence is unchanged.",
                  "zh": "未读取 {name}：其中没有文本。句子未改变。"},
    "txt.no_file": {"en": "The file was not received; please upload it again. The sentence is unchanged.",
                    "zh": "没有收到文件，请重新上传。句子未改变。"},
}
