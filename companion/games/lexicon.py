"""The words a game listens for, as pure data.

A ``Lexicon`` maps spoken words to what they mean in the games: count words to
numbers, the phone sounds of The Nasty 7, claim words of Cheat. The voice pack
(``voices/<lang>/pack.toml``) supplies it; the engines only read it, so they
stay free of file I/O. ``ENGLISH`` is the built-in default, identical to
``voices/en``.
"""

from __future__ import annotations

import msgspec


class Lexicon(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Spoken words and their meaning.

    ``numbers``: word -> number (count words, digits included).
    ``default_sound``: the phone sound of a round without the nasty rules.
    ``sounds``: phone sounds offered for the nasty rules (players may invent others).
    ``ranks``: word -> Cheat rank (``"A"``, ``"2"`` .. ``"10"``, ``"J"``, ``"Q"``, ``"K"``),
    singular and plural forms.
    ``cheat``: the words that call cheat.
    ``articles``: words that mean one card in a Cheat claim ("a six", "an ace").
    ``article_before``: article -> the only rank words it goes before
    ("an" -> ace, eight); an article without an entry goes before every
    singular rank word no other article claims ("a"). Only the grammar uses
    it (a claim phrase a player would never say is a phrase the recognizer
    can mishear into); "a ace" is still read as one ace.
    ``corrections``: words that, said before a claim, correct the last claim
    instead of making a new one ("no, one seven").
    """

    numbers: dict[str, int]
    default_sound: str = "hmmrrr"
    sounds: tuple[str, ...] = ()
    ranks: dict[str, str] = msgspec.field(default_factory=dict)
    cheat: tuple[str, ...] = ("cheat",)
    articles: tuple[str, ...] = ()
    article_before: dict[str, tuple[str, ...]] = msgspec.field(default_factory=dict)
    corrections: tuple[str, ...] = ()

    def number(self, word: str) -> int | None:
        """The number a word stands for, or None."""
        return self.numbers.get(word.lower())

    def number_word(self, n: int) -> str:
        """The first word of the lexicon that says ``n`` (digits as a fallback)."""
        for word, value in self.numbers.items():
            if value == n and not word.isdigit():
                return word
        return str(n)

    def articles_for(self, word: str) -> tuple[str, ...]:
        """The articles said before the singular rank word ``word``
        (``article_before``): ``("an",)`` for "ace", ``("a",)`` for "king"."""
        word = word.lower()
        claimed = {w.lower() for words in self.article_before.values() for w in words}
        out = []
        for article in self.articles:
            only = self.article_before.get(article)
            if (word in {w.lower() for w in only}) if only is not None else word not in claimed:
                out.append(article)
        return tuple(out)


def spoken_words(text: str, *, split_hyphens: bool = False) -> list[str]:
    """The words of a ``say`` text: lower case, end punctuation stripped,
    commas read as spaces. Hyphens split words only when asked (The Nasty 7
    keeps an invented sound like "peek-a-boo" as one word; Cheat splits
    "four-four-six")."""
    if split_hyphens:
        text = text.replace("-", " ")
    out = []
    for raw in text.replace(",", " ").split():
        word = raw.strip(".!?;:\"'").lower()
        if word:
            out.append(word)
    return out


_EN_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}
_EN_NUMBERS.update({str(v): v for v in range(0, 13)})
_EN_NUMBERS["zero"] = 0

_EN_RANKS: dict[str, str] = {
    "ace": "A", "aces": "A", "king": "K", "kings": "K", "queen": "Q", "queens": "Q",
    "jack": "J", "jacks": "J",
    "two": "2", "twos": "2", "three": "3", "threes": "3", "four": "4", "fours": "4",
    "five": "5", "fives": "5", "six": "6", "sixes": "6", "seven": "7", "sevens": "7",
    "eight": "8", "eights": "8", "nine": "9", "nines": "9", "ten": "10", "tens": "10",
}

ENGLISH = Lexicon(
    numbers=_EN_NUMBERS,
    default_sound="hmmrrr",
    sounds=("hmmrrr", "pfft", "ouch", "peekaboo", "bingo", "beep", "quack"),
    ranks=_EN_RANKS,
    cheat=("cheat",),
    articles=("a", "an"),
    article_before={"an": ("ace", "eight")},
    corrections=("no",),
)
"""The English lexicon, the same words as ``voices/en/pack.toml``."""
