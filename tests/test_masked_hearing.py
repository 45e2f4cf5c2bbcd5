"""The array's seat mask: a second output of the beam, and the ear's second
hearing of an utterance the beam left unsure (``Beamformer.masked``,
``Listener.feed``'s ``copy``, ``StreamCopy``)."""

from __future__ import annotations

import numpy as np
import pytest
import soxr
from fsdd import needs_fsdd, take
from test_enhance import COUNT, Scripted, hearings

from companion.referee.enhance import RATE, StreamCopy
from companion.referee.recognizer import Word
from companion.referee.stream import Listener


def test_a_stream_copy_gives_what_it_kept_and_the_raw_samples_elsewhere() -> None:
    kept = StreamCopy(keep_s=1.0, rate=RATE)
    kept.add(np.full(100, 7, dtype=np.int16), 1000)
    kept.add(np.full(100, 8, dtype=np.int16))  # right after: index 1100
    raw = np.zeros(300, dtype=np.int16)
    out = kept.copy(950, raw)
    assert list(out[:50]) == [0] * 50  # before it was kept: raw
    assert list(out[50:150]) == [7] * 100 and list(out[150:250]) == [8] * 100
    assert list(out[250:]) == [0] * 50  # not reached yet: raw
    kept.add(np.full(10, 9, dtype=np.int16), 5000)  # a gap: what came before goes
    assert list(kept.copy(1000, raw[:10])) == [0] * 10
    assert list(kept.copy(5000, raw[:10])) == [9] * 10
    kept.add(np.full(RATE * 2, 1, dtype=np.int16))  # more than a second: the oldest goes
    assert list(kept.copy(5000, raw[:10])) == [0] * 10


def fed(recognizer: Scripted, owed: str, *, copy_gain: float | None,
        second_opinion: bool = False, device_rate: int = RATE) -> list[str]:
    """George's "four" (take 4) in white noise, a call of ``owed`` owed by
    Abby, fed in 30 ms blocks with a copy of each block (the block times
    ``copy_gain``; None: no copy) as the array gives its seat-masked beam:
    the outcome and words of each utterance heard. ``device_rate``: the
    rate (Hz) the blocks come at (the listener resamples both)."""
    word = take(4, "george", 4)
    rng = np.random.default_rng(2)
    pcm = np.concatenate([np.zeros(RATE, dtype=np.int16), word, np.zeros(RATE, dtype=np.int16)])
    noisy = np.clip(pcm + rng.normal(0, 300, len(pcm)), -32768, 32767).astype(np.int16)
    if device_rate != RATE:
        noisy = soxr.resample(noisy, RATE, device_rate)
    copy = (None if copy_gain is None
            else np.round(noisy * copy_gain).astype(np.int16))
    listener = Listener(recognizer, device_rate, second_opinion=second_opinion)
    listener.set_vocabulary(COUNT)
    listener.set_expected([owed], "Abby")
    heard = []
    step = device_rate * 30 // 1000
    for i in range(0, len(noisy), step):
        heard += listener.feed(noisy[i:i + step], 0.0 if i == 0 else None,
                               copy=None if copy is None else copy[i:i + step])
    heard += listener.flush()
    return [f"{h.outcome} {h.text}".strip() for h in heard]


@needs_fsdd
def test_a_call_heard_only_in_the_masked_copy_is_right() -> None:
    """Heard unsurely as "three" in the beam and surely as "four" in the
    seat-masked copy, a "four" owed is ruled right; the twin decodes the
    copy's own samples, lined up with the beam's. Without a copy the call
    stays unsure and the twin decodes nothing (no suppressor here)."""
    three, four = Word("three", 0.2, 0.6, 0.3), Word("four", 0.2, 0.6, 0.95)
    recognizer, twin = hearings([three], [four])
    assert fed(recognizer, "four", copy_gain=0.5) == ["right four"]
    assert len(recognizer.decoded) == len(twin.decoded) == 1
    raw, again = recognizer.decoded[0], twin.decoded[0]
    assert len(again) == len(raw)
    # the copy is the raw audio halved: the twin heard the copy, sample for sample
    assert np.max(np.abs(again.astype(np.int32) - np.round(raw * 0.5).astype(np.int32))) <= 1
    recognizer, twin = hearings([three], [four])
    assert fed(recognizer, "four", copy_gain=None) == ["unsure three"]
    assert twin.decoded == []


@needs_fsdd
def test_a_copy_at_the_devices_rate_is_resampled_with_the_stream() -> None:
    """Blocks at 48 kHz and their copy: the twin decodes the copy at the
    recognizer's 16 kHz, lined up with the stream's own decode."""
    three, four = Word("three", 0.2, 0.6, 0.3), Word("four", 0.2, 0.6, 0.95)
    recognizer, twin = hearings([three], [four])
    assert fed(recognizer, "four", copy_gain=0.5, device_rate=48000) == ["right four"]
    raw, again = recognizer.decoded[0], twin.decoded[0]
    assert len(again) == len(raw)
    # Each stream is resampled and rounded to int16 on its own, so the copy
    # is the stream halved only to within a few LSB (how many depends on the
    # SIMD path soxr takes on the CPU); one sample out of line at 16 kHz
    # would leave an error of hundreds of LSB (RMS) on this word.
    half = np.round(raw * 0.5).astype(np.int32)
    error = again.astype(np.int32) - half
    assert np.sqrt(np.mean(error.astype(np.float64) ** 2)) <= 2.0
    assert np.max(np.abs(error)) <= 8
    shifted = again[1:].astype(np.float64) - half[:-1]
    assert np.sqrt(np.mean(shifted ** 2)) > 50.0


@needs_fsdd
def test_the_masked_copy_never_makes_a_mistake_and_goes_before_the_suppressor() -> None:
    """Heard surely as another number in the masked copy, the call stays
    unsure (the mask changes a word's spectrum: the copy can only find the
    call owed). With the suppressor too, the masked copy is heard first,
    and a right call there costs no suppressed hearing."""
    three = Word("three", 0.2, 0.6, 0.3)
    recognizer, twin = hearings([three], [Word("three", 0.2, 0.6, 0.95)])
    assert fed(recognizer, "four", copy_gain=0.5, second_opinion=True) == ["unsure three"]
    assert len(twin.decoded) == 2  # the masked copy, then the suppressed one
    recognizer, twin = hearings([three], [Word("four", 0.2, 0.6, 0.95)])
    assert fed(recognizer, "four", copy_gain=0.5, second_opinion=True) == ["right four"]
    assert len(twin.decoded) == 1


def test_a_copy_of_another_length_is_refused() -> None:
    listener = Listener(Scripted([]), RATE)
    with pytest.raises(ValueError, match="480 samples, not 479"):
        listener.feed(np.zeros(480, dtype=np.int16), 0.0, copy=np.zeros(479, dtype=np.int16))
