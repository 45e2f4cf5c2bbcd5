"""The noise suppressor's copy of the stream (``companion.referee.enhance``)
and the ear's second opinion on it (``Listener``).

The suppressor is WebRTC's own (``webrtc-noise-gain``); the voices are FSDD
takes of a development speaker from ``../shared/human-calls``."""

from __future__ import annotations

import numpy as np
import pytest
from fsdd import needs_fsdd, take

from companion.errors import RecognizerError
from companion.referee.enhance import DELAY, FRAME, RATE, NoiseSuppressor
from companion.referee.recognizer import Recognizer, Word
from companion.referee.stream import CallLevels, Listener
from companion.referee.templates import Enrollment

COUNT = ["one", "two", "three", "four", "five", "six", "seven"]


def feed(suppressor: NoiseSuppressor, pcm: np.ndarray, block: int = 487) -> None:
    """Push ``pcm`` in blocks of an odd size (not whole 10 ms frames)."""
    for i in range(0, len(pcm), block):
        suppressor.push(pcm[i:i + block])


def bursts(seconds: float, seed: int = 0) -> np.ndarray:
    """Loud broadband bursts over a quiet floor (what a correlation can place)."""
    rng = np.random.default_rng(seed)
    n = round(seconds * RATE)
    envelope = np.zeros(n)
    for k in range(int(seconds / 0.35) - 3):
        envelope[round((1.0 + 0.35 * k) * RATE):round((1.15 + 0.35 * k) * RATE)] = 1.0
    x = rng.normal(0, 100, n) + rng.normal(0, 4000, n) * envelope
    return np.clip(x, -32768, 32767).astype(np.int16)


def rms_db(x: np.ndarray) -> float:
    return 10 * float(np.log10(np.mean(x.astype(np.float64) ** 2) + 1e-9))


def test_the_copy_lines_up_with_the_raw_stream() -> None:
    """Sample ``i`` of the copy is the suppressed sample ``i`` of the stream:
    the suppressor's lag (``DELAY``) is taken out, so the cross-correlation
    of copy and raw peaks at lag 0."""
    raw = bursts(3.0)
    suppressor = NoiseSuppressor()
    feed(suppressor, raw)
    start = RATE  # a second in: the bursts
    span = raw[start:start + RATE]
    copy = suppressor.copy(start, span).astype(np.float64)
    lags = range(-300, 301)  # samples: some 19 ms either way
    best = max(lags, key=lambda d: float(np.dot(np.roll(copy, -d), span.astype(np.float64))))
    assert best == 0
    assert not np.array_equal(copy, span)  # it is the suppressed audio, not the raw


@needs_fsdd
def test_steady_noise_goes_and_the_voice_stays() -> None:
    """George's "five" 1.5 s into white noise 10 dB below it: in the copy the
    noise alone is far quieter, the word about as loud as it was."""
    word = take(5, "george", 3)
    rng = np.random.default_rng(1)
    lead = round(1.5 * RATE)
    clean = np.concatenate([np.zeros(lead, dtype=np.int16), word,
                            np.zeros(RATE // 2, dtype=np.int16)]).astype(np.float64)
    noise = rng.normal(0, 1, len(clean))
    noise *= 10 ** ((rms_db(word) - 10) / 20) / np.sqrt(np.mean(noise ** 2))
    raw = np.clip(np.round(clean + noise), -32768, 32767).astype(np.int16)
    suppressor = NoiseSuppressor()
    feed(suppressor, raw)
    copy = suppressor.copy(0, raw)
    quiet = slice(RATE, lead - FRAME)  # noise alone, after the suppressor has learnt it
    spoken = slice(lead, lead + len(word))
    assert rms_db(copy[quiet]) < rms_db(raw[quiet]) - 10
    assert rms_db(copy[spoken]) > rms_db(raw[spoken]) - 3


def test_what_is_not_kept_or_not_reached_stays_raw() -> None:
    """Past what is kept (``keep_s``), and the last few ms the suppressor
    has not given back yet, the copy is the raw samples; a gap in the stream
    starts the suppressor afresh."""
    raw = bursts(3.0)
    suppressor = NoiseSuppressor(keep_s=1.0)
    feed(suppressor, raw)
    early = raw[:RATE]
    assert np.array_equal(suppressor.copy(0, early), early)  # no longer kept
    tail = raw[-FRAME:]
    copy = suppressor.copy(len(raw) - FRAME, tail)
    assert np.array_equal(copy[-DELAY:], tail[-DELAY:])  # not given back yet
    later = 10 * RATE
    suppressor.push(raw[:FRAME * 50], later)  # a gap: the stream goes on at `later`
    assert suppressor.position == later + FRAME * 50
    assert np.array_equal(suppressor.copy(RATE, raw[RATE:2 * RATE]), raw[RATE:2 * RATE])


def test_bad_settings_are_refused() -> None:
    with pytest.raises(RecognizerError, match="16000 Hz"):
        NoiseSuppressor(rate=8000)
    with pytest.raises(ValueError, match="1-4"):
        NoiseSuppressor(level=5)


class Scripted(Recognizer):
    """Returns ``words`` for every utterance and keeps what it decoded. It
    stands in for pocketsphinx, whose words in noise cannot be chosen, to
    test what the stream takes from each hearing; the voice, the segmenter
    and the suppressor are real. ``second``: what its twin (the second
    hearing, of the suppressed copy) hears; None: no twin."""

    name = "scripted"
    sample_rate = RATE

    def __init__(self, words: list[Word], second: list[Word] | None = None) -> None:
        super().__init__()
        self.words = words
        self.decoded: list[np.ndarray] = []
        self._twin = None if second is None else Scripted(second)

    def _compile(self, vocabulary: tuple[str, ...]) -> None:
        pass

    @property
    def twins(self) -> bool:  # type: ignore[override]
        return self._twin is not None

    def twin(self) -> Recognizer | None:
        return self._twin

    def decode(self, pcm: np.ndarray) -> list[Word]:
        self.decoded.append(np.array(pcm))
        return list(self.words)


def hearings(first: list[Word], second: list[Word]) -> tuple[Scripted, Scripted]:
    recognizer = Scripted(first, second)
    assert recognizer._twin is not None
    return recognizer, recognizer._twin


def judged(recognizer: Recognizer, owed: str, *, second_opinion: bool = True,
           said: int = 4, enrollment: Enrollment | None = None) -> list[str]:
    """George's ``said`` (take 4) in white noise, a call of ``owed`` owed
    by Abby: the outcome and words of each utterance heard."""
    word = take(said, "george", 4)
    rng = np.random.default_rng(2)
    pcm = np.concatenate([np.zeros(RATE, dtype=np.int16), word, np.zeros(RATE, dtype=np.int16)])
    noisy = np.clip(pcm + rng.normal(0, 300, len(pcm)), -32768, 32767).astype(np.int16)
    listener = Listener(recognizer, RATE, second_opinion=second_opinion, enrollment=enrollment)
    listener.set_vocabulary(COUNT)
    listener.set_expected([owed], "Abby")
    heard = listener.feed(noisy, 0.0) + listener.flush()
    return [f"{h.outcome} {h.text}".strip() for h in heard]


@needs_fsdd
def test_a_call_heard_only_in_the_suppressed_copy_is_right() -> None:
    """Heard unsurely as "three" in the raw audio and surely as "four" in the
    suppressed copy, a "four" owed is ruled right; the copy is decoded by
    the recognizer's twin, and it is the suppressor's audio, not the raw
    again. Switched off, the call stays unsure."""
    three, four = Word("three", 0.2, 0.6, 0.3), Word("four", 0.2, 0.6, 0.95)
    recognizer, twin = hearings([three], [four])
    assert judged(recognizer, "four") == ["right four"]
    assert len(recognizer.decoded) == len(twin.decoded) == 1
    assert twin.vocabulary == recognizer.vocabulary  # it listens for the same words
    assert len(twin.decoded[0]) == len(recognizer.decoded[0])
    assert not np.array_equal(recognizer.decoded[0], twin.decoded[0])
    recognizer, twin = hearings([three], [four])
    assert judged(recognizer, "four", second_opinion=False) == ["unsure three"]
    assert twin.decoded == []


@needs_fsdd
def test_the_suppressed_copy_never_makes_a_mistake() -> None:
    """Heard unsurely in the raw audio and surely as another number in the
    copy, the call stays unsure: suppression thins words, so the copy can
    only find the call owed, never rule against the caller."""
    recognizer, twin = hearings([Word("three", 0.2, 0.6, 0.3)], [Word("three", 0.2, 0.6, 0.95)])
    assert judged(recognizer, "four") == ["unsure three"]
    assert len(twin.decoded) == 1


@needs_fsdd
def test_a_call_heard_right_is_not_heard_again() -> None:
    """A call the raw audio rules right costs no second decode, nor does a
    recognizer without a twin get one (nor a suppressed copy)."""
    recognizer, twin = hearings([Word("four", 0.2, 0.6, 0.95)], [Word("three", 0.2, 0.6, 0.95)])
    assert judged(recognizer, "four") == ["right four"]
    assert twin.decoded == []
    alone = Scripted([Word("three", 0.2, 0.6, 0.3)])
    assert judged(alone, "four") == ["unsure three"]
    assert len(alone.decoded) == 1
    assert Listener(alone, RATE).suppressor is None


@needs_fsdd
def test_no_second_hearing_when_the_callers_takes_favour_another_word() -> None:
    """George says "seven" where a two is owed. The raw audio is heard as
    something else, unsurely, and his own takes (0-2 of "one" to "seven")
    fit "seven" far better than "two": the call is not heard again, so a
    suppressed copy that thinned "seven" into "two" cannot make it right."""
    enrolled = Enrollment()
    for d in range(1, 8):
        for k in range(3):
            enrolled.add("Abby", COUNT[d - 1], take(d, "george", k))
    recognizer, twin = hearings([Word("hmmrrr", 0.2, 0.6, 0.5)], [Word("two", 0.2, 0.6, 0.95)])
    assert judged(recognizer, "two", said=7, enrollment=enrolled) == ["unsure hmmrrr"]
    assert twin.decoded == []


@needs_fsdd
def test_a_wrong_number_heard_as_the_sound_is_ruled_the_number_the_takes_name() -> None:
    """George says "seven" where a two is owed, in a quiet room at the
    level of the recent calls, and the recognizer hears the sound
    ("hmmrrr") surely over all of it: a mistake either way, but with his
    takes (0-2 of "one" to "seven"), which fit "seven" far better than
    the two owed, the ruling names the seven he said; with no takes it
    names what the recognizer heard. A two heard the same way is ruled
    right by the takes, as before."""
    enrolled = Enrollment()
    for d in range(1, 8):
        for k in range(3):
            enrolled.add("Abby", COUNT[d - 1], take(d, "george", k))

    def quiet(said: int, enrollment: Enrollment | None) -> list[str]:
        word = take(said, "george", 4)
        pcm = np.concatenate([np.zeros(RATE, dtype=np.int16), word,
                              np.zeros(RATE, dtype=np.int16)])
        levels = CallLevels()
        for _ in range(4):
            levels.add(-24.0)  # the recent calls' level, dBFS (this take's is about -25)
        listener = Listener(Scripted([Word("hmmrrr", 0.0, 0.9, 0.995)]), RATE,
                            second_opinion=False, enrollment=enrollment, levels=levels)
        listener.set_vocabulary(COUNT)
        listener.set_expected(["two"], "Abby")
        heard = listener.feed(pcm, 0.0) + listener.flush()
        return [f"{h.outcome} {h.text}".strip() for h in heard]

    assert quiet(7, enrolled) == ["mistake seven"]
    assert quiet(7, None) == ["mistake hmmrrr"]
    assert quiet(2, enrolled) == ["right two"]
