"""Under the sidebar's sentence: the words a model trained here never read, their replacements, and every word it
knows (viz_app/known_words.py)."""
STRINGS = {
    "words.marked": {"en": "As the model reads it, words it never saw in training marked:",
                     "zh": "模型读到的句子，训练中从没见过的词已标出："},
    "words.fix": {"en": "Replace “{word}” with", "zh": "把 “{word}” 换成"},
    "words.no_fix": {"en": "No word the model knows is spelt like “{word}”: see the list of words it knows.",
                     "zh": "模型认识的词里没有拼写接近 “{word}” 的：请看它认识的词表。"},
    "words.known": {"en": "Words this model knows ({n})", "zh": "这个模型认识的词（{n} 个）"},
    "words.search": {"en": "Search", "zh": "搜索"},
    "words.none": {"en": "No word it knows contains “{query}”.", "zh": "它认识的词里没有包含 “{query}” 的。"},
    "words.more": {"en": "and {n} more: search to narrow the list.", "zh": "还有 {n} 个：搜索可缩小范围。"},
}
