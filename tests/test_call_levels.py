"""The callers' loudness (``stream.CallLevels``) keeps only levels of calls
a recognizer heard.

A call the caller's own takes find where the recognizer heard no game word
(``decision.takes_find`` with ``Thresholds.unheard_fit``) is ruled right,
but no word gave it a level: it must not join the record the quiet test
(``Thresholds.quiet_db``) measures talk against. The decoder is a stand-in
(``test_templates.Deaf``, which hears no game word; ``Hears`` a sure
"five"): whether a real decoder hears nothing in a given real clip depends
on the room, and only the stream's bookkeeping is tested here. The call and the takes are
real FSDD recordings of george from ``../shared/human-calls/raw``.
"""

from __future__ import annotations

import numpy as np
from fsdd import RATE, needs_fsdd, take
from test_templates import Deaf

from companion.referee.recognizer import Recognizer, Word
from companion.referee.stream import Listener
from companion.referee.templates import enrollment_of

WORDS = ["one", "two", "three", "four", "five", "six", "seven"]


def george(word: str, k: int) -> np.ndarray:
    """george's take ``k`` of ``word``, at ``RATE``."""
    return take(WORDS.index(word) + 1, "george", k)


class Hears(Deaf):
    """Hears a sure "five" over whatever it is given."""

    name = "hears-five"

    def decode(self, pcm: np.ndarray) -> list[Word]:
        return [Word("five", 0.0, len(pcm) / RATE, 0.999)]


def judged(recognizer: Recognizer) -> tuple[list[str], Listener]:
    """The outcomes of george's "five" (an enrolled take itself, so the
    takes surely fit it) said over a quiet floor as Abby's call of five."""
    enrollment = enrollment_of({"Abby": {w: [george(w, i) for i in range(3)] for w in WORDS}})
    call = george("five", 0).astype(np.float64)
    pcm = np.concatenate([np.zeros(RATE), call, np.zeros(RATE)])
    pcm = pcm + np.random.default_rng(5).normal(0.0, 8.0, len(pcm))
    pcm = np.clip(np.rint(pcm), -32768, 32767).astype(np.int16)
    listener = Listener(recognizer, RATE, enrollment=enrollment, second_opinion=False,
                        learn=False)
    listener.set_vocabulary(WORDS)
    listener.set_expected(["five"], "Abby", calls=[["five"]])
    out = []
    for i in range(0, len(pcm), 480):
        out += [h.outcome for h in listener.feed(pcm[i:i + 480], 0.0 if i == 0 else None)]
    out += [h.outcome for h in listener.flush()]
    return out, listener


@needs_fsdd
def test_a_call_only_the_takes_found_adds_no_level() -> None:
    out, listener = judged(Deaf())
    assert out == ["right"]  # the takes found the five the recognizer did not hear
    assert len(listener.levels) == 0


@needs_fsdd
def test_a_call_the_recognizer_heard_adds_its_level() -> None:
    out, listener = judged(Hears())
    assert out == ["right"]
    assert len(listener.levels) == 1
    reference = listener.levels.reference()
    assert reference is not None and -40.0 < reference < 0.0
