"""What the tokenizer kinds share: the special-token roles of the imported kinds (`SpecialIds`)."""
from __future__ import annotations


class SpecialIds:
    """The four roles' ids (`_ids`: pad, unk, bos, eos) and the set of special ids (`_special`) of an imported
    tokenizer (HubTokenizer, MarianTokenizer): ids found in the tokenizer's own files, never fixed numbers."""

    pad_id = property(lambda self: self._ids["pad"])
    unk_id = property(lambda self: self._ids["unk"])
    bos_id = property(lambda self: self._ids["bos"])
    eos_id = property(lambda self: self._ids["eos"])

    def is_special(self, i: int) -> bool:
        return int(i) in self._special
