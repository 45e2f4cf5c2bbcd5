"""A mistake is ruled only on the hearing the decision was calibrated on.

The recognizer's own hearing decides right, unsure and talk; an utterance
it hears as a mistake is heard again by its confirmer
(``Recognizer.confirmer``; for pocketsphinx, the grammar compiled from
JSGF) and judged on that hearing. Real FSDD voices and the real stream;
the words heard are scripted, because which words pocketsphinx hears in a
given clip cannot be chosen (the two grammars' real hearings are compared
in bench/RESULTS.md)."""

from __future__ import annotations

import numpy as np
from fsdd import needs_fsdd, take

from companion.referee.recognizer import Recognizer, Word
from companion.referee.sphinx_backend import SphinxRecognizer, SphinxSettings
from companion.referee.stream import Listener

RATE = 16000
COUNT = ["one", "two", "three", "four", "five", "six", "seven"]


class Scripted(Recognizer):
    """Hears the next of ``scripts`` in each utterance it decodes (the last
    one again when they run out) and keeps what it decoded; ``confirmer``:
    its confirmer (None: none)."""

    name = "scripted"
    sample_rate = RATE

    def __init__(self, scripts: list[list[Word]], confirmer: Recognizer | None = None) -> None:
        super().__init__()
        self.scripts = scripts
        self.decoded: list[np.ndarray] = []
        self._confirmer = confirmer

    def _compile(self, vocabulary: tuple[str, ...]) -> None:
        pass

    def confirmer(self) -> Recognizer | None:
        return self._confirmer

    def decode(self, pcm: np.ndarray) -> list[Word]:
        self.decoded.append(np.array(pcm))
        return list(self.scripts[min(len(self.decoded), len(self.scripts)) - 1])


def two_calls(recognizer: Recognizer) -> list[str]:
    """George's "four" twice, a second apart, over a quiet floor, "four"
    owed by Abby: the outcome and words of each utterance heard."""
    word = take(4, "george", 4)
    gap = np.zeros(RATE, dtype=np.int16)
    pcm = np.concatenate([gap, word, gap, word, gap])
    rng = np.random.default_rng(2)
    quiet = np.clip(pcm + rng.normal(0, 8, len(pcm)), -32768, 32767).astype(np.int16)
    listener = Listener(recognizer, RATE, second_opinion=False)
    listener.set_vocabulary(COUNT)
    listener.set_expected(["four"], "Abby")
    heard = listener.feed(quiet, 0.0) + listener.flush()
    return [f"{h.outcome} {h.text}".strip() for h in heard]


FOUR = [Word("four", 0.2, 0.6, 0.95)]
FIVE = [Word("five", 0.2, 0.6, 0.999)]


@needs_fsdd
def test_a_mistake_stands_only_if_the_confirmer_hears_it_too() -> None:
    """The first "four" is heard right; the second is heard as a sure
    "five". Without a confirmer that is a mistake. With one, the second
    utterance alone is heard again, with the same audio and words listened
    for: heard as "four" there, it is right; heard as "five" too, a mistake."""
    assert two_calls(Scripted([FOUR, FIVE])) == ["right four", "mistake five"]
    confirmer = Scripted([FOUR])
    recognizer = Scripted([FOUR, FIVE], confirmer)
    assert two_calls(recognizer) == ["right four", "right four"]
    assert len(confirmer.decoded) == 1
    assert np.array_equal(confirmer.decoded[0], recognizer.decoded[1])
    assert confirmer.vocabulary == recognizer.vocabulary
    assert two_calls(Scripted([FOUR, FIVE], Scripted([FIVE]))) == ["right four", "mistake five"]


def test_pocketsphinx_confirms_with_the_grammar_compiled_from_jsgf() -> None:
    """The call's small grammar has a confirmer with the JSGF grammar and
    the word beam it was calibrated with, made once; that one has none."""
    rec = SphinxRecognizer()
    confirmer = rec.confirmer()
    assert confirmer is not None and confirmer is rec.confirmer()
    assert (confirmer.settings.grammar, confirmer.settings.wbeam) == ("jsgf", 1e-24)
    assert rec.settings.grammar == "call"
    assert confirmer.confirmer() is None
    assert SphinxRecognizer(settings=SphinxSettings(grammar="jsgf")).confirmer() is None
