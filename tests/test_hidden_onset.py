"""The start of a word a steady hiss hides, found from the caller's takes
(``companion.referee.hidden_onset`` and ``stream.Listener``).

The recognizer is pocketsphinx (real); the voice is real (FSDD takes of a
development speaker, george, from ``../shared/human-calls``); the hiss is
seeded white noise, the clatter the real kitchen noise of
``../shared/human-calls`` (its development half's start)."""

from __future__ import annotations

import numpy as np
import pytest
from fsdd import RATE, needs_fsdd, take
from kitchen_noise import kitchen, needs_kitchen

from companion.referee import hidden_onset
from companion.referee.recognizer import Spellings
from companion.referee.sphinx_backend import SphinxRecognizer
from companion.referee.stream import Listener
from companion.referee.templates import Enrollment
from companion.voice.pack import load_pack

WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven"]


def soft_then_loud(soft_s: float, soft_db: float) -> np.ndarray:
    """A take: ``soft_s`` seconds of noise ``soft_db`` dB under the 0.3 s
    loud part that follows (a stand-in for a th before its vowel)."""
    rng = np.random.default_rng(0)
    loud = rng.normal(0, 8000, round(0.3 * RATE))
    soft = rng.normal(0, 8000 * 10 ** (soft_db / 20), round(soft_s * RATE))
    return np.concatenate([soft, loud])


def test_the_lead_is_the_part_of_the_word_under_the_floor() -> None:
    """A take whose first 0.1 s is 20 dB under its loud part: over a floor
    the soft part would not show over, said as loud as the take, the word
    began 0.1 s before it shows; over a floor 40 dB down it shows at once,
    and with no floor or no call nothing is hidden. The lead is capped."""
    take_ = soft_then_loud(0.1, -20.0)
    peak = float(hidden_onset.frame_powers(take_, RATE).max())
    assert hidden_onset.hidden_lead([take_], peak, peak / 10, RATE) == pytest.approx(0.1)
    assert hidden_onset.hidden_lead([take_], peak, peak * 1e-4, RATE) == 0.0
    assert hidden_onset.hidden_lead([take_], peak, 0.0, RATE) == 0.0
    assert hidden_onset.hidden_lead([take_], 0.0, peak / 10, RATE) == 0.0
    assert hidden_onset.hidden_lead([], peak, peak / 10, RATE) == 0.0
    longer = soft_then_loud(0.4, -20.0)
    assert hidden_onset.hidden_lead([longer], peak, peak / 10, RATE) == hidden_onset.LONGEST_S


def test_the_lead_is_the_median_over_the_takes() -> None:
    """Three takes whose soft starts last 0.05, 0.1 and 0.2 s: 0.1 s."""
    takes = [soft_then_loud(s, -20.0) for s in (0.05, 0.2, 0.1)]
    peak = float(hidden_onset.frame_powers(takes[0], RATE).max())
    assert hidden_onset.hidden_lead(takes, peak, peak / 10, RATE) == pytest.approx(0.1)


def hiss_then(soft_s: float, seed: int = 0) -> tuple[np.ndarray, int]:
    """White noise (the whole band to 8 kHz) with, ``soft_s`` seconds before
    the onset, a soft sound in the speech band (tones of 0.5-3 kHz, 3 dB
    under the noise's power in all) and, from the onset, a loud one; as
    ``band_lead`` takes it. Returns the audio and the onset's index."""
    rng = np.random.default_rng(seed)
    onset = round((hidden_onset.REFERENCE_S + hidden_onset.LONGEST_S) * RATE)
    n = onset + round(0.3 * RATE)
    audio = rng.normal(0, 1000, n)
    t = np.arange(n) / RATE
    tones = sum(np.sin(2 * np.pi * f * t + rng.uniform(0, 6.3)) for f in (500, 1100, 1900, 2900))
    tones *= 1000 * 10 ** (-3 / 20) / np.sqrt(np.mean(tones ** 2))
    soft = onset - round(soft_s * RATE)
    audio[soft:onset] += tones[soft:onset]
    audio[onset:] += 10 * tones[onset:]
    return audio, onset


def test_the_band_lead_is_the_soft_start_under_the_noise() -> None:
    """A soft start 3 dB under a white noise in all, but in the speech band
    only, is found by its band spectrum: 0.1 s of it give a lead of 0.1 s,
    or up to a frame of the spectrum and a hop more (the frame that reaches
    into it, smoothed with the next); none gives no more than the frame
    that reaches into the loud part. The lead is capped at ``LONGEST_S``
    and too little audio, or a noise before that is not steady in the band
    (a louder stretch in it), says nothing."""
    frame = hidden_onset.SPECTRUM_S + hidden_onset.FRAME_S
    audio, _ = hiss_then(0.1)
    assert 0.1 <= hidden_onset.band_lead(audio, RATE) <= 0.1 + frame
    audio, _ = hiss_then(0.0)
    assert hidden_onset.band_lead(audio, RATE) <= hidden_onset.SPECTRUM_S
    audio, _ = hiss_then(hidden_onset.LONGEST_S)
    assert hidden_onset.band_lead(audio, RATE) == hidden_onset.LONGEST_S
    assert hidden_onset.band_lead(audio[:RATE // 10], RATE) is None
    audio, _ = hiss_then(0.1)
    audio[RATE // 10:RATE // 5] *= 2.0  # 0.1 s of the noise before 6 dB louder
    assert hidden_onset.band_lead(audio, RATE) is None


def test_the_two_witnesses_are_averaged_only_where_the_floor_can_hide_a_word() -> None:
    """``word_lead``: the takes' lead and the band spectrum's, averaged,
    when the call's loudest frame stands less than ``START_DB`` over the
    floor; the takes' alone for a call far over its floor (a quiet room,
    where the frames before a word hold breath and the room) or with the
    stream around the onset not known; the band spectrum's alone for a
    caller with no takes of the word, its bar ``OVER_BAR`` higher."""
    take_ = soft_then_loud(0.1, -20.0)
    peak = float(hidden_onset.frame_powers(take_, RATE).max())
    audio, _ = hiss_then(0.2)
    band = hidden_onset.band_lead(audio, RATE)
    assert 0.2 <= band <= 0.2 + hidden_onset.SPECTRUM_S + hidden_onset.FRAME_S
    both = hidden_onset.word_lead([take_], peak, peak / 10, RATE, audio, RATE)
    assert both == pytest.approx((0.1 + band) / 2)
    far_over = peak / 10 ** (hidden_onset.START_DB / 10) / 2
    # (the stream asks for the audio around the onset only where it is used)
    assert hidden_onset.band_asked(peak, peak / 10)
    assert not hidden_onset.band_asked(peak, far_over)
    assert not hidden_onset.band_asked(0.0, peak / 10)
    assert hidden_onset.word_lead([take_], peak, far_over, RATE, audio, RATE) == (
        hidden_onset.hidden_lead([take_], peak, far_over, RATE))
    assert hidden_onset.word_lead([take_], peak, peak / 10, RATE, None, RATE) == (
        pytest.approx(0.1))
    alone = hidden_onset.band_lead(audio, RATE, hidden_onset.OVER_BAR)
    assert alone is not None and 0.2 <= alone <= band
    assert hidden_onset.word_lead([], peak, peak / 10, RATE, audio, RATE) == alone
    assert hidden_onset.word_lead([], peak, far_over, RATE, audio, RATE) == 0.0
    unsteady = audio.copy()
    unsteady[RATE // 10:RATE // 5] *= 2.0
    assert hidden_onset.word_lead([take_], peak, peak / 10, RATE, unsteady, RATE) == (
        pytest.approx(0.1))


def heard_word(digit: int, k: int, noise: str | None) -> tuple[float, float, float]:
    """George's ``digit`` (take ``k``) after 4 s of white noise (``"hiss"``)
    or of the kitchen's clatter (``"kitchen"``, its first seconds) 10 dB
    under it (the mean power of its louder half of 10 ms frames), or of
    digital silence (None); the word owed by Abby, enrolled on his takes
    0-2 of the count words. The word's start (its first 10 ms frame within
    ``hidden_onset.START_DB`` of its loudest), the onset ruled on and where
    the segmenter found the voice, table seconds, of the first utterance
    heard as the word."""
    enrollment = Enrollment()
    for d in range(1, 8):
        for j in range(3):
            enrollment.add("Abby", WORDS[d], take(d, "george", j))
    word = take(digit, "george", k)
    power = hidden_onset.frame_powers(word, RATE)
    first = int(np.argmax(power >= power.max() * 10 ** (-hidden_onset.START_DB / 10)))
    start = 4.0 + first * hidden_onset.FRAME_S
    pcm = np.concatenate([np.zeros(4 * RATE), word.astype(np.float64), np.zeros(RATE)])
    level = float(np.sqrt(np.mean(np.sort(power)[len(power) // 2:])))
    if noise == "hiss":
        pcm += np.random.default_rng(k).normal(0, level / 10 ** (10 / 20), len(pcm))
    elif noise == "kitchen":
        clatter = kitchen(len(pcm) / RATE).astype(np.float64)
        pcm += clatter * level / 10 ** (10 / 20) / np.sqrt(np.mean(clatter ** 2))
    listener = Listener(SphinxRecognizer(Spellings.from_pack(load_pack("en"))), RATE,
                        enrollment=enrollment)
    listener.set_vocabulary(WORDS[1:])
    listener.set_expected([WORDS[digit]], "Abby")
    heard = [h for h in listener.feed(np.clip(pcm, -32768, 32767).astype(np.int16), 0.0)
             + listener.flush() if h.words]
    assert [(h.outcome, h.text) for h in heard][:1] == [("right", WORDS[digit])]
    if noise == "kitchen":
        assert not listener._floor_steady()  # clatter, not a floor
    return start, heard[0].onset, heard[0].sound_onset


def heard_three(k: int, hiss: bool) -> tuple[float, float, float]:
    """``heard_word`` of George's "three" in white noise or silence; only
    that one utterance is heard."""
    return heard_word(3, k, "hiss" if hiss else None)


@needs_fsdd
@pytest.mark.slow
@pytest.mark.parametrize("k", [3, 4, 10])
def test_the_th_of_three_under_a_hiss_is_the_calls_onset(
        k: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """In white noise 10 dB under the call, the segmenter finds George's
    "three" where its vowel stands over the hiss, more than 60 ms after
    the word began (on these takes: their th is long); the onset ruled on
    is moved back over the th by his takes, to within 30 ms of the word's
    start, and the seat would still be measured where the voice rose. In
    a quiet room nothing moves. (Off: ``LONGEST_S`` set to 0.)"""
    start, onset, found = heard_three(k, hiss=True)
    quiet_start, quiet_onset, _ = heard_three(k, hiss=False)
    monkeypatch.setattr(hidden_onset, "LONGEST_S", 0.0)
    _, onset_off, found_off = heard_three(k, hiss=True)
    _, quiet_off, _ = heard_three(k, hiss=False)
    assert onset_off - start > 0.06
    assert abs(onset - start) <= 0.03
    assert found == found_off == onset_off
    assert quiet_onset == quiet_off
    assert abs(quiet_onset - quiet_start) <= 0.03


@needs_fsdd
@pytest.mark.slow
@needs_kitchen
@pytest.mark.parametrize(("digit", "k"), [(3, 4), (3, 10), (6, 3)])
def test_the_start_of_a_word_under_clatter_is_the_calls_onset(
        digit: int, k: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """In the kitchen's clatter 10 dB under the call (a noise that is not
    steady), the segmenter finds George's "three" and "six" more than 60 ms
    after the word began (their th and s are under the clatter); the onset
    ruled on is moved back by his takes over the noise heard just before,
    to within 60 ms of the word's start. (Off: ``LONGEST_S`` set to 0.)"""
    start, onset, found = heard_word(digit, k, "kitchen")
    monkeypatch.setattr(hidden_onset, "LONGEST_S", 0.0)
    _, onset_off, found_off = heard_word(digit, k, "kitchen")
    assert onset_off - start > 0.06
    assert abs(onset - start) <= 0.06
    assert onset < onset_off
    assert found == found_off == onset_off
