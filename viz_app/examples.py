"""The app's own example sentences: what a first visit shows, the same for every visitor.

They are the only texts whose runs every session shares (loaders/scope.py): anyone can see them, so a result
cached from another visitor's run of one tells nobody anything.
"""
EXAMPLES = {  # a first sentence for each shipped model, in words it knows
    "translate-en-fr": "the small girl does not see the red car",
    "lm-en": "the old man",
    "lm-en-rope": "the old man",
    "reverse": "one two three four five",
    "all-MiniLM-L6-v2": "the animal didn't cross the street because it was too tired",
}
FIRST_SENTENCE = EXAMPLES["all-MiniLM-L6-v2"]  # a first visit's sentence on any other model (the operator's own)
SECOND_SENTENCES = {  # the explorer's comparison: each model's example sentence with one word changed
    "translate-en-fr": "the small boy does not see the red car",  # la petite fille → le petit garçon
    "lm-en": "the old woman",
    "lm-en-rope": "the old woman",
    "reverse": "one two three cat five",
    "all-MiniLM-L6-v2": "the animal didn't cross the street because it was too wide",  # what "it" refers to flips
}
# The decoding page's offer where every step of a visitor's sentence leaves one token to draw (the model is sure of
# it): a sentence where the model hesitates. The translator's example is one: "girl" and "car" each have two right
# French words (fille or fillette, voiture or auto; en_fr.OTHER_FRENCH), which it read in training two times in
# five, so sampling with the page's defaults (T 1, top-k 10, top-p 0.8) varies there and nowhere unlikely
# (tests/app/test_sampling_defaults.py).
HESITANT = {"translate-en-fr": EXAMPLES["translate-en-fr"]}
# One click away on the overview's first screen: sentences that show what attention must do, each with what to look
# for in the chart beside it (i18n "overview.try.<key>"). Every word is one the translator read in training.
TRY = {"translate-en-fr": (("the old man does not see the black cat in the garden", "wrap"),
                           ("my sister gave her old books to the children", "agree"))}
SHARED = frozenset({"", *EXAMPLES.values(), *SECOND_SENTENCES.values(), *HESITANT.values(),
                    *(sentence for tried in TRY.values() for sentence, _ in tried)})
