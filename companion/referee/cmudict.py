"""Pronunciations of the words listened for, read from the dictionary file.

A pocketsphinx decoder made with its bundled CMU dictionary holds all of it
in memory (about 135,000 words), while the ear listens for a few dozen (what
that costs: bench/RESULTS.md, "Peak memory"). ``CmuDictionary`` instead
reads the file line by line when words it has not looked up yet are asked
for, keeps only those words' pronunciations, and the recognizer adds them to
a one-word decoder (``companion.referee.sphinx_decoder.one_word_decoder``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

CMU_DICT = "en-us/cmudict-en-us.dict"
"""The bundled dictionary, under pocketsphinx's model folder: one
pronunciation per line, ``word PHONES...``; a word's alternatives follow it
as ``word(2)``, ``word(3)``."""


class CmuDictionary:
    """Pronunciations (ARPAbet phone strings, pocketsphinx's) of words in a
    pocketsphinx dictionary file at ``path`` (default: the bundled CMU one).
    Raises ``OSError`` on the first lookup if the file cannot be read."""

    def __init__(self, path: str | Path | None = None) -> None:
        if path is None:
            import pocketsphinx

            path = pocketsphinx.get_model_path(CMU_DICT)
        self.path = Path(path)
        self._known: dict[str, list[str]] = {}

    def pronunciations(self, word: str) -> list[str]:
        """``word``'s pronunciations in the file's order (the main one first);
        empty when the file lacks the word."""
        self.look_up([word])
        return list(self._known[word])

    def look_up(self, words: Iterable[str]) -> None:
        """Read the pronunciations of ``words`` not looked up before, in one
        pass over the file."""
        wanted = {w for w in words if w not in self._known}
        if not wanted:
            return
        found: dict[str, list[str]] = {w: [] for w in wanted}
        with self.path.open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                name, _, phones = line.partition(" ")
                base = name.split("(", 1)[0]
                if base in found and phones.strip():
                    found[base].append(" ".join(phones.split()))
        self._known.update(found)
